import { RandomAgent, TurnGymError, type Registry } from '@turngym/core';
import type * as Llm from '@turngym/llm';
import type { ChatModel } from '@turngym/llm';
import { PreflightError } from './leaderboard-errors';
import type { AgentSource } from './run-agent-episodes';

/** How a chat-model agent reaches its model and plays. Everything is optional; the environment fills the rest. */
export interface ChatAgentSettings {
  /** OpenAI-compatible base URL (default: TURNGYM_OPENAI_BASE_URL / OPENAI_BASE_URL, then api.openai.com). */
  baseURL?: string;
  /** Default: TURNGYM_OPENAI_API_KEY / OPENAI_API_KEY; a local server needs none. */
  apiKey?: string;
  /** Per model call, ms. */
  timeoutMs?: number;
  /** Retries of a call after the first attempt (429/5xx/timeouts/connection failures). */
  maxRetries?: number;
  /** `auto`: the env's tools as function-calling schemas; `text`: the model writes the env's text syntax. */
  toolMode?: 'auto' | 'text';
  /** False: leave the env's instructions out of the system prompt (a policy trained without them). Default true. */
  instructions?: boolean;
  /** Sampling temperature (default 0: a seed replays). */
  temperature?: number;
  /** Most tokens per reply. */
  maxTokens?: number;
  /** A JSONL response cache: re-runs and resumed episodes buy no answer twice. */
  cachePath?: string;
  /** Environment variables a backend reads (default `process.env`). */
  environment?: Readonly<Record<string, string | undefined>>;
}

/** An agent for a whole suite: a baseline every env registers, or one chat model shared by all envs. */
export interface SuiteAgent {
  /** What the user asked for: `random`, `scripted`, `openai:gpt-4o-mini`. */
  readonly spec: string;
  readonly kind: 'baseline' | 'chat-model';
  /** The name in episode records (`scripted`, `chat:openai:gpt-4o-mini`). */
  readonly name: string;
  /** Chat models behind an OpenAI-compatible endpoint: where. */
  readonly baseURL: string | null;
  /** Whether this agent can play `envId` (a baseline the env registers; chat models play every env). */
  supports(registry: Registry, envId: string): boolean;
  sourceFor(registry: Registry, envId: string): AgentSource;
  /** Before any episode: the endpoint answers and serves the model. Throws `PreflightError`. */
  check(): Promise<void>;
  close(): Promise<void>;
}

/** A plain word is a baseline the envs register; `prefix:rest` is a chat-model spec. */
const BASELINE_NAME = /^[a-z][a-z0-9_-]*$/;
const CHAT_MODEL_SPEC = /^[a-z][a-z0-9-]*:.+$/;

const CHAT_FORMS = 'openai:<model>, local:<checkpoint>, scripted:<name>';

class BaselineAgent implements SuiteAgent {
  readonly kind = 'baseline';
  readonly baseURL = null;

  constructor(readonly spec: string) {}

  get name(): string {
    return this.spec;
  }

  supports(registry: Registry, envId: string): boolean {
    return this.spec === 'random' || Object.keys(registry.get(envId).agents ?? {}).includes(this.spec);
  }

  sourceFor(registry: Registry, envId: string): AgentSource {
    const registered = Object.keys(registry.get(envId).agents ?? {}).includes(this.spec);
    const name = this.spec;
    if (registered)
      return { name, create: ({ env, seed }) => registry.makeAgent(envId, name, { env, seed }), close: async () => {} };
    if (name === 'random') return { name, create: ({ seed }) => new RandomAgent(seed), close: async () => {} };
    throw new PreflightError(`${envId} has no "${name}" agent.`);
  }

  async check(): Promise<void> {}

  async close(): Promise<void> {}
}

/** @turngym/llm is required only for chat-model agents, so the baselines do not load `openai`. */
function loadLlm(): typeof Llm {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('@turngym/llm') as typeof Llm;
}

