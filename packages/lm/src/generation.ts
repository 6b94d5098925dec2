import * as tf from '@tensorflow/tfjs';
import { defineOptions, mixSeed, SeededRng, type JSONSchemaType } from '@turngym/core';
import { languageModelHead, runDecoder, type LayerCache } from './decoder';
import { type FusedWeights, fusedDecoderAvailable, runFusedDecoder } from './internal/fused-decoder';
import { FusedWeightsCache } from './internal/fused-weights-cache';
import { ropeTables } from './internal/rope-tables';
import { STACK_CACHES, type StackCachesAttrs } from './internal/wasm-stack-caches';
import { KvCache } from './kv-cache';
import type { LanguageModel } from './language-model';
import { ContextLengthError } from './lm-errors';
import { sampleToken } from './sampling';
import { MASKED } from './token-batch';

export interface GenerationOptions {
  /** Most tokens to generate per request (fewer near the context limit). */
  maxTokens: number;
  /** 0 = greedy. */
  temperature: number;
  topP: number;
  /** Generation ends when the text contains one; the text is cut before it (the tokens are kept). */
  stop?: string[];
  /** Token ids that end generation (default: the tokenizer's eos ids); kept in `tokens`, not in `text`. */
  stopTokenIds?: number[];
  /** Row i samples from SeededRng(mixSeed(seed, i)) unless its request has its own seed. */
  seed: number;
  /** The LoRA adapter to generate with; null = the base model. */
  adapter?: string | null;
  /** Return each row's KvCache (prompt + generated tokens) to continue or fork from. */
  keepCache: boolean;
}

export const generationOptionsSchema: JSONSchemaType<GenerationOptions> = {
  type: 'object',
  additionalProperties: false,
  required: [],
  properties: {
    maxTokens: { type: 'integer', minimum: 0, default: 64 },
    temperature: { type: 'number', minimum: 0, default: 1 },
    topP: { type: 'number', exclusiveMinimum: 0, maximum: 1, default: 1 },
    stop: { type: 'array', items: { type: 'string', minLength: 1 }, nullable: true },
    stopTokenIds: { type: 'array', items: { type: 'integer', minimum: 0 }, nullable: true },
    seed: { type: 'integer', default: 0 },
    adapter: { type: 'string', nullable: true },
    keepCache: { type: 'boolean', default: false },
  },
};

const validateOptions = defineOptions<GenerationOptions>('generate', generationOptionsSchema);

/** One prompt: its tokens, and optionally a cache of a prefix of them (a tree node to branch from). */
export interface GenerationRequest {
  /** The whole prompt. Default: the cache's tokens. */
  readonly tokens?: readonly number[];
  /** Keys/values for a prefix of `tokens` (checked): only the rest is run. */
  readonly cache?: KvCache;
  /** This row's sampling seed (overrides the options' seed). */
  readonly seed?: number;
  /** This row's token limit, at most the options' `maxTokens` (a rollout's remaining budget). */
  readonly maxTokens?: number;
}

