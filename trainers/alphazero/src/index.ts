/** @turngym/trainer-alphazero — AlphaZero for the seller commander (ALGORITHMS.md §5). */
export { trainAlphaZero, evaluateAgent, type AlphaZeroHooks, type AlphaZeroResult } from './alphazero';
export {
  alphaZeroArgsSchema,
  validateAlphaZeroArgs,
  RESUMABLE_ALPHAZERO_ARGS,
  type AlphaZeroArgs,
} from './alphazero-args';
export {
  AlphaZeroSearch,
  AlphaZeroMctsAgent,
  PolicyHeadAgent,
  type AlphaZeroSearchOptions,
  type AlphaZeroDecision,
} from './alphazero-search';
export {
  DialogueEncoder,
  WORD_BUCKETS,
  TEXT_FEATURES,
  type TextFeatures,
  type EncoderSettings,
} from './dialogue-features';
export {
  PolicyValueNet,
  type PolicyValueNetShape,
  type PolicyValueBatch,
  type PreferenceBatch,
  type PolicyGradientBatch,
  type UpdateStats,
} from './policy-value-net';
export { ReplayBuffer, type ReplaySample } from './replay-buffer';
export { TranscriptRecorder, type Transcript, type TranscriptStep, type RecorderUsage } from './transcript-recorder';
export { AlphaZeroError } from './alphazero-error';
export { spreadTaskIds } from './spread-task-ids';
export { loadTrainedNetwork } from './trained-network';
export {
  trainGrpoCommander,
  loadGrpoCommander,
  grpoCommanderArgsSchema,
  validateGrpoCommanderArgs,
  type GrpoCommanderArgs,
  type GrpoCommanderResult,
} from './grpo-commander';
