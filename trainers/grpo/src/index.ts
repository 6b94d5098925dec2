/** @turngym/trainer-grpo — GRPO and GSPO for multi-turn agents. */
export { grpo, trainGrpo, grpoArgsSchema, validateGrpoArgs, type GrpoArgs, type GrpoOwnArgs } from './grpo';
export type { TrainerHooks, TrainResult } from '@turngym/rl';
