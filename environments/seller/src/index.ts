/** @turngym/env-seller — street-sales dialogue: commander meta-actions, executor, buyer and judge roles. */
export { SellerEnv, SELLER_COMMANDER_ID, SELLER_ID, type SellerOutcome } from './seller-env';
export {
  sellerOptionsSchema,
  validateSellerOptions,
  sellerResetOptionsSchema,
  type SellerOptions,
  type SellerResetOptions,
  type SellerMode,
  type RoleName,
  type RoleEndpoint,
  type LlmSettings,
  type CustomMetaAction,
} from './seller-options';
export {
  INTENTS,
  META_ACTION_CATALOGUE,
  DEFAULT_META_ACTIONS,
  type Intent,
  type MetaAction,
  type UtteranceIntent,
} from './meta-actions';
export { MetaActionSet, type MetaActionParse } from './meta-action-set';
export { SellerExpert } from './seller-expert';
export { MctsBot, type MctsNode, type MctsOptions, type MctsDecision, type MctsChildStats } from './mcts-bot';
export { MctsAgent } from './mcts-agent';
export { FixedRewardDemoEnv, FIXED_REWARD_DEMO_ID } from './fixed-reward-demo-env';
export {
  searchFixedSequence,
  scoreSequence,
  type SequenceTask,
  type SequenceScore,
  type FixedSequenceSearchOptions,
} from './fixed-sequence-search';
export {
  measureSellerBaselines,
  formatBaselineTable,
  NO_THREAT_ROLLOUT,
  type BaselineOptions,
  type BaselineRow,
} from './seller-baselines';
export {
  loadSellerData,
  loadProducts,
  loadPersonas,
  productSchema,
  personaSchema,
  DEFAULT_DATA_DIR,
  type SellerData,
  type Product,
  type Persona,
  type SellingPoint,
  type Weakness,
  type PersonaObjection,
} from './seller-data';
export { SellerDataError } from './seller-data-error';
export { RoleUnusableError, type RoleUnusableDetails } from './role-unusable-error';
export {
  buildTaskSet,
  taskIndexForSeed,
  isHeldOut,
  MAX_PRICE_RATIO,
  type SellerTask,
  type SellerTaskSet,
  type SellerSplit,
} from './seller-tasks';
export {
  BuyerSimulator,
  TEMPERAMENT_TRAITS,
  createBuyerState,
  cloneBuyerState,
  objectionsFor,
  type BuyerState,
  type BuyerReply,
  type BuyerEvents,
  type SellerMove,
  type Objection,
} from './buyer-simulator';
export { executeMetaAction, type ExecutorOutput } from './simulated-executor';
export { judgeBuyerState, judgeBuyerReplies } from './simulated-judge';
export {
  parseJudgeVerdict,
  judgeVerdictSchema,
  type JudgeVerdict,
  type JudgeRecord,
  type Verdict,
} from './judge-verdict';
export { classifyUtterance, type Classification, type ClassifierContext } from './intent-classifier';
export { readBuyerReply, type BuyerCues } from './buyer-reply-reader';
export {
  buyerMessages,
  judgeMessages,
  executorMessages,
  JUDGE_SYSTEM_PROMPT,
  productCard,
  transcript,
  type DialogueMessage,
} from './role-prompts';
export { SellerRoles, LlmRole, SIMULATED, type RoleOutput } from './seller-roles';
export { type SellerNotes, type NotedObjection } from './seller-notes';
export * from './vocabulary';
export { register } from './register';
