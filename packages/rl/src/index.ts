export { EmptyLossMaskError, EmptyActionSetError, EmptyUpdateSampleError, InvalidTrajectoryError } from './rl-errors';
export {
  ADVANTAGE_EPSILON,
  groupAdvantages,
  groupStatistics,
  isTiedGroup,
  type GroupStatistics,
} from './group-advantages';
export { groupAdvantageSamples } from './group-advantage-samples';
// The text an env hook's value keys a state by (GiGPO's step groups, CCAPO's history store).
export { anchorText } from './anchor-text';
export {
  treeAdvantages,
  treeAdvantageSamples,
  isStarvedBranch,
  checkTreePaths,
  leafTurnAdvantages,
  leafTokenAdvantages,
  sharedTurnWeights,
  type TreeLeaf,
  type RolloutTree,
  type PromptTrees,
  type TreeAdvantage,
  type SharedTurnWeight,
} from './tree-advantages';
export {
  lossMask,
  actionSpans,
  hasActionTokens,
  roleLossWeights,
  recordLength,
  SEGMENT_KINDS,
  type SegmentKind,
  type TokenSegment,
  type TokenRecord,
  type ActionSpan,
  type ActionFilter,
} from './loss-mask';
export {
  ppoClipTokenLoss,
  ppoClipTokenLossTf,
  ppoClipLoss,
  ppoClipLossTf,
  gspoSequenceRatio,
  gspoLoss,
  gspoLossTf,
  type PpoLossInputs,
  type GspoSequence,
} from './ppo-loss';
export {
  validatePpoLossOptions,
  ppoLossOptionsSchema,
  TREE_GRPO_DUAL_CLIP,
  type PpoLossOptions,
} from './ppo-loss-options';
export { KL_COEFFICIENT, k3KlToken, k3Kl, k3KlTf, type KlInputs } from './k3-kl';
export {
  turnLogRatios,
  ppoTurnClipLoss,
  ppoTurnClipLossTf,
  type TurnSpan,
  type TurnPpoSequence,
  type TurnPpoTensors,
} from './turn-ppo-loss';
export { tokenEntropy, entropyBonus, entropyBonusTf, type EntropyInputs, type EntropyTensors } from './entropy-bonus';
export {
  valueTokenLoss,
  valueLoss,
  valueLossTf,
  valueLossOptionsSchema,
  validateValueLossOptions,
  type ValueLossInputs,
  type ValueLossOptions,
} from './value-loss';
export {
  SELF_AC_TD_HORIZONS,
  tdTarget,
  tdTargetTf,
  tdCriticLoss,
  tdCriticLossTf,
  tdCriticLossOptionsSchema,
  validateTdCriticLossOptions,
  type TdCriticInputs,
  type TdCriticLossOptions,
} from './td-critic-loss';
export { explainedVariance } from './explained-variance';
export {
  policyCrossEntropy,
  policyCrossEntropyTf,
  type PolicyCrossEntropyInputs,
  type PolicyCrossEntropyTensors,
} from './policy-cross-entropy';
export {
  sequenceLogprob,
  sequenceLogprobTf,
  dpoPairLoss,
  dpoLoss,
  dpoLossTf,
  dpoLossOptionsSchema,
  validateDpoLossOptions,
  type DpoInputs,
  type DpoLossOptions,
} from './dpo-loss';
export { ChatTurnFormat } from './chat-turn-format';
export {
  TRAJECTORY_SCHEMA_ID,
  STOP_REASONS,
  trajectorySchema,
  validateTrajectory,
  asEpisodeRecord,
  ownToolCalls,
  appendTrajectories,
  readTrajectories,
  type Trajectory,
  type TrajectoryStep,
  type TreePosition,
  type StopReason,
} from './trajectory';
export { rolloutOptionsSchema, validateRolloutOptions, type RolloutOptions } from './rollout-options';
export {
  runRollouts,
  resetPrefix,
  type RolloutPolicy,
  type RolloutPrefix,
  type RolloutStart,
  type NodeSnapshot,
} from './rollout-engine';
export {
  planActSchedule,
  roleStats,
  withCue,
  type RolloutRole,
  type RolloutRoles,
  type RoleSchedule,
  type RoleStats,
} from './rollout-roles';
export { collectChains, startEpisodes, type ChainRolloutRequest, type EnvFactory } from './chain-rollouts';
export { collectTrees, type TreeShape, type TreeRolloutRequest, type TreeRollouts } from './tree-rollouts';
// SFT warm start (issue 9): expert trajectories and behaviour cloning.
export { SftDataError, ExpertEpisodeError } from './sft-errors';
export {
  collectExpertTrajectories,
  expertActionText,
  expertTrajectoryOptionsSchema,
  validateExpertTrajectoryOptions,
  type ExpertTrajectoryOptions,
  type ExpertTrajectoryRequest,
  type ExpertTrajectories,
  type DroppedExpertEpisode,
} from './expert-trajectories';
export {
  trainSft,
  sftOptionsSchema,
  type SftOptions,
  type SftRequest,
  type SftStep,
  type SftEpoch,
  type SftResult,
} from './sft';
export {
  ppoUpdate,
  packMinibatches,
  sampleTokenAdvantages,
  ppoUpdateOptionsSchema,
  validatePpoUpdateOptions,
  type PpoUpdateOptions,
  type PpoUpdateStats,
  type UpdateSample,
} from './ppo-update';
export { evaluatePolicy, type PolicyEvaluation } from './evaluate-policy';
export { installedEnvRegistry, testSplitOptions } from './env-splits';
export { RunDirectoryError } from './rl-errors';
export {
  RunDirectory,
  RUN_FILES,
  type RunInfo,
  type NewRunInfo,
  type MetricsRow,
  type RunFileSizes,
  type OpenOrCreateOptions,
} from './run-directory';
export {
  saveTrainingCheckpoint,
  loadTrainingCheckpoint,
  saveStoresCheckpoint,
  loadStoresCheckpoint,
  TRAINING_CHECKPOINT_FORMAT,
  CHECKPOINT_FILES,
  type SaveTrainingCheckpointOptions,
  type SaveStoresCheckpointOptions,
  type AttachedCheckpointState,
  type ResumedTraining,
  type JsonValue,
} from './training-checkpoint';
export { TrainingCheckpointError } from './rl-errors';
export type { CheckpointStore } from './checkpoint-store';
export { JsonStatisticsStore, STATISTICS_FILE } from './json-statistics-store';
export { FileStore, type FileStoreOptions } from './file-store';
export {
  TrainingProgress,
  trainingProgressOptionsSchema,
  DEFAULT_PROGRESS_METRICS,
  formatMetric,
  formatDuration,
  type TrainingProgressOptions,
  type ProgressOutput,
} from './training-progress';
// Tree search over any env with fork() and a finite action list (UCT / AlphaZero's PUCT), from @turngym/search.
export {
  TreeSearch,
  SearchNode,
  TreeSearchError,
  treeSearchOptionsSchema,
  validateTreeSearchOptions,
  type SearchAction,
  type SearchState,
  type SearchStart,
  type SearchChild,
  type EdgeStatistics,
  type SimulationPolicy,
  type TreeSearchHooks,
  type TreeSearchResult,
  type TreeSearchOptions,
} from '@turngym/search';
// The trainer kit (issue 23): one runner; an algorithm file holds only collect → advantages → update.
export {
  trainerArgsSchema,
  defineTrainerArgs,
  RESUMABLE_ARG_CHANGES,
  type TrainerArgs,
  type TrainerArgsDefinition,
} from './trainer-kit/trainer-args';
export {
  type TrainerAlgorithm,
  type TrainerHooks,
  type TrainResult,
  type RolloutRequest,
  type IterationContext,
  type CollectedRollouts,
  type ExtraAdapter,
} from './trainer-kit/trainer-algorithm';
export { runTrainer, ppoUpdateOptions, POLICY_ADAPTER } from './trainer-kit/run-trainer';
export { EnvRolloutsFailedError, NonFiniteRewardError } from './trainer-kit/trainer-errors';
