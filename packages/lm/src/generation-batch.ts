import { defineOptions, InvalidOptionsError, mixSeed, SeededRng } from '@turngym/core';
import {
  type BatchState,
  cacheState,
  disposeLayers,
  extractRow,
  packRows,
  runChunk,
  stackCaches,
  type RowSource,
} from './internal/batch-state';
import { drawToken, repeatsPenalised, rowGeneration, type RowDraw, type RowStops } from './internal/row-draw';
import {
  assertModelLive,
  checkOptionsForModel,
  fusedWeights,
  generationOptionsSchema,
  requestTokens,
} from './generation';
import type { Generation, GenerationOptions, GenerationRequest } from './generation';
import type { KvCache } from './kv-cache';
import type { LanguageModel } from './language-model';
import type { TokenLogprob } from './top-logprobs';

const validateOptions = defineOptions<GenerationOptions>('GenerationBatch', generationOptionsSchema);

/** A row of the batch: its prompt, what it drew, and what the next pass runs for it. */
interface BatchRow {
  readonly ticket: number;
  readonly prompt: readonly number[];
  readonly draw: RowDraw;
  /** The request's cache (not owned), until the row has joined the batch state. */
  cache: KvCache | undefined;
  /** The tokens the next pass runs for the row (its uncached prompt, then its last drawn token), and where. */
  input: readonly number[];
  position: number;
  /** The logits the row draws its next token from, once a pass (or its cache) has given them. */
  logits: Float32Array | null;
  promptLogits: Float32Array | undefined;
  finish: 'stop' | 'length' | null;
}

/** A row still drawing: the ticket `add` returned, and its tokens and their logprobs so far (live, read-only). */
export interface RowInFlight {
  readonly ticket: number;
  readonly tokens: readonly number[];
  readonly logprobs: readonly number[];
  /** With the option `topLogprobs`: the likeliest alternatives at each drawn token so far. */
  readonly topLogprobs?: readonly (readonly TokenLogprob[])[];
}

/** A row that finished in a step: the ticket `add` returned, and its generation. */
export interface FinishedRow {
  readonly ticket: number;
  readonly generation: Generation;
}

/**
 * Generation whose rows join and leave between decoder passes (continuous batching): `add` queues a request,
 * each `step` runs one pass over every unfinished row — a row that joined runs its uncached prompt tokens in it,
 * the others their last token — and returns the rows that finished. A rollout engine adds a rollout's next turn
 * as soon as its env has answered, instead of waiting for the slowest row of the turn; on a GPU, where a pass
 * costs about the same for 64 rows as for 1,024, that is what the rollouts' time is counted in.
 *
 * A row draws exactly what `generate` would draw for the same request (the same seeded generator, stops and
 * limits; `seed` mixed with the row's ticket where the request has no seed), from logits that differ only by
 * float rounding where the batch around it differs. Options as `generate`'s; `dispose` frees the batch. The
 * weights are read as the batch is made (on wasm, in the fused layout): train the model only once it is disposed.
 */
export class GenerationBatch {
  private readonly options: GenerationOptions;
  private readonly adapter: string | null;
  private readonly ends: RowStops;
  private readonly fused: ReturnType<typeof fusedWeights>;
  private state: BatchState = { layers: [], valid: [] };
  /** The rows of the batch state, by position (finished rows stay until the state is packed again). */
  private rows: BatchRow[] = [];
  /** Rows added since the last step. */
  private joining: BatchRow[] = [];
  private tickets = 0;
  private disposed = false;
  private passCount = 0;
  private readonly joinPass: 'shared' | 'own';

