import { defineOptions, InvalidOptionsError, mixSeed, SeededRng, type JSONSchemaType } from '@turngym/core';
import { disposeLayers, extractRow, runChunk, selectRows, stackCaches } from './internal/batch-state';
import { type FusedWeights, fusedDecoderAvailable } from './internal/fused-decoder';
import { FusedWeightsCache } from './internal/fused-weights-cache';
import { eventLoopYielder } from './event-loop-yield';
import { KvCache } from './kv-cache';
import type { LanguageModel } from './language-model';
import { ContextLengthError, TokenizerMismatchError } from './lm-errors';
import { drawToken, repeatsPenalised, rowGeneration, type RowDraw, type RowStops } from './internal/row-draw';
import type { TokenLogprob } from './top-logprobs';

export interface GenerationOptions {
  /** Most tokens to generate per request (fewer near the context limit). */
  maxTokens: number;
  /** 0 = greedy. */
  temperature: number;
  topP: number;
  /** vLLM's top_k (`sampleToken`): draw from the k likeliest tokens only; 0 or absent: all. */
  topK?: number | null;
  /** vLLM's min_p: drop tokens less likely than minP times the likeliest; 0 or absent: none. */
  minP?: number | null;
  /** vLLM's repetition_penalty over the prompt's and the completion's tokens; 1 or absent: off. */
  repetitionPenalty?: number | null;
  /** Generation ends when the text contains one; the text is cut before it (the tokens are kept). */
  stop?: string[];
  /**
   * Token ids that end generation (default: the tokenizer's eos ids); kept in `tokens`, not in `text`. Each must be
   * inside the model's vocabulary.
   */
  stopTokenIds?: number[];
  /** Row i samples from SeededRng(mixSeed(seed, i)) unless its request has its own seed. */
  seed: number;
  /** The LoRA adapter to generate with; null = the base model. */
  adapter?: string | null;
  /** Return each row's KvCache (prompt + generated tokens) to continue or fork from. */
  keepCache: boolean;
  /**
   * Also list, at each generated token, the this-many likeliest tokens and their logprobs (`Generation.topLogprobs`),
   * under the same distribution as `logprobs`: the model's own (temperature 1, no top-p), whatever the sampling
   * settings, so the drawn token's logprob is its entry's when it is among them. 0 to 20 (OpenAI's cap); 0 or
   * absent: none. The draws are the same either way.
   */
  topLogprobs?: number | null;
}

export const generationOptionsSchema: JSONSchemaType<GenerationOptions> = {
  type: 'object',
  additionalProperties: false,
  required: [],
  properties: {
    maxTokens: { type: 'integer', minimum: 0, default: 64 },
    temperature: { type: 'number', minimum: 0, default: 1 },
    topP: { type: 'number', exclusiveMinimum: 0, maximum: 1, default: 1 },
    topK: { type: 'integer', minimum: 0, nullable: true },
    minP: { type: 'number', minimum: 0, maximum: 1, nullable: true },
    repetitionPenalty: { type: 'number', exclusiveMinimum: 0, nullable: true },
    stop: { type: 'array', items: { type: 'string', minLength: 1 }, nullable: true },
    stopTokenIds: { type: 'array', items: { type: 'integer', minimum: 0 }, nullable: true },
    seed: { type: 'integer', default: 0 },
    adapter: { type: 'string', nullable: true },
    keepCache: { type: 'boolean', default: false },
    topLogprobs: { type: 'integer', minimum: 0, maximum: 20, nullable: true },
  },
};

const validateOptions = defineOptions<GenerationOptions>('generate', generationOptionsSchema);

/**
 * The options' checks against the model (`subject` names the caller, as its schema validator does): a stop token
 * id past the vocabulary can never be drawn, so generation would run on to `maxTokens` where the caller meant it
 * to stop (what checkpoint loading refuses for an `eos_token_id` past the vocabulary).
 */
export function checkOptionsForModel(model: LanguageModel, options: GenerationOptions, subject: string): void {
  const { vocabSize } = model.config;
  const problems = (options.stopTokenIds ?? []).flatMap((id, index) =>
    id >= vocabSize
      ? [
          `options.stopTokenIds[${index}] is ${id}, outside the model's vocabulary of ${vocabSize} ids (0 to ${vocabSize - 1})`,
        ]
      : [],
  );
  if (problems.length > 0) throw new InvalidOptionsError(subject, problems);
}

