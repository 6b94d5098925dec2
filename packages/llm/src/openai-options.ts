import { InvalidOptionsError, defineOptions, type JSONSchemaType } from '@turngym/core';
import { MAX_TIMER_MS } from './retry';

/** Sampling defaults applied to every request that does not set the field itself. */
export interface SamplingDefaults {
  temperature?: number;
  topP?: number;
  maxTokens?: number;
  seed?: number;
  stop?: string[];
}

/** Options of `OpenAIChatModel`, after environment variables and defaults are applied. */
export interface OpenAIChatModelOptions {
  /** The model name the server knows, e.g. `gpt-4o-mini`, `Qwen/Qwen2.5-7B-Instruct`, `llama3.1:8b`. */
  model: string;
  /** Any OpenAI-compatible endpoint, ending in `/v1` (vLLM, SGLang, lmdeploy, Ollama, `turngym serve-model`). */
  baseURL: string;
  /** A local server needs no real key: with a non-OpenAI baseURL a placeholder is sent. */
  apiKey: string;
  organization?: string;
  /** Per attempt, ms. */
  timeoutMs: number;
  /** Retries after the first attempt, for 408/409/429/5xx, timeouts and connection failures. */
  maxRetries: number;
  /** Backoff before the first retry, ms; doubles each retry, minus up to 25% jitter. */
  retryBaseDelayMs: number;
  /** Cap on one backoff delay (and on a server's Retry-After), ms. */
  retryMaxDelayMs: number;
  /** Ask for an SSE stream and assemble it (same result; useful where a proxy cuts long idle requests). */
  stream: boolean;
  /**
   * Longest reply accepted, in characters (content, reasoning and tool-call arguments together, and with `logprobs`
   * asked for each token's text and each of its `topLogprobs` alternatives', at least 1 each): a longer one is an
   * invalid response, not retried. A runaway server once answered 50 MB a turn, which was stored in full and
   * sent back in every later prompt; no token limit a caller sets comes near the default (with `topLogprobs: 20`,
   * a reply counts about 21 times its text: raise it for replies past ~10k tokens).
   */
  maxReplyChars: number;
  /** `max_completion_tokens` for OpenAI's reasoning models; most compatible servers want `max_tokens`. */
  maxTokensParameter: 'max_tokens' | 'max_completion_tokens';
  defaults?: SamplingDefaults;
  /** Extra HTTP headers on every request. */
  headers?: Record<string, string>;
}

/** What a caller passes: everything but `model` may come from the environment or a default. */
export type OpenAIChatModelInput = Partial<OpenAIChatModelOptions>;

export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';
/** Sent when a non-OpenAI baseURL is given without a key: local servers ignore it, the client needs one. */
export const LOCAL_PLACEHOLDER_API_KEY = 'turngym-no-key';

export const openAIChatModelOptionsSchema: JSONSchemaType<OpenAIChatModelOptions> = {
  type: 'object',
  additionalProperties: false,
  required: ['model', 'baseURL', 'apiKey'],
  properties: {
    model: { type: 'string', minLength: 1 },
    baseURL: { type: 'string', pattern: '^https?://' },
    apiKey: { type: 'string', minLength: 1 },
    organization: { type: 'string', nullable: true },
    // Node's timers hold at most 2^31-1 ms and fire at once past it; the client's backstop adds 1000.
    timeoutMs: { type: 'integer', minimum: 1, maximum: MAX_TIMER_MS - 1000, default: 60_000 },
    maxRetries: { type: 'integer', minimum: 0, maximum: 20, default: 2 },
    retryBaseDelayMs: { type: 'number', minimum: 0, maximum: MAX_TIMER_MS, default: 500 },
    retryMaxDelayMs: { type: 'number', minimum: 0, maximum: MAX_TIMER_MS, default: 8_000 },
    stream: { type: 'boolean', default: false },
    maxReplyChars: { type: 'integer', minimum: 1, default: 1_000_000 },
    maxTokensParameter: { type: 'string', enum: ['max_tokens', 'max_completion_tokens'], default: 'max_tokens' },
    defaults: {
      type: 'object',
      nullable: true,
      additionalProperties: false,
      required: [],
      properties: {
        temperature: { type: 'number', minimum: 0, maximum: 2, nullable: true },
        topP: { type: 'number', minimum: 0, maximum: 1, nullable: true },
        maxTokens: { type: 'integer', minimum: 1, nullable: true },
        seed: { type: 'integer', nullable: true },
        stop: { type: 'array', items: { type: 'string' }, nullable: true },
      },
    },
    headers: { type: 'object', nullable: true, required: [], additionalProperties: { type: 'string' } },
  },
};

