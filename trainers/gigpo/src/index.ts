/** @turngym/trainer-gigpo — GiGPO: episode groups plus anchor-state step groups (CCAPO's baseline). */
export {
  gigpoAlgorithm,
  trainGigpo,
  gigpoArgsSchema,
  validateGigpoArgs,
  stepStates,
  type GigpoArgs,
  type GigpoOwnArgs,
} from './gigpo';
export {
  discountedReturns,
  gigpoGroupAdvantages,
  combineGigpo,
  GIGPO_GAMMA,
  type GroupRollout,
  type GroupAdvantages,
} from './gigpo-advantages';
export type { TrainerHooks, TrainResult } from '@turngym/rl';
