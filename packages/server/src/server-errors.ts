import { TurnGymError } from '@turngym/core';
import type { ProtocolErrorCode, ValidationDetail } from './protocol';

/**
 * Errors of the env server and its client. They extend core's `TurnGymError` so callers branch on `code`.
 *
 * | code              | class                | protocol code     | retryable |
 * |-------------------|----------------------|-------------------|-----------|
 * | INVALID_REQUEST   | InvalidRequestError  | VALIDATION_ERROR  | no        |
 * | CAPACITY_REACHED  | CapacityReachedError | CAPACITY_REACHED  | yes       |
 * | SESSION_NOT_FOUND | SessionNotFoundError | SESSION_ERROR     | no        |
 * | ENV_BUILD         | EnvBuildError        | FACTORY_ERROR     | no        |
 * | UNAUTHORIZED      | UnauthorizedError    | (HTTP 401)        | no        |
 * | PROTOCOL_ERROR    | RemoteProtocolError  | any other reply   | no        |
 * | WORKER_START      | WorkerStartError     | (cluster start)   | no        |
 * | NO_SERVER_AVAILABLE | NoServerAvailableError | (client pool)   | yes       |
 * | LISTEN_FAILED     | ListenError          | (server start)    | no        |
 */

/** A request that fails its JSON Schema: the details name each field, as OpenEnv's pydantic errors do. */
export class InvalidRequestError extends TurnGymError {
  constructor(
    message: string,
    readonly details: readonly ValidationDetail[] = [],
  ) {
    super('INVALID_REQUEST', message);
  }
}

export class CapacityReachedError extends TurnGymError {
  constructor(
    readonly activeSessions: number,
    readonly maxSessions: number,
  ) {
    super(
      'CAPACITY_REACHED',
      `The server is at capacity (${activeSessions} of ${maxSessions} sessions); try again later or another server.`,
      {
        isRetryable: true,
      },
    );
  }
}

export class SessionNotFoundError extends TurnGymError {
  constructor(sessionId: string) {
    super(
      'SESSION_NOT_FOUND',
      `No session "${sessionId}" to claim: it expired, was claimed already, or never existed.`,
    );
  }
}

/**
 * A served env's factory (its constructor or entry point) threw something that is not a TurnGymError: the env
 * could not be built, which OpenEnv reports as FACTORY_ERROR naming the factory, not as a failed request.
 */
export class EnvBuildError extends TurnGymError {
  constructor(
    readonly envId: string,
    cause: unknown,
  ) {
    super(
      'ENV_BUILD',
      `The env ${envId} could not be built: ${cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause)}`,
      { cause },
    );
  }
}

export class UnauthorizedError extends TurnGymError {
  constructor() {
    super('UNAUTHORIZED', 'Missing or wrong bearer token: send "Authorization: Bearer <token>" (or ?token=<token>).');
  }
}

/** An error reply the client cannot map to a more specific TurnGymError (malformed request, unknown type …). */
export class RemoteProtocolError extends TurnGymError {
  constructor(
    readonly protocolCode: ProtocolErrorCode | string,
    message: string,
    readonly details: readonly ValidationDetail[] = [],
    isRetryable = false,
  ) {
    super('PROTOCOL_ERROR', `${message} (code: ${protocolCode})`, { isRetryable });
  }
}

/** A cluster worker that could not start, or a cluster call made in the wrong process. */
export class WorkerStartError extends TurnGymError {
  constructor(message: string) {
    super('WORKER_START', message);
  }
}

/** Every server of a `RemoteEnvPool` is down, full or refused the session. */
export class NoServerAvailableError extends TurnGymError {
  constructor(servers: number, failures: readonly string[]) {
    super(
      'NO_SERVER_AVAILABLE',
      `None of the ${servers} env servers took the session` +
        (failures.length > 0 ? `: ${failures.join('; ')}` : ' (all are marked down; checkHealth() brings them back)'),
      { isRetryable: true },
    );
  }
}

/** The server could not open its port: in use, not ours to bind, or a host that is no local interface. */
export class ListenError extends TurnGymError {
  constructor(host: string, port: number, cause: NodeJS.ErrnoException) {
    const why =
      cause.code === 'EADDRINUSE'
        ? 'the port is in use (another server is on it): choose another port, or 0 for any free one'
        : cause.code === 'EACCES'
          ? 'permission denied (ports below 1024 need privileges): choose a port of 1024 or more'
          : cause.code === 'EADDRNOTAVAIL' || cause.code === 'ENOTFOUND'
            ? `${host} is not an address of this machine: use 127.0.0.1, 0.0.0.0 or one of its interfaces`
            : cause.message;
    super('LISTEN_FAILED', `Cannot listen on ${host}:${port}: ${why}`, { cause });
  }
}