const validate = defineOptions<OpenAIChatModelOptions>('OpenAIChatModel', openAIChatModelOptionsSchema);

/** Environment variables read, first match wins (TurnGym's own name before the openai client's). */
export const OPENAI_ENVIRONMENT_VARIABLES = {
  model: ['TURNGYM_OPENAI_MODEL', 'OPENAI_MODEL'],
  baseURL: ['TURNGYM_OPENAI_BASE_URL', 'OPENAI_BASE_URL'],
  apiKey: ['TURNGYM_OPENAI_API_KEY', 'OPENAI_API_KEY'],
  timeoutMs: ['TURNGYM_OPENAI_TIMEOUT_MS'],
  maxRetries: ['TURNGYM_OPENAI_MAX_RETRIES'],
} as const;

type Environment = Readonly<Record<string, string | undefined>>;

function fromEnvironment(
  names: readonly string[],
  environment: Environment,
): { name: string; value: string } | undefined {
  for (const name of names) {
    const value = environment[name];
    if (value !== undefined && value.trim() !== '') return { name, value: value.trim() };
  }
  return undefined;
}

function integerFromEnvironment(
  names: readonly string[],
  environment: Environment,
): { name: string; value: number } | undefined {
  const found = fromEnvironment(names, environment);
  if (!found) return undefined;
  const value = Number(found.value);
  if (!Number.isInteger(value))
    throw new InvalidOptionsError('OpenAIChatModel', [
      `environment variable ${found.name} must be an integer (got "${found.value}")`,
    ]);
  return { name: found.name, value };
}

function isOpenAI(baseURL: string): boolean {
  try {
    return new URL(baseURL).hostname.endsWith('openai.com');
  } catch {
    return false;
  }
}

/**
 * What is wrong with a base URL the schema's pattern lets through: text `fetch` cannot parse (a stray space),
 * credentials in the URL (fetch refuses them), and a pasted endpoint URL (`…/v1/chat/completions`, called as
 * `…/chat/completions/chat/completions`) each fail every call, with an error that points elsewhere.
 */
