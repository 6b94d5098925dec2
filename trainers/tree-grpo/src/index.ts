/** @turngym/trainer-tree-grpo — Tree-GRPO for multi-turn agents. */
export {
  trainTreeGrpo,
  treeGrpoArgsSchema,
  validateTreeGrpoArgs,
  type TreeGrpoArgs,
  type TrainerHooks,
  type TrainResult,
} from './tree-grpo';