/** `local:<checkpoint>` is served by @turngym/lm where it is installed (an optional, heavy package). */
function registerLocalProvider(): void {
  let lm: { registerLocalChatModelProvider?: () => unknown };
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    lm = require('@turngym/lm') as typeof lm;
  } catch {
    return; // createChatModel then says how to serve a checkpoint instead.
  }
  lm.registerLocalChatModelProvider?.();
}

function oneLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).replace(/\s*\n\s*/g, ' ').trim();
}

class ChatModelSuiteAgent implements SuiteAgent {
  readonly kind = 'chat-model';
  readonly name: string;
  readonly baseURL: string | null;

  constructor(
    readonly spec: string,
    private readonly llm: typeof Llm,
    /** The backend itself, under the cache if there is one: the preflight talks to it directly. */
    private readonly backend: ChatModel,
    private readonly model: ChatModel,
    private readonly settings: ChatAgentSettings,
  ) {
    this.baseURL = backend instanceof llm.OpenAIChatModel ? backend.options.baseURL : null;
    this.name = `chat:${backend.id}`;
  }

  supports(): boolean {
    return true;
  }

  sourceFor(): AgentSource {
    const options = {
      ...(this.settings.toolMode ? { toolMode: this.settings.toolMode } : {}),
      ...(this.settings.instructions === false ? { instructions: false } : {}),
      ...(this.settings.temperature !== undefined ? { temperature: this.settings.temperature } : {}),
      ...(this.settings.maxTokens !== undefined ? { maxTokens: this.settings.maxTokens } : {}),
    };
    // One agent per episode keeps conversations apart; the model is shared and closed once, at the end.
    return { name: this.name, create: () => new this.llm.ChatModelAgent(this.model, options), close: async () => {} };
  }

  async check(): Promise<void> {
    if (this.backend instanceof this.llm.OpenAIChatModel) {
      const served = await this.servedModels(this.backend);
      if (served !== undefined) return;
    }
    try {
      await this.backend.complete({
        messages: [{ role: 'user', content: 'Reply with OK.' }],
        maxTokens: 16,
        temperature: 0,
        role: 'preflight',
      });
    } catch (error) {
      throw new PreflightError(`${this.spec}: ${oneLine(error)}`, { cause: error });
    }
  }