function baseURLProblem(baseURL: string, source: string): string | undefined {
  if (!/^https?:\/\//.test(baseURL)) return undefined; // the schema names this one
  let url: URL;
  try {
    url = new URL(baseURL);
  } catch {
    return `${source} is not a valid URL (got "${baseURL}")`;
  }
  if (url.username !== '' || url.password !== '') {
    // fetch refuses such URLs, so every call would fail as "could not connect", with the password printed
    // in each error message and run record. Neither the password nor the URL holding it is echoed here.
    return `${source} must not hold a user name or password (${url.protocol}//…@${url.host}${url.pathname}): pass the key as apiKey, or a header in headers`;
  }
  const endpoint = /\/chat\/completions$/.exec(url.pathname);
  if (endpoint) {
    const root = baseURL.slice(0, baseURL.length - endpoint[0].length);
    return `${source} must be the API root, not an endpoint: use "${root}" (got "${baseURL}")`;
  }
  return undefined;
}

/** A header name as HTTP allows it (RFC 9110's token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * Where a value cannot go into an HTTP header, said without the value (it may be a key): a character past Latin-1
 * (typographic quotes or a dash, pasted with a key from a web page or a chat), a line break or another control
 * character. `fetch` refused such a request before sending it, and the error ("Cannot convert argument to a
 * ByteString…") came out as an unreadable response from the server.
 */
function headerValueProblem(value: string, source: string): string | undefined {
  const index = [...value].findIndex((char) => {
    const code = char.codePointAt(0) ?? 0;
    return code > 0xff || (code < 0x20 && char !== '\t') || code === 0x7f;
  });
  if (index < 0) return undefined;
  const char = [...value][index] as string;
  const code = char.codePointAt(0) ?? 0;
  const shown = code < 0x20 || code === 0x7f ? 'a control character' : `"${char}"`;
  return (
    `${source} has ${shown} (U+${code.toString(16).toUpperCase().padStart(4, '0')}) at character ${index}, which ` +
    'an HTTP header cannot carry: was it pasted with typographic quotes, a dash or a line break?'
  );
}

/** What a value is, in words that show nothing of it. */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** Problems with the key and headers, each naming where it came from and never echoing a value. */
function headerProblems(apiKey: unknown, keySource: string, headers: unknown): string[] {
  const problems: string[] = [];
  // Not left to the schema, whose message shows the value: `{ key: "sk-…" }` would be printed whole.
  const keyProblem =
    typeof apiKey === 'string'
      ? headerValueProblem(apiKey.trim(), keySource)
      : apiKey === undefined
        ? undefined
        : `${keySource} must be a string (got ${kindOf(apiKey)})`;
  if (keyProblem) problems.push(keyProblem);
  if (typeof headers === 'object' && headers !== null) {
    for (const [name, value] of Object.entries(headers)) {
      if (!HEADER_NAME.test(name))
        problems.push(`options.headers has a header name HTTP does not allow: ${JSON.stringify(name)}`);
      else if (typeof value === 'string') {
        const problem = headerValueProblem(value.trim(), `options.headers["${name}"]`);
        if (problem) problems.push(problem);
      }
    }
  }
  return problems;
}

/**
 * Fills options from (in order) the caller, the environment (`OPENAI_ENVIRONMENT_VARIABLES`) and the
 * defaults, then validates them. A key is required only for api.openai.com; a local server gets a
 * placeholder. A trailing slash on the base URL is dropped so messages show one canonical URL.
 */
export function resolveOpenAIOptions(
  input: OpenAIChatModelInput,
  environment: Environment = process.env,
): OpenAIChatModelOptions {
  const names = OPENAI_ENVIRONMENT_VARIABLES;
  const model = input.model ?? fromEnvironment(names.model, environment)?.value;
  if (model === undefined) {
    throw new InvalidOptionsError('OpenAIChatModel', [
      `options.model is required (or set ${names.model.join(' / ')}); e.g. openai:gpt-4o-mini`,
    ]);
  }
  const baseURLFromEnvironment = input.baseURL === undefined ? fromEnvironment(names.baseURL, environment) : undefined;
  const baseURL = (input.baseURL ?? baseURLFromEnvironment?.value ?? OPENAI_DEFAULT_BASE_URL).replace(/\/+$/, '');
  const problem = baseURLProblem(
    baseURL,
    baseURLFromEnvironment ? `environment variable ${baseURLFromEnvironment.name}` : 'options.baseURL',
  );
  if (problem !== undefined) throw new InvalidOptionsError('OpenAIChatModel', [problem]);
  const fromVariables = {
    timeoutMs: input.timeoutMs === undefined ? integerFromEnvironment(names.timeoutMs, environment) : undefined,
    maxRetries: input.maxRetries === undefined ? integerFromEnvironment(names.maxRetries, environment) : undefined,
  };
  const timeoutMs = input.timeoutMs ?? fromVariables.timeoutMs?.value;
  const maxRetries = input.maxRetries ?? fromVariables.maxRetries?.value;
  const keyFromEnvironment = input.apiKey === undefined ? fromEnvironment(names.apiKey, environment) : undefined;
  const apiKey = input.apiKey ?? keyFromEnvironment?.value;
  const unsendable = headerProblems(
    apiKey,
    keyFromEnvironment ? `environment variable ${keyFromEnvironment.name}` : 'options.apiKey',
    input.headers,
  );
  if (unsendable.length > 0) throw new InvalidOptionsError('OpenAIChatModel', unsendable);
  const resolved = (key: string): OpenAIChatModelOptions => {
    try {
      return validate({
        ...input,
        model,
        baseURL,
        apiKey: key,
        ...(timeoutMs !== undefined ? { timeoutMs } : {}),
        ...(maxRetries !== undefined ? { maxRetries } : {}),
      });
    } catch (error) {
      if (!(error instanceof InvalidOptionsError)) throw error;
      // A value read from a variable is named as that variable: the caller set no `options.maxRetries`.
      const named = error.problems.map((problem) =>
        problem.replace(/^options\.(timeoutMs|maxRetries)\b/, (text, field: 'timeoutMs' | 'maxRetries') => {
          const variable = fromVariables[field]?.name;
          return variable !== undefined ? `environment variable ${variable}` : text;
        }),
      );
      throw new InvalidOptionsError('OpenAIChatModel', named);
    }
  };
  if (apiKey !== undefined) return resolved(apiKey);
  if (isOpenAI(baseURL)) {
    // Everything else is checked first: a misspelt `baseUrl` leaves the default OpenAI URL in place, and
    // "no API key for api.openai.com" alone would hide the typo that sent the call there.
    resolved(LOCAL_PLACEHOLDER_API_KEY);
    throw new InvalidOptionsError('OpenAIChatModel', [
      `no API key for ${baseURL}: set ${names.apiKey.join(' or ')}, or point ${names.baseURL.join(' / ')} at a local OpenAI-compatible server`,
    ]);
  }
  return resolved(LOCAL_PLACEHOLDER_API_KEY);
}