  /**
   * `joinPass`: where rows that join run their uncached prompt tokens. `own` (the default): in a pass of their own
   * first, so the decoding rows are not padded to the joining rows' length. `shared`: in the step's one pass, beside
   * the other rows' last tokens — one pass a step instead of two. `own` wins on both kinds of device measured: 2.1×
   * faster on this CPU, and on an H200 (webgpu, 1,024 rows of GRPO rollouts) 3,274 generated tokens/s against
   * shared's 1,307, because at that width some row joins in almost every pass and pads every other row to its
   * observation (docs/benchmarks/perf.md, "On a GPU, fourth run"). Without the argument, TURNGYM_JOIN_PASS
   * (`shared` or `own`) overrides the default: the draws are the same either way, so a run can time both without
   * changing its arguments.
   */
  constructor(
    readonly model: LanguageModel,
    input: Partial<GenerationOptions> = {},
    { joinPass }: { joinPass?: 'shared' | 'own' } = {},
  ) {
    assertModelLive(model);
    this.options = validateOptions(input);
    checkOptionsForModel(model, this.options, 'GenerationBatch');
    if (joinPass !== undefined && joinPass !== 'shared' && joinPass !== 'own')
      throw new InvalidOptionsError('GenerationBatch', [
        `joinPass must be "shared" or "own" (got ${String(joinPass)})`,
      ]);
    const fromEnvironment = process.env.TURNGYM_JOIN_PASS?.trim();
    if (joinPass === undefined && fromEnvironment && fromEnvironment !== 'shared' && fromEnvironment !== 'own')
      throw new InvalidOptionsError('TURNGYM_JOIN_PASS', [`must be "shared" or "own" (got "${fromEnvironment}")`]);
    this.joinPass = joinPass ?? (fromEnvironment as 'shared' | 'own' | undefined) ?? 'own';
    this.adapter = this.options.adapter ?? null;
    if (this.adapter !== null) model.adapter(this.adapter);
    this.ends = {
      stopIds: new Set(this.options.stopTokenIds ?? model.tokenizer.eosTokenIds),
      stops: this.options.stop ?? [],
    };
    this.fused = fusedWeights(model, this.adapter);
  }

  /** Rows added and not finished yet. */
  get size(): number {
    return this.joining.length + this.rows.filter((row) => row.finish === null).length;
  }

  /** Decoder passes run so far (what a GPU's rollout time is counted in). */
  /**
   * The rows that joined and have not finished, with what they have drawn so far: what a server streams between
   * steps (`step` hands out only finished rows). The arrays are the rows' own, valid until the next `step`.
   */
  inFlight(): readonly RowInFlight[] {
    return this.rows
      .filter((row) => row.finish === null)
      .map((row) => ({
        ticket: row.ticket,
        tokens: row.draw.tokens,
        logprobs: row.draw.logprobs,
        ...(row.draw.topLogprobs ? { topLogprobs: row.draw.topLogprobs } : {}),
      }));
  }

  get passes(): number {
    return this.passCount;
  }

  /**
   * Queues a request (checked as `generate` checks it); it joins the batch at the next step. Returns its ticket,
   * which names it among the finished rows. The request's cache stays the caller's.
   */
  add(request: GenerationRequest): number {
    this.assertLive();
    // A refused request takes no ticket: the tickets, and the seeds mixed from them, stay those of the requests
    // accepted, in order, as `generate`'s indices are.
    const ticket = this.tickets;
    const prompt = requestTokens(this.model, request, ticket, this.adapter);
    const cached = request.cache?.cachedLength ?? 0;
    this.tickets += 1;
    const limit = this.model.config.maxPositions;
    this.joining.push({
      ticket,
      prompt,
      draw: {
        rng: new SeededRng(request.seed ?? mixSeed(this.options.seed, ticket)),
        budget: Math.min(this.options.maxTokens, request.maxTokens ?? Infinity, limit - prompt.length + 1),
        tokens: [],
        logprobs: [],
        ...(this.options.topLogprobs ? { topLogprobs: [] } : {}),
        ...(repeatsPenalised(this.options) ? { prompt } : {}),
        text: '',
      },
      cache: request.cache,
      input: prompt.slice(cached),
      position: cached,
      logits: cached === prompt.length ? request.cache!.nextLogits : null,
      promptLogits: undefined,
      finish: null,
    });
    return ticket;
  }

  /**
   * One decoder pass: the rows with logits draw their next token (those that stop or reach their limit
   * finish), the rows added since the last step join, then every unfinished row runs its new tokens. Returns
   * the rows that finished, in the batch's order; nothing when no row is left.
   */
  step(): FinishedRow[] {
    this.assertLive();
    const finished: FinishedRow[] = [];
    this.drawFor(this.rows, finished);
    const live = this.rows.flatMap((row, position) => (row.finish === null ? [position] : []));
    if (this.joining.length > 0 || live.length <= this.rows.length * 0.75) this.pack(live);
    // Rows that joined draw their first token: from their own pass's logits, or their complete cache's.
    this.drawFor(this.rows, finished);
    if (!this.rows.some((row) => row.input.length > 0)) return finished;
    const grown = this.runPass(this.state, this.rows);
    disposeLayers(this.state.layers);
    this.state = grown;
    return finished;
  }

