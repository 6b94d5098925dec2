import { PreflightError, resolveSuiteAgent, type ChatAgentSettings, type SuiteAgent } from '@turngym/leaderboard';
import { CachedChatModel, createChatModel, type ChatModel } from '@turngym/llm';
import { registerLocalChatModelProvider } from '@turngym/lm';
import { PlanActChatAgent } from './plan-act-chat-agent';

export const PLAN_ACT_AGENT_PREFIX = 'plan-act:';

const USAGE = 'plan-act:planner=<chat-model spec>,actor=<chat-model spec> (or plan-act:<spec> for both roles)';

/**
 * Reads `plan-act:planner=<spec>,actor=<spec>` (or `plan-act:<spec>`, one model in both roles). Each spec is
 * any chat-model spec the leaderboard takes (`openai:<model>`, `local:<ckpt>`, `scripted:<name>`).
 */
export function parsePlanActAgentSpec(spec: string): { planner: string; actor: string } {
  const trimmed = spec.trim();
  if (!trimmed.startsWith(PLAN_ACT_AGENT_PREFIX)) throw new PreflightError(`"${spec}" is not ${USAGE}.`);
  const rest = trimmed.slice(PLAN_ACT_AGENT_PREFIX.length);
  if (!/^(planner|actor)=/.test(rest)) {
    if (rest === '') throw new PreflightError(`"${spec}" names no model: ${USAGE}.`);
    return { planner: rest, actor: rest };
  }
  const roles: Record<string, string> = {};
  for (const part of rest.split(',')) {
    const match = /^(planner|actor)=(.+)$/.exec(part.trim());
    if (!match || roles[match[1]!] !== undefined) throw new PreflightError(`"${spec}": bad part "${part}"; ${USAGE}.`);
    roles[match[1]!] = match[2]!.trim();
  }
  if (!roles.planner || !roles.actor) throw new PreflightError(`"${spec}" needs both roles: ${USAGE}.`);
  return { planner: roles.planner, actor: roles.actor };
}

/**
 * The leaderboard agent for a Plan/Act pair: each role's model built from its spec with the run's settings
 * (base URL, key, timeouts, one response cache keyed by role), checked by the leaderboard's own preflight for
 * that spec, and a fresh `PlanActChatAgent` per episode.
 */
export function planActSuiteAgent(spec: string, settings: ChatAgentSettings = {}): SuiteAgent {
  const specs = parsePlanActAgentSpec(spec);
  for (const roleSpec of [specs.planner, specs.actor]) {
    if (roleSpec.startsWith(PLAN_ACT_AGENT_PREFIX) || !roleSpec.includes(':')) {
      throw new PreflightError(
        `"${spec}": each role takes a chat-model spec such as openai:<model>, not "${roleSpec}".`,
      );
    }
  }
  if (specs.planner.startsWith('local:') || specs.actor.startsWith('local:')) registerLocalChatModelProvider();
  const build = (roleSpec: string): ChatModel =>
    createChatModel(roleSpec, {
      openai: {
        ...(settings.baseURL ? { baseURL: settings.baseURL } : {}),
        ...(settings.apiKey ? { apiKey: settings.apiKey } : {}),
        ...(settings.timeoutMs !== undefined ? { timeoutMs: settings.timeoutMs } : {}),
        ...(settings.maxRetries !== undefined ? { maxRetries: settings.maxRetries } : {}),
      },
      ...(settings.environment ? { environment: settings.environment } : {}),
    });
  let backends: { planner: ChatModel; actor: ChatModel };
  try {
    const planner = build(specs.planner);
    backends = { planner, actor: specs.actor === specs.planner ? planner : build(specs.actor) };
  } catch (error) {
    throw new PreflightError(`Cannot use "${spec}": ${(error as Error).message}`, { cause: error });
  }
  const wrap = (model: ChatModel): ChatModel =>
    settings.cachePath ? new CachedChatModel(model, { path: settings.cachePath }) : model;
  const planner = wrap(backends.planner);
  const models = { planner, actor: backends.actor === backends.planner ? planner : wrap(backends.actor) };
  const agentOptions = {
    ...(settings.temperature !== undefined ? { temperature: settings.temperature } : {}),
    ...(settings.maxTokens !== undefined ? { maxTokens: settings.maxTokens } : {}),
    ...(settings.instructions === false ? { instructions: false } : {}),
  };
  const name = `plan-act:planner=${backends.planner.id},actor=${backends.actor.id}`;
  const baseURL = (backends.planner as { options?: { baseURL?: string } }).options?.baseURL ?? null;
  return {
    spec: spec.trim(),
    kind: 'chat-model',
    name,
    baseURL,
    supports: () => true,
    sourceFor: () => ({
      name,
      create: () => new PlanActChatAgent(models, { ...agentOptions, name }),
      close: async () => {},
    }),
    check: async () => {
      // The leaderboard's preflight of each role's spec (served models, key, reachability), then let go.
      for (const roleSpec of new Set([specs.planner, specs.actor])) {
        const probe = resolveSuiteAgent(roleSpec, settings);
        try {
          await probe.check();
        } finally {
          await probe.close();
        }
      }
    },
    close: async () => {
      await models.planner.close?.();
      if (models.actor !== models.planner) await models.actor.close?.();
    },
  };
}
