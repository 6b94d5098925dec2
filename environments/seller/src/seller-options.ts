import { defineOptions, type ClientOptions, type JSONSchemaType } from '@turngym/core';
import { CATALOGUE_IDS, DEFAULT_META_ACTIONS, INTENTS, type Intent } from './meta-actions';
import type { SellerSplit } from './seller-tasks';

export type SellerMode = 'commander' | 'seller';
export type RoleName = 'buyer' | 'judge' | 'executor';

/** A meta-action defined by the user: a label for the commander, an instruction for an LLM executor. */
export interface CustomMetaAction {
  /** kebab-case, unique among the actions. */
  id: string;
  label: string;
  /** What an LLM executor is told to do. */
  instruction: string;
  /** The built-in intent the simulated roles treat it as. */
  behavesAs: Intent;
}

/** Where and how an LLM role is called; every field overrides `llm`'s for that role. */
export interface RoleEndpoint {
  /** An OpenAI-compatible base URL ending in /v1 (vLLM, SGLang, lmdeploy, Ollama, OpenAI). */
  baseURL?: string;
  /** Name of the environment variable that holds the API key (keys never go in options, which are recorded). */
  apiKeyVariable?: string;
  timeoutMs?: number;
  maxRetries?: number;
  retryBaseDelayMs?: number;
  /**
   * Cap on one backoff delay, and on how long a server's Retry-After is honoured (ms; the model's default 8000). A
   * rate-limited API that asks for 60 s gets retries that come back after 8 s and fail again: raise it to wait.
   */
  retryMaxDelayMs?: number;
  temperature?: number;
  maxTokens?: number;
}

/** Defaults for every LLM role. */
export interface LlmSettings extends RoleEndpoint {
  temperature: number;
  maxTokens: number;
  /**
   * Wrap LLM roles in a response cache keyed by (role, messages, seed): with temperature 0 this makes seeds,
   * forks and replays exact against a remote model. Only deterministic requests are cached.
   */
  cache: boolean;
  /** A JSONL file for the cache, so that re-runs buy no answer twice. Omitted: memory only. */
  cachePath?: string;
  /**
   * Extra calls when an LLM judge answers malformed JSON (each shows it the rejected answer and why); when all
   * fail, the episode is void (`RoleUnusableError`), not a lost sale.
   */
  judgeRetries: number;
  /** Extra calls when an LLM buyer or executor answers nothing; when all do, the episode is void as above. */
  replyRetries: number;
}

export interface SellerOptions {
  /** `commander` (the agent picks meta-actions) or `seller` (the agent writes the utterance); fixed by the id. */
  mode: SellerMode;
  split: SellerSplit;
  /** The round limit: no "buy" verdict by then is a lost sale (−1). */
  rounds: number;
  /** Subtracted for an unknown or masked meta-action, an empty or over-long utterance. */
  formatPenalty: number;
  /** Standard deviation scale of the simulator's seeded noise term (0: a deterministic buyer). */
  noise: number;
  /** Commander: the built-in meta-actions offered, in order (default: the seed's nine). */
  actions: Intent[];
  /** Commander: user-defined meta-actions appended after `actions`. */
  customActions: CustomMetaAction[];
  /** Seller: longest utterance read; longer ones are cut (a format penalty, and the buyer finds it long). */
  maxUtteranceChars: number;
  /** ChatModel spec of each role: `simulated` (the embedded deterministic simulator), `scripted`, `openai:<model>`, `local:<checkpoint>`. */
  buyer: string;
  judge: string;
  executor: string;
  llm: LlmSettings;
  /** Per-role overrides of `llm` (point the buyer at vLLM and the judge at OpenAI, say). */
  roleEndpoints: { buyer?: RoleEndpoint; judge?: RoleEndpoint; executor?: RoleEndpoint };
  /** A directory with products.json and personas.json to use instead of the shipped data. */
  dataDir?: string;
}

const endpointProperties = {
  baseURL: { type: 'string', pattern: '^https?://', nullable: true },
  apiKeyVariable: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$', nullable: true },
  // The model's own bounds, here so that a value past them is named as this env's option, not the model's: Node's
  // timers hold at most 2^31-1 ms (about 24.8 days), and the model adds 1000 ms to timeoutMs for its backstop.
  timeoutMs: { type: 'integer', minimum: 1, maximum: 2_147_482_647, nullable: true },
  maxRetries: { type: 'integer', minimum: 0, maximum: 20, nullable: true },
  retryBaseDelayMs: { type: 'number', minimum: 0, maximum: 2_147_483_647, nullable: true },
  retryMaxDelayMs: { type: 'number', minimum: 0, maximum: 2_147_483_647, nullable: true },
  temperature: { type: 'number', minimum: 0, maximum: 2, nullable: true },
  maxTokens: { type: 'integer', minimum: 1, nullable: true },
} as const;

