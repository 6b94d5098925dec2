/** @turngym/core — registry, make(), wrappers, env checker, seeded RNG, errors, episode records. */
export * from './errors';
export { SeededRng, mixSeed } from './seeded-rng';
export { checkSeed } from './check-seed';
export { parseEnvId, formatEnvId, type ParsedEnvId } from './env-id';
export { ajv, compileToolSchema, compileValidator, describeErrors, type Validator } from './schema-validation';
export { defineOptions } from './options';
export type { JSONSchemaType } from 'ajv';
export { parseToolCall, formatToolCall, readToolArguments, nestsDeeperThan, type ToolCallParse } from './tool-calls';
export { BaseEnv, type EnvResetOutcome, type EnvStepOutcome } from './base-env';
export { Wrapper } from './wrappers/wrapper';
export { OrderEnforcing } from './wrappers/order-enforcing';
export { TimeLimit } from './wrappers/time-limit';
export { Budget, type BudgetLimits, type BudgetUsage } from './wrappers/budget';
export { EpisodeRecorder, type RecorderOptions } from './wrappers/episode-recorder';
export {
  EPISODE_RECORD_SCHEMA_ID,
  episodeRecordSchema,
  stepRecordSchema,
  validateEpisodeRecord,
  readEpisodeRecords,
  startEpisodeRecord,
  JsonlRecordSink,
  MemoryRecordSink,
  type EpisodeRecord,
  type EpisodeRecordStart,
  type StepRecord,
  type RecordSink,
} from './episode-record';
export {
  Registry,
  registry,
  type AgentContext,
  type AgentFactory,
  type ClientOptions,
  type EnvDependencies,
  type EnvRegistration,
  type MakeOptions,
} from './registry';
export { RandomAgent } from './agents/random-agent';
export {
  isAgentStop,
  runEpisode,
  summarize,
  type AgentStop,
  type EpisodeOutcome,
  type RunSummary,
} from './run-episodes';
export { mean, sampleStd, meanInterval95, wilsonInterval95, type Interval } from './statistics';
export { endsCleanly, fsyncPath, fsyncTree, sizeOf, writeFileAtomically } from './durable-files';
export { withoutByteOrderMark } from './byte-order-mark';
export { showControlCharacters } from './control-characters';
export { processAlive } from './process-alive';
export { readProcessStat, type ProcessStat } from './process-stat';
export { readTextWithin } from './read-text-within';
export { currentFaultOwner, runOwnedBy, runUnowned, trackEnvFaultOwners, type EnvFaultOwner } from './env-fault-owner';
export {
  claimDirectoryLock,
  isDirectoryLockFile,
  type DirectoryLockOptions,
  type DirectoryLockOwner,
} from './directory-lock';
export { assertOwnOutput } from './own-output';
export { contentSecurityPolicy } from './content-security-policy';
export {
  checkEnv,
  formatCheckReport,
  type CheckOptions,
  type CheckReport,
  type CheckResult,
} from './checker/check-env';
export {
  discoverPlugins,
  loadPlugin,
  loadPlugins,
  pluginAt,
  type DiscoveredPlugin,
  type PluginLoadResult,
} from './plugins/discover-plugins';
export { TOKENS } from './composition/tokens';
export { ConsoleLogger, type Logger } from './composition/logger';
export { PluginLoader } from './composition/plugin-loader';
export { createRootContainer, createRunContainer } from './composition/container';