  /**
   * `GET <baseURL>/models`: reachable, key accepted, model served. Undefined when the server has no such
   * route (then a one-line completion is the check). Cheaper and clearer than a completion: a wrong model
   * name is the most common mistake against vLLM/SGLang (`--served-model-name`).
   */
  private async servedModels(backend: Llm.OpenAIChatModel): Promise<string[] | undefined> {
    const { baseURL, apiKey, model, organization, headers } = backend.options;
    const timeoutMs = Math.min(backend.options.timeoutMs, 15_000);
    let response: Response;
    try {
      response = await fetch(`${baseURL}/models`, {
        headers: {
          ...headers,
          authorization: `Bearer ${apiKey}`,
          ...(organization ? { 'openai-organization': organization } : {}),
        },
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause;
      const reason =
        (error as Error).name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : (cause?.code ?? oneLine(error));
      throw new PreflightError(
        `${this.spec}: cannot reach ${baseURL} (${reason}); is an OpenAI-compatible server running there? Set --base-url or TURNGYM_OPENAI_BASE_URL.`,
        { cause: error },
      );
    }
    if (response.status === 401 || response.status === 403) {
      throw new PreflightError(
        `${this.spec}: ${baseURL} rejected the API key (HTTP ${response.status}); set --api-key or OPENAI_API_KEY.`,
      );
    }
    if (response.status === 404 || response.status === 405) return undefined;
    if (!response.ok) {
      throw new PreflightError(
        `${this.spec}: ${baseURL}/models answered HTTP ${response.status}; is the server healthy?`,
      );
    }
    let ids: string[];
    try {
      const body = (await response.json()) as { data?: { id?: unknown }[] };
      ids = (body.data ?? []).map((entry) => entry.id).filter((id): id is string => typeof id === 'string');
    } catch {
      return undefined; // not OpenAI's shape: let a completion decide
    }
    if (ids.length > 0 && !ids.includes(model)) {
      const shown = ids.length > 8 ? `${ids.slice(0, 8).join(', ')}, … (${ids.length} in all)` : ids.join(', ');
      throw new PreflightError(
        `${this.spec}: ${baseURL} does not serve a model named "${model}"; it serves: ${shown}.`,
      );
    }
    return ids;
  }

  async close(): Promise<void> {
    await this.model.close?.();
  }
}

/**
 * `plan-act:planner=<spec>,actor=<spec>`: two chat models as a Plan/Act pair, from @turngym/trainer-plan-act
 * (loaded only for such an agent; it builds on this package, so it is not a dependency of it).
 */
function planActAgent(spec: string, settings: ChatAgentSettings): SuiteAgent {
  let planAct: { planActSuiteAgent(spec: string, settings: ChatAgentSettings): SuiteAgent };
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    planAct = require('@turngym/trainer-plan-act') as typeof planAct;
  } catch (error) {
    throw new PreflightError(
      `Plan/Act agents need @turngym/trainer-plan-act, which cannot be loaded: ${oneLine(error)}`,
    );
  }
  return planAct.planActSuiteAgent(spec, settings);
}

/**
 * Parses `--agent`: `random`, `scripted` (or another baseline the suite's envs register), or a chat-model spec
 * (`openai:<model>` at any OpenAI-compatible base URL, `local:<checkpoint>`, `scripted:<name>`). A malformed
 * or unknown spec throws `PreflightError` here; whether each env has a baseline is checked by the preflight.
 */
export function resolveSuiteAgent(spec: string, settings: ChatAgentSettings = {}): SuiteAgent {
  const trimmed = spec.trim();
  if (BASELINE_NAME.test(trimmed)) return new BaselineAgent(trimmed);
  if (trimmed.startsWith('plan-act:')) return planActAgent(trimmed, settings);
  if (!CHAT_MODEL_SPEC.test(trimmed)) {
    throw new PreflightError(
      `Unknown agent "${spec}": expected a baseline (random, scripted) or a chat-model spec (${CHAT_FORMS}).`,
    );
  }
  let llm: typeof Llm;
  try {
    llm = loadLlm();
  } catch (error) {
    throw new PreflightError(`Chat-model agents need @turngym/llm, which cannot be loaded: ${oneLine(error)}`);
  }
  if (trimmed.startsWith('local:')) registerLocalProvider();
  let backend: ChatModel;
  try {
    backend = llm.createChatModel(trimmed, {
      openai: {
        ...(settings.baseURL ? { baseURL: settings.baseURL } : {}),
        ...(settings.apiKey ? { apiKey: settings.apiKey } : {}),
        ...(settings.timeoutMs !== undefined ? { timeoutMs: settings.timeoutMs } : {}),
        ...(settings.maxRetries !== undefined ? { maxRetries: settings.maxRetries } : {}),
      },
      ...(settings.environment ? { environment: settings.environment } : {}),
    });
  } catch (error) {
    if (TurnGymError.isInstance(error) && error.code === 'INVALID_MODEL_SPEC') {
      throw new PreflightError(oneLine(error), { cause: error });
    }
    throw new PreflightError(`Cannot use chat model "${spec}": ${oneLine(error)}`, { cause: error });
  }
  const model = settings.cachePath ? new llm.CachedChatModel(backend, { path: settings.cachePath }) : backend;
  return new ChatModelSuiteAgent(trimmed, llm, backend, model, settings);
}

/** The codes of errors that void one episode (recorded as errored, excluded from scores), not the run. */
const EPISODE_ERROR_CODES: ReadonlySet<string> = new Set([
  'LLM_CALL', // the agent's model call failed after its retries
  'ENV_FAULT', // an env-side browser, sandbox or model call failed
  'ROLE_UNUSABLE', // an env-side LLM role answered but never usably (the seller's judge, buyer or executor)
]);

/** Errors that end one episode, not the run: a model call that failed, an env-side fault, an unusable role. */
export function isEpisodeError(error: unknown): boolean {
  return TurnGymError.isInstance(error) && EPISODE_ERROR_CODES.has(error.code);
}
