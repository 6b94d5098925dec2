/** @turngym/trainer-plan-act — Plan/Act dual agent (ALGORITHMS.md §4): trainer, protocol and chat-model agent. */
export {
  planActAlgorithm,
  planActArgsSchema,
  roleAdapter,
  trainPlanAct,
  validatePlanActArgs,
  type PlanActArgs,
  type PlanActOwnArgs,
} from './plan-act';
export {
  ACTOR,
  DEFAULT_PROTOCOL,
  PLANNER,
  planActRoles,
  readActorTurn,
  readPlannerTurn,
  reportSchedule,
  type PlanActCaps,
  type PlanActProtocol,
  type PlanActRoleName,
} from './plan-act-protocol';
export {
  PlanActChatAgent,
  planActChatAgentOptionsSchema,
  type PlanActChatAgentOptions,
  type PlanActTurn,
} from './plan-act-chat-agent';
export { PLAN_ACT_AGENT_PREFIX, parsePlanActAgentSpec, planActSuiteAgent } from './plan-act-suite-agent';
export {
  answerReport,
  mathCalcSteps,
  planActExpertTrajectory,
  singleTask,
  wikiHops,
  type Decomposer,
  type SubTask,
} from './expert-decomposition';
export { PlanActDecompositionError } from './plan-act-errors';
export {
  trainPlanActWarmStart,
  validatePlanActWarmStartArgs,
  type PlanActWarmStartArgs,
  type PlanActWarmStartResult,
} from './plan-act-warm-start';