/** One prompt: its tokens, and optionally a cache of a prefix of them (a tree node to branch from). */
export interface GenerationRequest {
  /** The whole prompt. Default: the cache's tokens. */
  readonly tokens?: readonly number[];
  /**
   * Keys/values for a prefix of `tokens`: only the rest is run. Checked: live, a prefix, computed with the call's
   * adapter and shaped as this model's layers, its `nextLogits` (if any) one per vocabulary id and no NaN.
   */
  readonly cache?: KvCache;
  /** This row's sampling seed, an integer (overrides the options' seed). */
  readonly seed?: number;
  /** This row's token limit, at most the options' `maxTokens` (a rollout's remaining budget). */
  readonly maxTokens?: number;
}

export interface Generation {
  /** The generated tokens, a stop token included. */
  readonly tokens: number[];
  /** log π(token) of each generated token under the model (temperature 1, no top-p). */
  readonly logprobs: number[];
  /**
   * With the option `topLogprobs` > 0: at each generated token, the likeliest tokens of the same distribution as
   * `logprobs`, likeliest first (ties: lower id first).
   */
  readonly topLogprobs?: TokenLogprob[][];
  /** The generated text, cut before a stop sequence, without a stop token. */
  readonly text: string;
  readonly finishReason: 'stop' | 'length';
  readonly promptTokens: number;
  /** With `keepCache`: the prompt and generated tokens, to continue or fork from. */
  readonly cache?: KvCache;
  /**
   * With `keepCache`: the logits after the prompt (what the first token was sampled from), so that
   * `cache.prefixOf(promptTokens, promptLogits)` is the prompt's own cache, ready to sample from.
   */
  readonly promptLogits?: Float32Array;
}

const fusedCaches = new WeakMap<LanguageModel, FusedWeightsCache>();

/**
 * The weights in the fused decoder's layout, where the backend has its kernels (wasm, webgpu), so every decode step
 * runs ~11 ops a layer instead of ~100: kept between calls on small models while their tensors are unchanged
 * (`owned` false), built for the call otherwise (the caller frees them).
 */
export function fusedWeights(
  model: LanguageModel,
  adapter: string | null,
): { weights: FusedWeights; owned: boolean } | undefined {
  if (!fusedDecoderAvailable(model.config)) return undefined;
  let cache = fusedCaches.get(model);
  if (!cache) {
    cache = new FusedWeightsCache(model.config);
    fusedCaches.set(model, cache);
  }
  return cache.acquire(model.parameters, adapter, model.resolveAdapter(adapter));
}

/**
 * Frees the fused weights generation keeps for `model` (one adapter's, or all of them when `adapter` is
 * undefined): the model calls it when it is disposed or loses an adapter.
 */
export function releaseFusedWeights(model: LanguageModel, adapter?: string | null): void {
  const cache = fusedCaches.get(model);
  if (!cache) return;
  if (adapter === undefined) {
    cache.dispose();
    fusedCaches.delete(model);
  } else {
    cache.release(adapter);
  }
}

/** A disposed model's weights are gone: tfjs would fail reading them with "Cannot read properties of undefined". */
export function assertModelLive(model: LanguageModel): void {
  if (model.disposed)
    throw new RangeError('This LanguageModel was disposed; load or create the model again to generate.');
}

/**
 * Ids the embedding has rows for. Checked here because backends differ: cpu and wasm throw their gather's message,
 * and a GPU gather reads a wrong row without a word.
 */
function checkTokenIds(model: LanguageModel, tokens: readonly number[], what: string): void {
  assertModelLive(model);
  const { vocabSize } = model.config;
  tokens.forEach((token, t) => {
    if (!Number.isInteger(token) || token < 0 || token >= vocabSize) {
      throw new TokenizerMismatchError(
        `${what}: token ${t} is ${token}, outside the model's vocabulary of ${vocabSize} ids.`,
      );
    }
  });
}

function checkPrefix(request: GenerationRequest, index: number): readonly number[] {
  const cache = request.cache;
  const tokens = request.tokens ?? cache?.tokens;
  if (!tokens) throw new RangeError(`Request ${index} has neither tokens nor a cache.`);
  if (cache) {
    cache.assertLive();
    if (cache.tokens.length > tokens.length || cache.tokens.some((token, i) => tokens[i] !== token)) {
      throw new RangeError(`Request ${index}: the cache's tokens are not a prefix of the request's tokens.`);
    }
  }
  return tokens;
}

