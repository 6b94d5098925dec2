/** @turngym/trainer-grpo — GRPO and GSPO for multi-turn agents. */
export {
  trainGrpo,
  grpoArgsSchema,
  validateGrpoArgs,
  type GrpoArgs,
  type TrainerHooks,
  type TrainResult,
} from './grpo';
