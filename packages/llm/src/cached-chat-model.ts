import { createHash } from 'node:crypto';
import { appendFile, mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { TurnGymError, defineOptions, type JSONSchemaType } from '@turngym/core';
import type { ChatModel, ChatRequest, ChatResponse } from './chat-model';
import { LLMCallError } from './llm-call-error';
import { stableStringify } from './internal/stable-json';
import { EXTENDED_SAMPLING_FIELDS } from './extended-sampling';

export interface CachedChatModelOptions {
  /** A JSONL file: read on first use, one line appended per new response. Omitted: memory only. */
  path?: string;
  /**
   * Also cache requests with neither temperature 0 nor a seed. Off by default: such calls are meant to
   * vary, and a cache would silently freeze them.
   */
  cacheNondeterministic: boolean;
}

export const cachedChatModelOptionsSchema: JSONSchemaType<CachedChatModelOptions> = {
  type: 'object',
  additionalProperties: false,
  required: [],
  properties: {
    path: { type: 'string', minLength: 1, nullable: true },
    cacheNondeterministic: { type: 'boolean', default: false },
  },
};

const validate = defineOptions<CachedChatModelOptions>('CachedChatModel', cachedChatModelOptionsSchema);

export interface ChatCacheStats {
  /** Answered from the cache (memory or file). */
  hits: number;
  /** Cacheable, not found: the inner model ran and the answer was stored. */
  misses: number;
  /** Not cacheable (temperature ≠ 0 and no seed): passed through. */
  bypassed: number;
  /** Entries currently held. */
  entries: number;
}

/** One line of the JSONL cache file. */
interface CacheLine {
  key: string;
  modelId: string;
  role?: string;
  response: ChatResponse;
}

/** Bump when the key's inputs change so old files stop matching instead of answering wrongly. */
const KEY_VERSION = 'turngym-chat-cache-v1';

/**
 * The cache key: SHA-256 of the model id, the model's `cacheIdentity` (its endpoint and backend defaults),
 * role, messages (tool calls and ids included), tools, seed, every sampling parameter (vLLM's top_k, min_p and
 * repetition_penalty too, when on) and the log-probabilities asked for (a reply stored without them never answers a
 * request for them). Stable across key order, so a forked or replayed episode finds its answers. A model without a
 * `cacheIdentity`, and a request without `logprobs` or vLLM's fields, key exactly as before either existed, so old
 * cache files still answer.
 */
export function chatCacheKey(modelId: string, request: ChatRequest, cacheIdentity?: string): string {
  const material = stableStringify({
    v: KEY_VERSION,
    modelId,
    identity: cacheIdentity,
    role: request.role,
    messages: request.messages,
    tools: request.tools,
    seed: request.seed,
    temperature: request.temperature,
    topP: request.topP,
    maxTokens: request.maxTokens,
    stop: request.stop,
    // The alternatives asked for at each token: 0 is the chosen tokens' logprobs alone.
    logprobs: request.logprobs === true ? (request.topLogprobs ?? 0) : undefined,
    ...extendedSamplingKey(request),
  });
  return createHash('sha256').update(material).digest('hex');
}

/**
 * vLLM's sampling fields a request turns on: each changes the answers, so each keys the cache. Off values (top_k 0 or
 * -1, repetition_penalty 1) sample as an absent field does and key as one, so old cache files still answer.
 */
function extendedSamplingKey(request: ChatRequest): Record<string, number> {
  const key: Record<string, number> = {};
  for (const { field, isOff } of Object.values(EXTENDED_SAMPLING_FIELDS)) {
    const value = request[field];
    if (value !== undefined && !isOff(value)) key[field] = value;
  }
  return key;
}

/** Whether a request's answer is meant to be reproducible: temperature 0, or a seed. */
export function isDeterministicRequest(request: ChatRequest): boolean {
  return request.temperature === 0 || request.seed !== undefined;
}

/**
 * Wraps a ChatModel with a response cache, which is what makes env-side LLM roles reproducible: with
 * temperature 0 (or a seed), the same (role, messages, seed) gets the same answer, so `fork()` by replay and
 * a re-run of a seed are exact even against a remote model. Only such deterministic requests are cached
 * unless `cacheNondeterministic` is set. Concurrent identical requests share one call. A hit returns the
 * stored response (its original usage) with `cached: true`. `close()` also closes the inner model.
 */
export class CachedChatModel implements ChatModel {
  readonly id: string;
  readonly cacheIdentity: string | undefined;
  readonly supportsLogprobs: boolean | undefined;
  /** The inner model's: a cached local model served over HTTP still takes top_k, min_p and repetition_penalty. */
  readonly supportsExtendedSampling: boolean | undefined;
  readonly options: CachedChatModelOptions;
  private readonly entries = new Map<string, ChatResponse>();
  private readonly inFlight = new Map<string, SharedCall>();
  private loaded: Promise<void> | undefined;
  private writes: Promise<void> = Promise.resolve();
  private writeError: unknown;
  /** The file ended in a torn line (a crash mid-append): the next append starts on a fresh line. */
  private startNewLine = false;
  private counters = { hits: 0, misses: 0, bypassed: 0 };

  constructor(
    readonly inner: ChatModel,
    options: Partial<CachedChatModelOptions> = {},
  ) {
    this.options = validate(options);
    this.id = inner.id;
    this.cacheIdentity = inner.cacheIdentity;
    this.supportsLogprobs = inner.supportsLogprobs;
    this.supportsExtendedSampling = inner.supportsExtendedSampling;
  }

  get stats(): ChatCacheStats {
    return { ...this.counters, entries: this.entries.size };
  }

  async complete(request: ChatRequest): Promise<ChatResponse> {
    if (!this.options.cacheNondeterministic && !isDeterministicRequest(request)) {
      this.counters.bypassed += 1;
      return this.inner.complete(request);
    }
    await this.load();
    const key = chatCacheKey(this.inner.id, request, this.inner.cacheIdentity);
    for (;;) {
      const stored = this.entries.get(key);
      // An entry without the log-probabilities asked for (a hand-edited file) is no answer to this request.
      if (stored && (request.logprobs !== true || stored.logprobs !== undefined)) {
        this.counters.hits += 1;
        return { ...structuredClone(stored), cached: true };
      }
      const shared = this.inFlight.get(key);
      if (!shared) break;
      try {
        const response = await untilAborted(shared.call, request.signal, this.id);
        this.counters.hits += 1;
        return { ...structuredClone(response), cached: true };
      } catch (error) {
        // The call joined was cancelled by the caller that started it, not by this one: that abort is no
        // answer to this request, which makes its own call instead of failing with someone else's abort.
        if (!shared.signal?.aborted || request.signal?.aborted) throw error;
        if (this.inFlight.get(key) === shared) this.inFlight.delete(key);
      }
    }
    this.counters.misses += 1;
    const call = this.inner.complete(request).then((response) => {
      const { cached: _cached, ...plain } = response;
      const entry = structuredClone(plain);
      this.entries.set(key, entry);
      this.persist({
        key,
        modelId: this.inner.id,
        ...(request.role !== undefined ? { role: request.role } : {}),
        response: entry,
      });
      return entry;
    });
    const shared: SharedCall = { call, signal: request.signal };
    this.inFlight.set(key, shared);
    try {
      return structuredClone(await call);
    } finally {
      if (this.inFlight.get(key) === shared) this.inFlight.delete(key);
    }
  }

  /** Waits until every new entry is on disk; rethrows the first write error. */
  async flush(): Promise<void> {
    await this.writes;
    if (this.writeError !== undefined) throw this.writeError;
  }

  async close(): Promise<void> {
    await this.flush();
    await this.inner.close?.();
  }

  private load(): Promise<void> {
    this.loaded ??= this.readFile();
    return this.loaded;
  }

  private async readFile(): Promise<void> {
    const path = this.options.path;
    if (path === undefined) return;
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw new TurnGymError('LLM_CACHE', `Could not read the response cache ${path}: ${(error as Error).message}`, {
        cause: error,
      });
    }
    this.startNewLine = text !== '' && !text.endsWith('\n');
    let records = 0;
    let keyed = 0;
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      let entry: Partial<CacheLine> | null;
      try {
        entry = JSON.parse(line) as Partial<CacheLine> | null;
      } catch {
        continue; // a torn line (a crash mid-append) is skipped; its request simply runs again
      }
      records += 1;
      if (typeof entry?.key !== 'string') continue;
      keyed += 1;
      // A cache line without a usable response (hand-edited, half-migrated) is skipped like a torn one:
      // answering with it would hand a caller a reply without a message.
      if (isStoredResponse(entry.response)) this.entries.set(entry.key, entry.response);
    }
    if (records > 0 && keyed === 0) {
      // JSON records, none of them ours: the path names some other file (a run's metrics.jsonl), which
      // appending cache lines to would corrupt.
      throw new TurnGymError(
        'LLM_CACHE',
        `${path} is not a response cache: none of its ${records} JSON line(s) is a cache entry; give the cache a file of its own`,
      );
    }
  }

  private persist(line: CacheLine): void {
    const path = this.options.path;
    if (path === undefined) return;
    // Writes are chained so lines never interleave; a failure is kept for flush() rather than left as an
    // unhandled rejection, and the answer in memory stays valid either way.
    this.writes = this.writes
      .then(async () => {
        await mkdir(dirname(path), { recursive: true });
        // After a torn line, a line appended straight onto it would be torn too, and lost on the next read.
        const prefix = this.startNewLine ? '\n' : '';
        await appendFile(path, `${prefix}${JSON.stringify(line)}\n`, 'utf8');
        this.startNewLine = false;
      })
      .catch((error: unknown) => {
        this.writeError ??= new TurnGymError(
          'LLM_CACHE',
          `Could not write the response cache ${path}: ${(error as Error).message}`,
          { cause: error },
        );
      });
  }
}

/** A call in progress that identical requests join; `signal` is the starting caller's. */
interface SharedCall {
  readonly call: Promise<ChatResponse>;
  readonly signal: AbortSignal | undefined;
}

/**
 * `promise`, or the backends' abort error as soon as `signal` fires: a caller waiting on a call another
 * caller started can still cancel its own wait.
 */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined, modelId: string): Promise<T> {
  if (!signal) return promise;
  const aborted = (): LLMCallError =>
    new LLMCallError(`${modelId}: aborted by the caller`, { failure: 'aborted', modelId, cause: signal.reason });
  if (signal.aborted) return Promise.reject(aborted());
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(aborted());
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

function isStoredResponse(value: unknown): value is ChatResponse {
  const response = value as Partial<ChatResponse> | null | undefined;
  return (
    typeof response === 'object' &&
    response !== null &&
    typeof response.message?.content === 'string' &&
    typeof response.usage?.promptTokens === 'number' &&
    typeof response.usage?.completionTokens === 'number' &&
    typeof response.finishReason === 'string' &&
    (response.logprobs === undefined || Array.isArray(response.logprobs))
  );
}