  /** Frees the batch state (and the fused weights it made); the caches it handed out stay the caller's. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    disposeLayers(this.state.layers);
    this.state = { layers: [], valid: [] };
    if (this.fused?.owned) this.fused.weights.dispose();
  }

  /** Every row of `rows` with logits draws its next token; a row that ends is handed out with its cache. */
  private drawFor(rows: readonly BatchRow[], finished: FinishedRow[]): void {
    rows.forEach((row, position) => {
      const logits = row.logits;
      if (row.finish !== null || logits === null) return;
      row.logits = null;
      if (row.draw.tokens.length === 0 && this.options.keepCache) row.promptLogits = logits;
      const outcome = drawToken(this.model, logits, this.options, row.draw, this.ends);
      if (outcome === 'continue') {
        row.input = [row.draw.tokens.at(-1)!];
        row.position = row.prompt.length + row.draw.tokens.length - 1;
        return;
      }
      row.finish = outcome;
      // A row that drew nothing (maxTokens 0) keeps the logits after its prompt, as `generate` does.
      const nextLogits = row.draw.tokens.length === 0 ? logits : null;
      const cache = this.options.keepCache
        ? extractRow(this.state, position, [...row.prompt, ...row.draw.tokens], this.adapter, nextLogits)
        : undefined;
      finished.push({
        ticket: row.ticket,
        generation: rowGeneration(
          this.model,
          row.draw,
          row.prompt.length,
          row.finish,
          this.ends.stopIds,
          cache,
          row.promptLogits,
        ),
      });
    });
  }

  /**
   * Runs each row's new tokens (`input`) in one pass on top of `state`; the rows that ran get the logits after
   * them. Returns the grown state (the caller frees `state`).
   */
  private runPass(state: BatchState, rows: readonly BatchRow[]): BatchState {
    const ran = runChunk(
      this.model,
      state,
      rows.map((row) => row.input),
      rows.map((row) => row.position),
      this.adapter,
      this.fused?.weights,
    );
    this.passCount += 1;
    const V = this.model.config.vocabSize;
    rows.forEach((row, position) => {
      if (row.input.length === 0) return;
      row.logits = ran.logits.slice(position * V, (position + 1) * V);
      row.input = [];
    });
    return ran.state;
  }

  /** A new batch state of the unfinished rows (`live` positions) and the rows that join with their caches. */
  private pack(live: readonly number[]): void {
    const joining = this.joining;
    // A cache disposed between `add` and this step would fail deep in the backend; say which.
    for (const row of joining) row.cache?.assertLive();
    let own: BatchState | null = null;
    if (this.joinPass === 'own' && joining.some((row) => row.input.length > 0)) {
      // The joining rows' prompts in a pass of their own: on a CPU a pass costs its rows × its longest chunk, so
      // the decoding rows are not padded to the joining rows' observations.
      const stacked = stackCaches(
        this.model,
        joining.map((row) => row.cache),
      );
      own = this.runPass(stacked, joining);
      disposeLayers(stacked.layers);
    }
    // Otherwise each joining row's cache goes straight into the packed state.
    const joined: RowSource[] = own
      ? [{ state: own, rows: joining.map((_, index) => index) }]
      : joining.map((row) => ({ state: cacheState(row.cache), rows: [0] }));
    const packed = packRows(this.model.config, [{ state: this.state, rows: live }, ...joined]);
    disposeLayers(this.state.layers);
    if (own) disposeLayers(own.layers);
    this.state = packed;
    for (const row of joining) row.cache = undefined;
    this.rows = [...live.map((position) => this.rows[position]!), ...joining];
    this.joining = [];
  }

  private assertLive(): void {
    if (this.disposed) throw new RangeError('This GenerationBatch was disposed.');
  }
}
