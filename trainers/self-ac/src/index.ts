/** @turngym/trainer-self-ac — Self-AC: one model as actor and critic through a critic prompt (ALGORITHMS.md §2). */
export {
  selfAcAlgorithm,
  trainSelfAc,
  selfAcArgsSchema,
  validateSelfAcArgs,
  type SelfAcArgs,
  type SelfAcOwnArgs,
} from './self-ac';
export { CRITIC_PROMPT_TEXT, criticPromptTokens } from './critic-prompt';
export { packEpisode, separateRows, type PackedEpisode, type PackEpisodeOptions } from './packed-episode';
export {
  bootstrappedReturns,
  discountedReturns,
  padEpisodeVectors,
  tdRewards,
  type EpisodeVectors,
  type EpisodeBatch,
} from './episode-vectors';
export {
  selfAcLoss,
  selfAcLossTf,
  stateValuesTf,
  tdLossesByHorizon,
  turnSpans,
  selfAcLossOptionsSchema,
  validateSelfAcLossOptions,
  type SelfAcLossOptions,
  type SelfAcLossParts,
} from './self-ac-loss';
export {
  selfAcUpdate,
  explainedVariance,
  selfAcUpdateOptionsSchema,
  validateSelfAcUpdateOptions,
  type SelfAcUpdateOptions,
  type SelfAcUpdateStats,
} from './self-ac-update';
export { mergeAdapter } from './merge-adapter';
export {
  totSearch,
  criticValues,
  totSearchOptionsSchema,
  validateTotSearchOptions,
  type TotSearchOptions,
  type TotSearchResult,
  type TotCandidate,
  type TotLine,
  type StateValueFunction,
} from './tot-search';
export { EpisodeTooLongError, PackedEpisodeError, SelfAcSetupError } from './self-ac-errors';
export type { Trajectory } from '@turngym/rl';