/**
 * A cache this model can continue: its keys and values shaped as this model's layers make them, and logits (a
 * `prefixOf`'s, which the caller hands in) with one finite (or −∞) entry per vocabulary id. Both would otherwise be
 * used as they are: another model's cache ran (its first layers, read with this model's head size) and a short
 * logits row sampled with the missing ids read as 0, a long one spilling into the next row's logits.
 */
function checkCacheFits(model: LanguageModel, cache: KvCache, subject: string, what: string): void {
  const { numLayers, numKvHeads, headDim, vocabSize } = model.config;
  const layers = cache.layers;
  const misshapen = layers.findIndex((layer) => {
    const [batch, heads, slots, size] = layer.k.shape;
    return batch !== 1 || heads !== numKvHeads || size !== headDim || slots < cache.cachedLength;
  });
  if ((layers.length !== numLayers && cache.cachedLength > 0) || misshapen >= 0) {
    const shape = layers[Math.max(misshapen, 0)]?.k.shape;
    throw new InvalidOptionsError(subject, [
      `${what}.layers hold ${layers.length} layers of keys shaped [${shape?.join(', ') ?? ''}], not this model's ` +
        `${numLayers} layers of [1, ${numKvHeads}, ≥ ${cache.cachedLength}, ${headDim}]: the cache was computed by another model`,
    ]);
  }
  const logits = cache.nextLogits;
  if (!logits) return;
  if (logits.length !== vocabSize) {
    throw new InvalidOptionsError(subject, [
      `${what}.nextLogits has ${logits.length} entries, not the model's vocabulary size ${vocabSize} ` +
        "(give prefixOf the generation's promptLogits)",
    ]);
  }
  // −∞ is a token never drawn; NaN or +∞ would make every weight NaN, and the draw the last id.
  const bad = logits.findIndex((logit) => Number.isNaN(logit) || logit === Number.POSITIVE_INFINITY);
  if (bad >= 0) {
    throw new InvalidOptionsError(subject, [
      `${what}.nextLogits[${bad}] is ${logits[bad]}; expected a finite number or -Infinity`,
    ]);
  }
}

/**
 * The whole prompt of request `index`, after the checks every generation makes: a live cache that is a prefix
 * of the tokens and was computed with `adapter`, a prompt that is not empty and fits the context, a whole
 * `maxTokens`.
 */
export function requestTokens(
  model: LanguageModel,
  request: GenerationRequest,
  index: number,
  adapter: string | null,
): readonly number[] {
  const tokens = checkPrefix(request, index);
  checkTokenIds(model, tokens, `Request ${index}`);
  if (request.cache) checkCacheFits(model, request.cache, 'generate', `request ${index}: cache`);
  // Options' seeds are integers; SeededRng truncates, so a request's 1.5 would silently draw 1's tokens.
  if (request.seed !== undefined && !Number.isSafeInteger(request.seed)) {
    throw new InvalidOptionsError('generate', [
      `request ${index}: seed must be an integer (got ${String(request.seed)})`,
    ]);
  }
  if (request.cache && request.cache.adapter !== adapter) {
    throw new RangeError(
      `Request ${index}: its cache was computed with adapter ${JSON.stringify(request.cache.adapter)}, not ${JSON.stringify(adapter)}.`,
    );
  }
  if (tokens.length === 0) throw new RangeError(`Request ${index} has an empty prompt.`);
  // Checked before anything runs: sampling would otherwise read the missing logits (a TypeError from deep inside).
  if (request.cache && request.cache.cachedLength === tokens.length && !request.cache.nextLogits)
    throw new RangeError(`Request ${index}: its cache has no logits; add tokens after it.`);
  const own = request.maxTokens;
  if (own !== undefined && (!Number.isInteger(own) || own < 0))
    throw new RangeError(`Request ${index}: maxTokens is ${String(own)}; expected an integer >= 0.`);
  const limit = model.config.maxPositions;
  if (tokens.length > limit) throw new ContextLengthError(tokens.length, limit, `prompt of request ${index}`);
  return tokens;
}

/**
 * Runs `tokens` after `from` (or from nothing) and returns the cache of all of them: a node to branch
 * generation from, any number of times (each `generate` forks nothing it does not own).
 */