export interface Generation {
  /** The generated tokens, a stop token included. */
  readonly tokens: number[];
  /** log π(token) of each generated token under the model (temperature 1, no top-p). */
  readonly logprobs: number[];
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

/**
 * The batch's keys/values, per layer [B, kvHeads, C, headDim] with C ≥ S (on wasm, a buffer that decode steps
 * append to in place; its slots after S are unspecified), and which of the S slots each row may see.
 */
interface BatchState {
  layers: LayerCache[];
  /** valid[row][slot] */
  valid: boolean[][];
}

function disposeLayers(layers: readonly LayerCache[]): void {
  for (const layer of layers) {
    layer.k.dispose();
    layer.v.dispose();
  }
}

/**
 * Runs `chunks[i]` (left-padded to a common length) through the decoder on top of `state`, at the given
 * start positions. Returns logits after each row's last chunk token ([B, V] data) and the grown state.
 */
function runChunk(
  model: LanguageModel,
  state: BatchState,
  chunks: readonly (readonly number[])[],
  startPositions: readonly number[],
  adapter: string | null,
  fused: FusedWeights | undefined,
  capacity?: number,
): { logits: Float32Array; state: BatchState } {
  const { config } = model;
  const B = chunks.length;
  const T = Math.max(...chunks.map((chunk) => chunk.length));
  const past = state.valid[0]?.length ?? 0;
  const S = past + T;
  const tokens = new Int32Array(B * T).fill(model.tokenizer.padTokenId);
  const positions = new Int32Array(B * T);
  const mask = new Float32Array(B * T * S).fill(MASKED);
  const valid = state.valid.map((row) => [...row]);
  chunks.forEach((chunk, b) => {
    const offset = T - chunk.length;
    const row = valid[b] ?? [];
    for (let c = 0; c < T; c++) {
      const real = c >= offset;
      row.push(real);
      if (!real) continue;
      tokens[b * T + c] = chunk[c - offset] as number;
      positions[b * T + c] = (startPositions[b] as number) + c - offset;
      const base = (b * T + c) * S;
      for (let s = 0; s < past; s++) if (state.valid[b]![s]) mask[base + s] = 0;
      for (let k = offset; k <= c; k++) mask[base + past + k] = 0;
    }
    valid[b] = row;
  });
  const resolved = fused ? undefined : model.resolveAdapter(adapter);
  const result = tf.tidy(() => {
    const tables = ropeTables(model.frequencies, positions);
    const input = {
      tokens: tf.tensor2d(tokens, [B, T], 'int32'),
      cos: tf.tensor2d(tables.cos, [B * T, config.headDim]),
      sin: tf.tensor2d(tables.sin, [B * T, config.headDim]),
      mask: tf.tensor4d(mask, [B, 1, T, S]),
      ...(past > 0 ? { past: state.layers } : {}),
    };
    const output = fused
      ? runFusedDecoder(config, fused, input, capacity !== undefined ? { capacity } : {})
      : runDecoder(config, model.parameters, input, {
          keepCache: true,
          releaseLayers: true,
          ...(resolved ? { adapter: resolved } : {}),
        });
    const last = tf.reshape(
      tf.slice(tf.reshape(output.hidden, [B, T, config.hiddenSize]), [0, T - 1, 0], [B, 1, config.hiddenSize]),
      [B, config.hiddenSize],
    ) as tf.Tensor2D;
    const logits = fused ? tf.matMul(last, fused.head) : languageModelHead(model.parameters, last);
    return { logits, present: output.present! };
  });
  const logits = result.logits.dataSync() as Float32Array;
  result.logits.dispose();
  return { logits, state: { layers: result.present, valid } };
}

/** Stacks per-row caches (different lengths) into one left-padded batch state. */
function stackCaches(model: LanguageModel, caches: readonly (KvCache | undefined)[]): BatchState {
  const lengths = caches.map((cache) => cache?.cachedLength ?? 0);
  const longest = Math.max(...lengths);
  const valid = lengths.map((length) => Array.from({ length: longest }, (_, s) => s >= longest - length));
  if (longest === 0) return { layers: [], valid: caches.map(() => []) };
  const { numKvHeads, headDim } = model.config;
  if (tf.getKernel(STACK_CACHES, tf.getBackend())) {
    // wasm: one heap copy per row, the padding zero-filled in place.
    const attrs = { lengths, numKvHeads, headDim } satisfies StackCachesAttrs as unknown as tf.NamedAttrMap;
    const stack = (layer: number, part: 'k' | 'v'): tf.Tensor4D =>
      tf
        .engine()
        .runKernel(
          STACK_CACHES,
          Object.fromEntries(
            caches
              .flatMap((cache) => (cache && cache.cachedLength > 0 ? [cache.layers[layer]![part]] : []))
              .map((tensor, index) => [`row${index}`, tensor]),
          ),
          attrs,
        ) as tf.Tensor4D;
    const layers = Array.from({ length: model.config.numLayers }, (_, layer) => ({
      k: stack(layer, 'k'),
      v: stack(layer, 'v'),
    }));
    return { layers, valid };
  }
  // Elsewhere (webgpu, cpu): one concat of every row's cache and one gather that lays them out left-padded, per
  // layer and part. Padding and concatenating row by row made three ops a row — 30,000 a turn for a GRPO batch
  // of 1,024 rollouts, each a GPU dispatch. The concat is along the slot axis of [1, heads, S_r, headDim], so
  // row r's slot s of head h sits at (h·ΣS + offset_r + s) in the [heads·ΣS, headDim] view; a last zero slot
  // serves every padded one. A `prefixOf` view's extra slots are never indexed.
  const present = caches.map((cache) => (cache && cache.cachedLength > 0 ? cache : null));
  const widths = present.map((cache) => cache?.layers[0]!.k.shape[2] ?? 0);
  const total = widths.reduce((sum, width) => sum + width, 0) + 1;
  const index = new Int32Array(caches.length * numKvHeads * longest);
  let offset = 0;
  present.forEach((cache, row) => {
    const length = lengths[row] as number;
    const pad = longest - length;
    for (let h = 0; h < numKvHeads; h++) {
      const base = (row * numKvHeads + h) * longest;
      for (let s = 0; s < longest; s++) {
        index[base + s] = s < pad || !cache ? total - 1 : h * total + offset + (s - pad);
      }
    }
    offset += widths[row] as number;
  });
  const layers = tf.tidy(() => {
    const gatherIndex = tf.tensor1d(index, 'int32');
    const zero = tf.zeros([1, numKvHeads, 1, headDim]);
    return Array.from({ length: model.config.numLayers }, (_, layer) => {
      const stack = (part: 'k' | 'v'): tf.Tensor4D => {
        const parts = present.flatMap((cache) => (cache ? [cache.layers[layer]![part]] : []));
        const all = tf.reshape(tf.concat([...parts, zero], 2), [numKvHeads * total, headDim]);
        return tf.reshape(tf.gather(all, gatherIndex, 0), [caches.length, numKvHeads, longest, headDim]);
      };
      return { k: stack('k'), v: stack('v') };
    });
  });
  return { layers, valid };
}

const fusedCaches = new WeakMap<LanguageModel, FusedWeightsCache>();

/**
 * The weights in the fused decoder's layout, where the backend has its kernels (wasm), so every decode step
 * runs ~11 ops a layer instead of ~100: kept between calls on small models while their tensors are unchanged
 * (`owned` false), built for the call otherwise (the caller frees them).
 */
function fusedWeights(
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

/** Row `row` of the batch state as a KvCache (only its valid slots). */
function extractRow(
  state: BatchState,
  row: number,
  tokens: readonly number[],
  adapter: string | null,
  nextLogits: Float32Array | null,
): KvCache {
  const slots = state.valid[row]!.flatMap((ok, s) => (ok ? [s] : []));
  if (state.layers.length === 0) return new KvCache(tokens, slots.length, [], adapter, nextLogits);
  // One gather of the row's valid slots from a [B·heads·T, headDim] view (a reshape copies nothing): wasm's
  // Slice on the 4-D state read the whole batch's cache back to JS for every finished row. Every layer's
  // cache has the same shape, so one index serves them all.
  const [, heads, T, headDim] = state.layers[0]!.k.shape;
  const layers = tf.tidy(() => {
    const index = tf.tensor1d(
      Array.from({ length: heads }, (_, h) => slots.map((slot) => (row * heads + h) * T + slot)).flat(),
      'int32',
    );
    const pick = (part: tf.Tensor4D): tf.Tensor4D =>
      tf.reshape(tf.gather(tf.reshape(part, [-1, headDim]), index, 0), [1, heads, slots.length, headDim]);
    return state.layers.map(({ k, v }) => ({ k: pick(k), v: pick(v) }));
  });
  return new KvCache(tokens, slots.length, layers, adapter, nextLogits);
}

/** Keeps only `rows` of the batch state (finished rows leave the batch, so later steps cost less). */
function selectRows(state: BatchState, rows: readonly number[]): BatchState {
  const layers = tf.tidy(() => {
    const index = tf.tensor1d([...rows], 'int32');
    return state.layers.map(({ k, v }) => ({
      k: tf.gather(k, index, 0) as tf.Tensor4D,
      v: tf.gather(v, index, 0) as tf.Tensor4D,
    }));
  });
  disposeLayers(state.layers);
  return { layers, valid: rows.map((row) => state.valid[row]!) };
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
  if (options.from && options.from.adapter !== adapter) {
    throw new RangeError(
      `The cache was computed with adapter ${JSON.stringify(options.from.adapter)}, not ${JSON.stringify(adapter)}.`,
    );
  }
  if (tokens.length > model.config.maxPositions) throw new ContextLengthError(tokens.length, model.config.maxPositions);
  const cachedLength = options.from?.cachedLength ?? 0;
  if (cachedLength === tokens.length && options.from?.nextLogits) return options.from.fork();
  if (tokens.length === 0) throw new RangeError('prefill needs at least one token.');
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
  const options = validateOptions(input);
  const adapter = options.adapter ?? null;
  const limit = model.config.maxPositions;
  const prompts = requests.map((request, i) => {
    const tokens = checkPrefix(request, i);
    if (request.cache && request.cache.adapter !== adapter) {
      throw new RangeError(
        `Request ${i}: its cache was computed with adapter ${JSON.stringify(request.cache.adapter)}, not ${JSON.stringify(adapter)}.`,
      );
    }
    if (tokens.length === 0) throw new RangeError(`Request ${i} has an empty prompt.`);
    const own = request.maxTokens;
    if (own !== undefined && (!Number.isInteger(own) || own < 0))
      throw new RangeError(`Request ${i}: maxTokens is ${String(own)}; expected an integer >= 0.`);
    if (tokens.length > limit) throw new ContextLengthError(tokens.length, limit, `prompt of request ${i}`);
    return tokens;
  });
  if (requests.length === 0) return [];
  const fused = fusedWeights(model, adapter);
  try {
    return sample(model, requests, prompts, options, fused?.weights);
  } finally {
    if (fused?.owned) fused.weights.dispose();
  }
}

/** `generate` after its checks: prefill, then decode steps until every row has finished. */
function sample(
  model: LanguageModel,
  requests: readonly GenerationRequest[],
  prompts: readonly (readonly number[])[],
  options: GenerationOptions,
  fused: FusedWeights | undefined,
): Generation[] {
  const adapter = options.adapter ?? null;
  const limit = model.config.maxPositions;
  const stopIds = new Set(options.stopTokenIds ?? model.tokenizer.eosTokenIds);
  const stops = options.stop ?? [];

  const rngs = requests.map((request, i) => new SeededRng(request.seed ?? mixSeed(options.seed, i)));
  const budgets = prompts.map((prompt, i) =>
    Math.min(options.maxTokens, requests[i]!.maxTokens ?? Infinity, limit - prompt.length + 1),
  );
  const generated = prompts.map(() => [] as number[]);
  const logprobs = prompts.map(() => [] as number[]);
  const texts = prompts.map(() => '');
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
  // A row whose cache is complete and whose prompt adds nothing has no logits yet only if nextLogits was null.
  requests.forEach((request, i) => {
    if (chunks[i]!.length === 0 && !request.cache?.nextLogits)
      throw new RangeError(`Request ${i}: its cache has no logits; add tokens after it.`);
  });

  const promptLogits = options.keepCache
    ? prompts.map((_, i) => logits.slice(i * V, (i + 1) * V))
    : prompts.map(() => undefined);

  // Every slot the decode steps can add (one a step after each row's first token): the first step moves the
  // cache into a buffer this size, and every later step appends in place.
  const capacity = (state.valid[0]?.length ?? 0) + Math.max(...budgets);
  // The request row at each position of the batch state; finished rows stay until the next compaction.
  let rows = prompts.map((_, i) => i);
  const closeRow = (row: number, position: number, reason: 'stop' | 'length'): void => {
    finish[row] = reason;
    if (options.keepCache) {
      caches[row] = extractRow(state, position, [...prompts[row]!, ...generated[row]!], adapter, null);
    }
  };

  for (;;) {
    const next: number[] = [];
    rows.forEach((row, position) => {
      if (finish[row] !== null) return;
      if (budgets[row]! <= 0) {
        closeRow(row, position, 'length');
        return;
      }
      const { token, logprob } = sampleToken(logits.subarray(position * V, (position + 1) * V), options, rngs[row]!);
      generated[row]!.push(token);
      logprobs[row]!.push(logprob);
      if (stopIds.has(token)) {
        closeRow(row, position, 'stop');
        return;
      }
      if (stops.length > 0) {
        const text = model.tokenizer.decode(generated[row]!);
        const hit = stops.map((stop) => text.indexOf(stop)).filter((index) => index >= 0);
        if (hit.length > 0) {
          texts[row] = text.slice(0, Math.min(...hit));
          closeRow(row, position, 'stop');
          return;
        }
      }
      if (generated[row]!.length >= budgets[row]!) {
        closeRow(row, position, 'length');
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
      rows.map((row) => (finish[row] === null ? [generated[row]!.at(-1)!] : [])),
      rows.map((row) => (finish[row] === null ? prompts[row]!.length + generated[row]!.length - 1 : 0)),
      adapter,
      fused,
      capacity,
    );
    disposeLayers(state.layers);
    state = ran.state;
    logits = ran.logits;
  }
  disposeLayers(state.layers);

  return prompts.map((prompt, row) => {
    const tokens = generated[row]!;
    const endsWithStopToken = tokens.length > 0 && stopIds.has(tokens.at(-1)!);
    const text =
      finish[row] === 'stop' && !endsWithStopToken
        ? texts[row]!
        : model.tokenizer.decode(endsWithStopToken ? tokens.slice(0, -1) : tokens);
    const cache = caches[row];
    const rowLogits = promptLogits[row];
    return {
      tokens,
      logprobs: logprobs[row]!,
      text,
      finishReason: finish[row] ?? 'length',
      promptTokens: prompt.length,
      ...(cache ? { cache } : {}),
      ...(rowLogits ? { promptLogits: rowLogits } : {}),
    };
  });
}
