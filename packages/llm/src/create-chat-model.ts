import { CachedChatModel, type CachedChatModelOptions } from './cached-chat-model';
import type { ChatModel } from './chat-model';
import { ChatModelSpecError } from './chat-model-spec-error';
import { OpenAIChatModel } from './openai-chat-model';
import type { OpenAIChatModelInput } from './openai-options';
import { ScriptedChatModel, type ScriptedReplies } from './scripted-chat-model';

export interface CreateChatModelOptions {
  /** `openai:<model>`: everything but the model (baseURL, apiKey, timeoutMs, maxRetries, defaults, …). */
  readonly openai?: Omit<OpenAIChatModelInput, 'model'>;
  /** `scripted`: the replies (default: echo the last user message). */
  readonly script?: ScriptedReplies;
  /** Wrap the model in a response cache: `true` (in memory) or the cache's options (e.g. a JSONL path). */
  readonly cache?: boolean | Partial<CachedChatModelOptions>;
  /** Environment variables a backend reads (default `process.env`). */
  readonly environment?: Readonly<Record<string, string | undefined>>;
  /** Passed through to a registered provider, which documents what it reads. */
  readonly providerOptions?: Readonly<Record<string, unknown>>;
}

/**
 * Builds a ChatModel from what follows the prefix (`gpt-4o-mini` in `openai:gpt-4o-mini`; '' for a bare
 * prefix). Synchronous: a provider that needs to load weights does so on its first `complete()`.
 */
export type ChatModelProvider = (rest: string, options: CreateChatModelOptions, spec: string) => ChatModel;

interface ProviderEntry {
  readonly factory: ChatModelProvider;
  /** How a spec for this provider is written, for error messages and help. */
  readonly usage: string;
  readonly builtIn: boolean;
}

const LOCAL_NOT_AVAILABLE: ChatModelProvider = (_rest, _options, spec) => {
  throw new ChatModelSpecError(
    spec,
    `"${spec}": local checkpoints come from the tfjs LM: call registerLocalChatModelProvider() from ` +
      `@turngym/lm first (the turngym CLI does), or serve the checkpoint (turngym serve-model) and use ` +
      `openai:<model> with TURNGYM_OPENAI_BASE_URL.`,
  );
};

const providers = new Map<string, ProviderEntry>([
  [
    'scripted',
    {
      factory: (rest, options) => new ScriptedChatModel(options.script, rest ? { id: `scripted:${rest}` } : {}),
      usage: 'scripted[:<name>]',
      builtIn: true,
    },
  ],
  [
    'openai',
    {
      factory: (rest, options) =>
        new OpenAIChatModel({ ...options.openai, ...(rest ? { model: rest } : {}) }, options.environment),
      usage: 'openai:<model>',
      builtIn: true,
    },
  ],
  ['local', { factory: LOCAL_NOT_AVAILABLE, usage: 'local:<checkpoint>', builtIn: true }],
]);

const PREFIX = /^[a-z][a-z0-9-]*$/;

/**
 * Adds a backend under `prefix` (e.g. `local`, for the in-process tfjs LM). The built-in `local`
 * placeholder may be replaced; replacing any other registered prefix needs `{ replace: true }`.
 * Returns a function that restores what was there before (for tests).
 */
export function registerChatModelProvider(
  prefix: string,
  factory: ChatModelProvider,
  options: { usage?: string; replace?: boolean } = {},
): () => void {
  if (!PREFIX.test(prefix))
    throw new ChatModelSpecError(
      prefix,
      `Invalid chat model provider prefix "${prefix}": use lowercase letters, digits and dashes.`,
    );
  const previous = providers.get(prefix);
  if (previous && !options.replace && !(prefix === 'local' && previous.factory === LOCAL_NOT_AVAILABLE)) {
    throw new ChatModelSpecError(
      prefix,
      `A chat model provider is already registered for "${prefix}:"; pass { replace: true } to replace it.`,
    );
  }
  providers.set(prefix, { factory, usage: options.usage ?? `${prefix}:<name>`, builtIn: false });
  return () => {
    if (previous) providers.set(prefix, previous);
    else providers.delete(prefix);
  };
}

/** The known spec forms, e.g. `['scripted[:<name>]', 'openai:<model>', 'local:<checkpoint>']`. */
export function listChatModelProviders(): { prefix: string; usage: string; builtIn: boolean }[] {
  return [...providers].map(([prefix, entry]) => ({ prefix, usage: entry.usage, builtIn: entry.builtIn }));
}

/**
 * Parses a model spec string into a ChatModel: `scripted`, `openai:<model>` (any OpenAI-compatible base
 * URL, from options or TURNGYM_OPENAI_BASE_URL / OPENAI_BASE_URL), `local:<checkpoint>`, or a prefix added
 * with `registerChatModelProvider`. Everything after the first colon belongs to the provider, so model
 * names with colons (`openai:llama3.1:8b`) work. `options.cache` wraps the result in a CachedChatModel.
 */
export function createChatModel(spec: string, options: CreateChatModelOptions = {}): ChatModel {
  const trimmed = spec.trim();
  const colon = trimmed.indexOf(':');
  const prefix = colon < 0 ? trimmed : trimmed.slice(0, colon).trim();
  // No model name or checkpoint starts or ends with a space; `openai: gpt-4o` would ask for " gpt-4o".
  const rest = colon < 0 ? '' : trimmed.slice(colon + 1).trim();
  const entry = providers.get(prefix);
  if (!entry) {
    const known = [...providers.values()].map((each) => each.usage).join(', ');
    const lower = prefix.toLowerCase();
    const hint = lower !== prefix && providers.has(lower) ? ` Prefixes are lowercase: "${lower}:${rest}".` : '';
    throw new ChatModelSpecError(spec, `Unknown chat model spec "${spec}". Known forms: ${known}.${hint}`);
  }
  if (prefix !== 'scripted' && prefix !== 'openai' && rest === '') {
    throw new ChatModelSpecError(spec, `"${spec}" needs a name after the colon: ${entry.usage}.`);
  }
  const model = entry.factory(rest, options, trimmed);
  if (!options.cache) return model;
  return new CachedChatModel(model, options.cache === true ? {} : options.cache);
}