export function prefill(
  model: LanguageModel,
  tokens: readonly number[],
  options: { from?: KvCache; adapter?: string | null } = {},
): KvCache {
  const adapter = options.adapter ?? null;
  const request: GenerationRequest = options.from ? { tokens, cache: options.from } : { tokens };
  checkPrefix(request, 0);
  checkTokenIds(model, tokens, 'prefill');
  if (options.from) checkCacheFits(model, options.from, 'prefill', 'from');
  if (options.from && options.from.adapter !== adapter) {
    throw new RangeError(
      `The cache was computed with adapter ${JSON.stringify(options.from.adapter)}, not ${JSON.stringify(adapter)}.`,
    );
  }
  if (tokens.length > model.config.maxPositions) throw new ContextLengthError(tokens.length, model.config.maxPositions);
  const cachedLength = options.from?.cachedLength ?? 0;
  if (cachedLength === tokens.length && options.from?.nextLogits) return options.from.fork();
  if (tokens.length === 0) throw new RangeError('prefill needs at least one token.');
  // Nothing left to run, and no logits to hand on (tfjs failed on the empty chunk with "negative begin indexing").
  if (cachedLength === tokens.length)
    throw new RangeError('prefill: the cache `from` holds every token but no logits after them; add tokens after it.');
  const state = stackCaches(model, [options.from]);
  const fused = fusedWeights(model, adapter);
  let ran: ReturnType<typeof runChunk>;
  try {
    ran = runChunk(model, state, [tokens.slice(cachedLength)], [cachedLength], adapter, fused?.weights);
  } finally {
    if (fused?.owned) fused.weights.dispose();
  }
  const { logits, state: grown } = ran;
  disposeLayers(state.layers);
  const cache = extractRow(grown, 0, tokens, adapter, logits);
  disposeLayers(grown.layers);
  return cache;
}

/**
 * Batched sampling with a KV cache: each request's prompt (after its cached prefix, if any) is run in
 * one left-padded batch, then tokens are drawn step by step for all unfinished rows at once with
 * temperature / top-p from seeded generators. Rows leave the batch when they hit a stop token, a stop
 * sequence, maxTokens or the context limit. Same seed, same requests → same tokens.
 */
export function generate(
  model: LanguageModel,
  requests: readonly GenerationRequest[],
  input: Partial<GenerationOptions> = {},
): Generation[] {
  const run = startGeneration(model, requests, input, 'generate');
  if (run === null) return [];
  try {
    for (;;) {
      const next = run.steps.next();
      if (next.done) return next.value;
    }
  } finally {
    run.release();
  }
}

/**
 * `generate`, letting the event loop run between decoder passes (at most every ~50 ms of work, `eventLoopYielder`):
 * a long generation on the cpu backend otherwise held the process deaf to signals and timers until it ended (a
 * trainer's Ctrl-C waited for the whole rollout). The same tokens as `generate`; the caller must not change the
 * model (train it, dispose it) before the promise settles.
 */
export async function generateYielding(
  model: LanguageModel,
  requests: readonly GenerationRequest[],
  input: Partial<GenerationOptions> = {},
): Promise<Generation[]> {
  const run = startGeneration(model, requests, input, 'generateYielding');
  if (run === null) return [];
  const pause = eventLoopYielder();
  try {
    for (;;) {
      const next = run.steps.next();
      if (next.done) return next.value;
      await pause();
    }
  } finally {
    run.release();
  }
}

/** A checked generation: its decoder passes, one per `next()`, and what frees its fused weights. */
interface StartedGeneration {
  readonly steps: Generator<void, Generation[], void>;
  readonly release: () => void;
}

/** The checks `generate` makes before any pass, then the passes to run; null for no requests. */
function startGeneration(
  model: LanguageModel,
  requests: readonly GenerationRequest[],
  input: Partial<GenerationOptions>,
  caller: string,
): StartedGeneration | null {
  const options = validateOptions(input);
  assertModelLive(model);
  checkOptionsForModel(model, options, caller);
  const adapter = options.adapter ?? null;
  const prompts = requests.map((request, i) => requestTokens(model, request, i, adapter));
  if (requests.length === 0) return null;
  const fused = fusedWeights(model, adapter);
  return {
    steps: sample(model, requests, prompts, options, fused?.weights),
    release: () => {
      if (fused?.owned) fused.weights.dispose();
    },
  };
}

/**
 * `generate` after its checks: prefill, then decode steps until every row has finished, pausing (`yield`) after
 * each pass; the generation is its return value.
 */
