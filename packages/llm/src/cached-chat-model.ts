import { createHash } from 'node:crypto';
import { appendFile, mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { TurnGymError, defineOptions, type JSONSchemaType } from '@turngym/core';
import type { ChatModel, ChatRequest, ChatResponse } from './chat-model';
import { stableStringify } from './internal/stable-json';

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
 * The cache key: SHA-256 of the model id, role, messages (tool calls and ids included), tools, seed and
 * every sampling parameter. Stable across key order, so a forked or replayed episode finds its answers.
 */
export function chatCacheKey(modelId: string, request: ChatRequest): string {
  const material = stableStringify({
    v: KEY_VERSION,
    modelId,
    role: request.role,
    messages: request.messages,
    tools: request.tools,
    seed: request.seed,
    temperature: request.temperature,
    topP: request.topP,
    maxTokens: request.maxTokens,
    stop: request.stop,
  });
  return createHash('sha256').update(material).digest('hex');
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
  readonly options: CachedChatModelOptions;
  private readonly entries = new Map<string, ChatResponse>();
  private readonly inFlight = new Map<string, Promise<ChatResponse>>();
  private loaded: Promise<void> | undefined;
  private writes: Promise<void> = Promise.resolve();
  private writeError: unknown;
  private counters = { hits: 0, misses: 0, bypassed: 0 };

  constructor(
    readonly inner: ChatModel,
    options: Partial<CachedChatModelOptions> = {},
  ) {
    this.options = validate(options);
    this.id = inner.id;
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
    const key = chatCacheKey(this.inner.id, request);
    const stored = this.entries.get(key);
    if (stored) {
      this.counters.hits += 1;
      return { ...structuredClone(stored), cached: true };
    }
    const pending = this.inFlight.get(key);
    if (pending) {
      this.counters.hits += 1;
      return { ...structuredClone(await pending), cached: true };
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
    this.inFlight.set(key, call);
    try {
      return structuredClone(await call);
    } finally {
      this.inFlight.delete(key);
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
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      try {
        const entry = JSON.parse(line) as CacheLine;
        if (typeof entry.key === 'string' && entry.response && typeof entry.response === 'object')
          this.entries.set(entry.key, entry.response);
      } catch {
        // A torn last line (a crash mid-append) is skipped; its request simply runs again.
      }
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
        await appendFile(path, `${JSON.stringify(line)}\n`, 'utf8');
      })
      .catch((error: unknown) => {
        this.writeError ??= error;
      });
  }
}
