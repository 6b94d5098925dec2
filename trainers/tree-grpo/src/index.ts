/** @turngym/trainer-tree-grpo — Tree-GRPO for multi-turn agents. */
export {
  treeGrpo,
  trainTreeGrpo,
  treeGrpoArgsSchema,
  validateTreeGrpoArgs,
  type TreeGrpoArgs,
  type TreeGrpoOwnArgs,
} from './tree-grpo';
export type { TrainerHooks, TrainResult } from '@turngym/rl';