function* sample(
  model: LanguageModel,
  requests: readonly GenerationRequest[],
  prompts: readonly (readonly number[])[],
  options: GenerationOptions,
  fused: FusedWeights | undefined,
): Generator<void, Generation[], void> {
  const adapter = options.adapter ?? null;
  const limit = model.config.maxPositions;
  const ends: RowStops = {
    stopIds: new Set(options.stopTokenIds ?? model.tokenizer.eosTokenIds),
    stops: options.stop ?? [],
  };

  const draws: RowDraw[] = prompts.map((prompt, i) => ({
    rng: new SeededRng(requests[i]!.seed ?? mixSeed(options.seed, i)),
    budget: Math.min(options.maxTokens, requests[i]!.maxTokens ?? Infinity, limit - prompt.length + 1),
    tokens: [],
    logprobs: [],
    ...(options.topLogprobs ? { topLogprobs: [] } : {}),
    ...(repeatsPenalised(options) ? { prompt } : {}),
    text: '',
  }));
  const finish: ('stop' | 'length' | null)[] = prompts.map(() => null);
  const caches: (KvCache | undefined)[] = prompts.map(() => undefined);

  // Prefill: every row's uncached prompt tokens in one batch.
  let state = stackCaches(
    model,
    requests.map((request) => request.cache),
  );
  const cachedLengths = requests.map((request) => request.cache?.cachedLength ?? 0);
  const chunks = prompts.map((prompt, i) => prompt.slice(cachedLengths[i]));
  let logits: Float32Array;
  const V = model.config.vocabSize;
  if (chunks.some((chunk) => chunk.length > 0)) {
    const ran = runChunk(model, state, chunks, cachedLengths, adapter, fused);
    disposeLayers(state.layers);
    state = ran.state;
    logits = ran.logits;
    requests.forEach((request, i) => {
      if (chunks[i]!.length === 0) logits.set(request.cache!.nextLogits!, i * V);
    });
  } else {
    logits = new Float32Array(prompts.length * V);
    requests.forEach((request, i) => logits.set(request.cache!.nextLogits!, i * V));
  }
  const promptLogits = options.keepCache
    ? prompts.map((_, i) => logits.slice(i * V, (i + 1) * V))
    : prompts.map(() => undefined);

  // Every slot the decode steps can add (one a step after each row's first token): the first step moves the
  // cache into a buffer this size, and every later step appends in place.
  const capacity = (state.valid[0]?.length ?? 0) + Math.max(...draws.map((draw) => draw.budget));
  // The request row at each position of the batch state; finished rows stay until the next compaction.
  let rows = prompts.map((_, i) => i);
  const closeRow = (row: number, position: number, reason: 'stop' | 'length'): void => {
    finish[row] = reason;
    if (options.keepCache) {
      // A row that drew nothing (maxTokens 0) ends where its prompt does: the logits after it are its promptLogits,
      // so its cache can be sampled from at once, as a prefill's can.
      const drewNothing = draws[row]!.tokens.length === 0;
      const nextLogits = drewNothing ? (promptLogits[row] ?? null) : null;
      caches[row] = extractRow(state, position, [...prompts[row]!, ...draws[row]!.tokens], adapter, nextLogits);
    }
  };

  for (;;) {
    const next: number[] = [];
    rows.forEach((row, position) => {
      if (finish[row] !== null) return;
      const outcome = drawToken(model, logits.subarray(position * V, (position + 1) * V), options, draws[row]!, ends);
      if (outcome !== 'continue') {
        closeRow(row, position, outcome);
        return;
      }
      next.push(position);
    });
    if (next.length === 0) break;
    // Dropping finished rows copies the whole cache (a gather per layer). Done each time a row finished, that
    // is one copy per row, which took half of a tree rollout's time (its rows end at scattered turns); done
    // once a quarter of the state is finished rows, it is O(log B) copies per call, and the finished rows
    // ride along meanwhile (an empty chunk: masked, no position) for at most a third more compute.
    if (next.length <= rows.length * 0.75) {
      state = selectRows(state, next);
      rows = next.map((position) => rows[position]!);
    }
    const ran = runChunk(
      model,
      state,
      rows.map((row) => (finish[row] === null ? [draws[row]!.tokens.at(-1)!] : [])),
      rows.map((row) => (finish[row] === null ? prompts[row]!.length + draws[row]!.tokens.length - 1 : 0)),
      adapter,
      fused,
      capacity,
    );
    disposeLayers(state.layers);
    state = ran.state;
    logits = ran.logits;
    yield;
  }
  disposeLayers(state.layers);

  return prompts.map((prompt, row) =>
    rowGeneration(model, draws[row]!, prompt.length, finish[row] ?? null, ends.stopIds, caches[row], promptLogits[row]),
  );
}