const endpointSchema = {
  type: 'object',
  nullable: true,
  additionalProperties: false,
  required: [],
  properties: endpointProperties,
} as const;

export const sellerOptionsSchema: JSONSchemaType<SellerOptions> = {
  type: 'object',
  additionalProperties: false,
  required: [],
  properties: {
    mode: { type: 'string', enum: ['commander', 'seller'], default: 'commander' },
    split: { type: 'string', enum: ['train', 'test', 'all'], default: 'train' },
    rounds: { type: 'integer', minimum: 1, maximum: 50, default: 8 },
    formatPenalty: { type: 'number', minimum: 0, maximum: 1, default: 0.1 },
    noise: { type: 'number', minimum: 0, maximum: 1, default: 0.1 },
    actions: {
      type: 'array',
      items: { type: 'string', enum: [...CATALOGUE_IDS] },
      uniqueItems: true,
      default: [...DEFAULT_META_ACTIONS],
    },
    customActions: {
      type: 'array',
      default: [],
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'label', 'instruction', 'behavesAs'],
        properties: {
          id: { type: 'string', pattern: '^[a-z0-9]+(-[a-z0-9]+)*$' },
          label: { type: 'string', minLength: 1, maxLength: 200 },
          instruction: { type: 'string', minLength: 1, maxLength: 2000 },
          behavesAs: { type: 'string', enum: [...INTENTS] },
        },
      },
    },
    maxUtteranceChars: { type: 'integer', minimum: 20, maximum: 100000, default: 1000 },
    buyer: { type: 'string', minLength: 1, default: 'simulated' },
    judge: { type: 'string', minLength: 1, default: 'simulated' },
    executor: { type: 'string', minLength: 1, default: 'simulated' },
    llm: {
      type: 'object',
      additionalProperties: false,
      required: [],
      // ajv fills the fields' own defaults into this empty object.
      default: {} as LlmSettings,
      properties: {
        ...endpointProperties,
        temperature: { type: 'number', minimum: 0, maximum: 2, default: 0 },
        maxTokens: { type: 'integer', minimum: 1, default: 256 },
        cache: { type: 'boolean', default: true },
        cachePath: { type: 'string', minLength: 1, nullable: true },
        judgeRetries: { type: 'integer', minimum: 0, maximum: 10, default: 2 },
        replyRetries: { type: 'integer', minimum: 0, maximum: 10, default: 2 },
      },
    },
    roleEndpoints: {
      type: 'object',
      additionalProperties: false,
      required: [],
      default: {},
      properties: { buyer: endpointSchema, judge: endpointSchema, executor: endpointSchema },
    },
    dataDir: { type: 'string', minLength: 1, nullable: true },
  },
};

/**
 * What a client of the env server may set: the game's rules. Not the roles (a model spec may name a local
 * checkpoint or a paid API), `llm`/`roleEndpoints` (URLs, key variables, a cache file) or `dataDir`.
 */
export const sellerClientOptions: ClientOptions<SellerOptions> = {
  split: true,
  rounds: true,
  formatPenalty: true,
  noise: true,
  actions: true,
  customActions: { maxItems: 32 },
  maxUtteranceChars: true,
};

export const validateSellerOptions = defineOptions<SellerOptions>('turngym/seller', sellerOptionsSchema);

/** Per-episode options of `reset({ seed, options })`. */
export interface SellerResetOptions {
  /** Play this task of the split (0-based) instead of the one the seed selects. */
  taskId?: number;
  /** Or name the pair: both ids must form a task of the split. */
  personaId?: string;
  productId?: string;
}

export const sellerResetOptionsSchema: JSONSchemaType<SellerResetOptions> = {
  type: 'object',
  additionalProperties: false,
  required: [],
  properties: {
    taskId: { type: 'integer', minimum: 0, nullable: true },
    personaId: { type: 'string', minLength: 1, nullable: true },
    productId: { type: 'string', minLength: 1, nullable: true },
  },
};

export const validateSellerResetOptions = defineOptions<SellerResetOptions>(
  'turngym/seller reset()',
  sellerResetOptionsSchema,
);
