/** @turngym/server — an OpenEnv-compatible env server (WebSocket + HTTP) with TurnGym's extensions, and RemoteEnv. */
export { serveEnvs, type ServerHandle } from './serve-envs';
export { serveWorkers, type WorkerPoolHandle, type WorkerPoolOptions } from './serve-workers';
export { serveAsWorker, clusterWorkerIndex } from './serve-as-worker';
export { serveSettingsSchema, type ServeOptions, type ServeSettings } from './server-options';
export type { ClientOptionsWidening } from './client-options';
export type { ServerClock } from './server-clock';
// `turngym serve`'s process-level handlers, and the scope @turngym/mcp runs its sessions' env code in.
export {
  currentFaultOwner,
  installEnvFaultGuard,
  runOwnedBy,
  runUnowned,
  sessionFaultOwner,
  type EnvFaultOwner,
  type FaultySession,
} from './env-fault-scope';
// For @turngym/mcp, which serves the same envs over MCP with the same allow-list and clock.
export { ClientOptionsPolicy } from './client-options';
export { closeEnvWithin } from './close-env-within';
export { refuseConnection, tooManyConnections } from './connection-refusal';
export { connectionsWithinFileLimit } from './open-file-limit';
export {
  answerClientError,
  declaresBodyOver,
  httpServerOptions,
  leavesChunkedBodyUnread,
  type HttpLimits,
} from './http-limits';
export { systemClock } from './server-clock';
export { isLoopbackBind, isLoopbackHostHeader, isLoopbackOrigin, loopbackRefusal } from './loopback-guard';
export { decodeUtf8 } from './frame-text';
export { parseRoute, type Route } from './routes';
// A clock tests move by hand (the idle reaper, fork expiry, heartbeat), for this package's tests and MCP's.
export { ManualClock } from './manual-clock';
export { RemoteEnv, type RemoteEnvOptions } from './remote-env';
export { RemoteEnvPool, type PooledServer, type RemoteEnvPoolOptions } from './remote-env-pool';
export { listRemoteEnvs, type RemoteEnvListing } from './list-remote-envs';
export { actionSchema, encodeAction, decodeAction } from './action-codec';
export { toErrorData, fromErrorData } from './error-mapping';
export {
  CapacityReachedError,
  InvalidRequestError,
  ListenError,
  NoServerAvailableError,
  RemoteProtocolError,
  SessionNotFoundError,
  UnauthorizedError,
  WorkerStartError,
} from './server-errors';
export {
  CLIENT_MESSAGE_TYPES,
  CLOSE_CODES,
  PROTOCOL_ERROR_CODES,
  type ClientMessageType,
  type ErrorData,
  type ForkData,
  type ObservationData,
  type ProtocolErrorCode,
  type SessionConfigData,
  type SessionData,
  type StateData,
  type ValidationDetail,
  type WireAction,
  type WireObservation,
} from './protocol';
