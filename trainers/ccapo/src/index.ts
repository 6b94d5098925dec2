/** @turngym/trainer-ccapo — CCAPO v4.1: dual-stream advantages with a persistent SQLite history store (STDB). */
export {
  ccapoAlgorithm,
  trainCcapo,
  ccapoArgsSchema,
  validateCcapoArgs,
  STDB_FILE,
  type CcapoArgs,
  type CcapoOwnArgs,
} from './ccapo';
export {
  importance,
  criticality,
  distanceDecay,
  edgeScore,
  EDGE_SCORE_DEFAULTS,
  CRITICALITY_EPSILON,
  type EdgeStatistics,
  type GlobalStatistics,
  type EdgeScoreParameters,
} from './edge-score';
export {
  macroReward,
  macroAdvantages,
  rawMicroAdvantage,
  microAdvantages,
  microStatistics,
  fuseAdvantages,
  MACRO_REWARD_DEFAULTS,
  MICRO_SIGMA_MIN,
  type MacroRewardParameters,
} from './dual-stream-advantage';
export { loopSteps } from './loop-filter';
export { episodePath, anchorKey, START_NODE, type PathStep } from './episode-path';
export {
  Stdb,
  STDB_SCHEMA,
  BASELINE_RATE,
  type StdbOptions,
  type StdbEpisode,
  type ScoredEdge,
  type StdbSummary,
} from './stdb';
export { StdbStore, type StdbStoreOptions } from './stdb-store';
export { StdbError } from './stdb-error';
export type { TrainerHooks, TrainResult } from '@turngym/rl';
