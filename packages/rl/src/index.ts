export { EmptyLossMaskError } from './rl-errors';
export { ADVANTAGE_EPSILON, groupAdvantages, groupStatistics, type GroupStatistics } from './group-advantages';
export {
  treeAdvantages,
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
  recordLength,
  SEGMENT_KINDS,
  type SegmentKind,
  type TokenSegment,
  type TokenRecord,
  type ActionSpan,
} from './loss-mask';
export {
  ppoClipTokenLoss,
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
