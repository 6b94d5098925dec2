import { existsSync } from 'node:fs';
import { loadModel, tf, Trainer, type ForwardOutputs, type LanguageModel, type TokenRow } from '@turngym/lm';
import {
  ChatTurnFormat,
  collectChains,
  installedEnvRegistry,
  packMinibatches,
  ppoTurnClipLossTf,
  tdTarget,
  type Trajectory,
} from '@turngym/rl';
import type { Action, Env } from '@turngym/spec';
import {
  criticPromptTokens,
  mergeAdapter,
  packEpisode,
  padEpisodeVectors,
  selfAcLossTf,
  selfAcUpdate,
  turnSpans,
  type PackedEpisode,
} from '@turngym/trainer-self-ac';

/** The committed math warm start, when the benchmark runs from the repository root; else an untrained tiny-1m. */
const WARM_START = 'benchmarks/learning/models/math-warm-start';
const ENV_ID = 'turngym/math-thought-calc-v1';
const ENV_OPTIONS = { difficulties: [1], kinds: ['arithmetic'] };
const LOSS = { alpha: 0.5, discount: 1, horizons: 5, clipEpsilon: 0.2 } as const;
/** Padded tokens per forward pass of the packed update (the trainer's `minibatchTokens`). */
const PASS_TOKENS = 1024;
/** Longest packed row benchmarked (see below). */
const MAX_PACKED_TOKENS = 1536;
const fmt = (n: number, digits = 0): string =>
  n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

/** One sequence of the turn-by-turn actor-critic: a critic row s_k + cp, or an actor row s_k + a_k. */
interface TurnRow {
  readonly row: TokenRow;
  readonly episode: number;
  readonly k: number;
  readonly kind: 'critic' | 'actor';
  /** Actor rows: π_old per token, and the action's span. */
  readonly old?: number[];
  readonly span?: { start: number; end: number };
}

/** The rows an ordinary turn-by-turn actor-critic runs: a critic row per state, an actor row per turn. */
function turnRows(episodes: readonly PackedEpisode[]): TurnRow[] {
  const rows: TurnRow[] = [];
  episodes.forEach((episode, e) => {
    episode.stateLengths.forEach((length, k) =>
      rows.push({
        row: { tokens: [...episode.stateTokens.slice(0, length), ...episode.criticPrompt] },
        episode: e,
        k,
        kind: 'critic',
      }),
    );
    episode.vectors.aStart.forEach((start, k) => {
      const length = episode.stateLengths[k]!;
      const size = episode.vectors.aEnd[k]! - start + 1;
      const tokens = episode.stateTokens.slice(0, length + size);
      const old = new Array<number>(tokens.length).fill(0);
      for (let i = 0; i < size; i += 1) old[length + i] = episode.oldLogprobs[start + i]!;
      rows.push({
        row: { tokens, weights: old.map((_, t) => (t >= length ? 1 : 0)) },
        episode: e,
        k,
        kind: 'actor',
        old,
        span: { start: length, end: length + size - 1 },
      });
    });
  });
  return rows;
}

/**
 * Self-AC's loss computed turn by turn, as an actor-critic whose memory is bounded must: a no-grad pass over
 * the critic rows gives V for the TD targets and the advantages (detached, as §2 wants), then gradient passes
 * over chunks of rows, each row carrying its own terms — (V_k − Y_n,k)² for a critic row, the clipped ratio
 * term for an actor row — divided by the minibatch's turns, so the chunks sum to the packed loss.
 */
async function turnByTurnParts(
  model: LanguageModel,
  episodes: readonly PackedEpisode[],
): Promise<{ rows: TokenRow[]; loss: (outputs: ForwardOutputs) => tf.Scalar; sequences: number }[]> {
  const rows = turnRows(episodes);
  const critic = rows.filter((row) => row.kind === 'critic');
  const values = episodes.map((episode) => new Array<number>(episode.stateLengths.length).fill(0));
  for (const chunk of chunks(critic)) {
    const scored = await model.score(
      chunk.map((row) => row.row),
      { adapter: 'policy', values: true },
    );
    chunk.forEach((row, b) => (values[row.episode]![row.k] = scored.values![b]!.at(-1)!));
  }
  episodes.forEach((episode, e) => {
    if (episode.vectors.terminal) values[e]![episode.vectors.aStart.length] = 0;
  });
  const targets = episodes.map((episode, e) =>
    Array.from({ length: LOSS.horizons }, (_, n) =>
      tdTarget(episode.vectors.rewards, values[e]!, n + 1, LOSS.discount),
    ),
  );
  const turns = episodes.reduce((sum, episode) => sum + episode.vectors.aStart.length, 0);
  // s_n is never a critic target; the scoring pass above read it (the bootstrap), the gradient passes need not.
  const trained = rows.filter((row) => row.kind === 'actor' || row.k < episodes[row.episode]!.vectors.aStart.length);
  return chunks(trained).map((chunk) => ({
    rows: chunk.map((row) => row.row),
    sequences: chunk.length,
    loss: (outputs) => {
      const [B, T] = outputs.logprobs.shape;
      let total: tf.Tensor = tf.scalar(0);
      const criticAt = chunk.flatMap((row, b) => (row.kind === 'critic' ? [b] : []));
      if (criticAt.length > 0) {
        const last = Int32Array.from(criticAt, (b) => b * T + chunk[b]!.row.tokens.length - 1);
        const V = tf.gather(tf.reshape(outputs.values!, [B * T]), tf.tensor1d(last, 'int32'));
        let squares: tf.Tensor = tf.scalar(0);
        for (let n = 0; n < LOSS.horizons; n += 1) {
          const Y = criticAt.map((b) => targets[chunk[b]!.episode]![n]![chunk[b]!.k]!);
          squares = tf.add(squares, tf.sum(tf.square(tf.sub(V, tf.tensor1d(Y)))));
        }
        total = tf.add(total, tf.mul(squares, LOSS.alpha / LOSS.horizons / turns));
      }
      const actorAt = chunk.flatMap((row, b) => (row.kind === 'actor' ? [b] : []));
      if (actorAt.length > 0) {
        const A = actorAt.length;
        const old = new Float32Array(A * T);
        actorAt.forEach((b, a) => old.set(chunk[b]!.old!, a * T));
        const advantages = actorAt.map((b) => {
          const row = chunk[b]!;
          return episodes[row.episode]!.vectors.returns[row.k]! - values[row.episode]![row.k]!;
        });
        const actor = ppoTurnClipLossTf(
          {
            logp: tf.gather(outputs.logprobs, tf.tensor1d(actorAt, 'int32')) as tf.Tensor2D,
            oldLogp: tf.tensor2d(old, [A, T]),
            advantages: tf.tensor2d(advantages, [A, 1]),
            turns: actorAt.map((b) => [chunk[b]!.span!]),
          },
          { clipEpsilon: LOSS.clipEpsilon },
        );
        total = tf.add(total, tf.mul(actor, ((1 - LOSS.alpha) * A) / turns));
      }
      return total as tf.Scalar;
    },
  }));
}

/** Consecutive rows, at most PASS_TOKENS padded tokens a chunk (a longer row alone). */
function chunks(rows: readonly TurnRow[]): TurnRow[][] {
  return packMinibatches(
    rows.map((_, index) => index),
    rows.map((row) => row.row.tokens.length),
    { minibatchSize: rows.length, minibatchTokens: PASS_TOKENS },
  ).map((batch) => batch.map((index) => rows[index]!));
}

/** The packed loss of the same episodes on one forward (what `selfAcUpdate` steps on). */
function packedLoss(episodes: readonly PackedEpisode[]): (outputs: ForwardOutputs) => tf.Scalar {
  return (outputs) => {
    const [B, T] = outputs.logprobs.shape;
    const old = new Float32Array(B * T);
    episodes.forEach((episode, b) => old.set(episode.oldLogprobs, b * T));
    return selfAcLossTf(
      { logprobs: outputs.logprobs, values: outputs.values! },
      padEpisodeVectors(episodes.map((episode) => episode.vectors)),
      tf.tensor2d(old, [B, T]),
      episodes.map(turnSpans),
      LOSS,
    ).loss;
  };
}

function lossValue(
  model: LanguageModel,
  rows: readonly TokenRow[],
  loss: (outputs: ForwardOutputs) => tf.Scalar,
): number {
  return tf.tidy(() => loss(model.forward(rows, { adapter: 'policy', values: true })).dataSync()[0]!);
}

/** The middle value. */
function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Generated tokens per second, greedy, 8 prompts × `maxTokens`, after a warm-up. */
function generationRate(model: LanguageModel, adapter: string | null, maxTokens: number): number {
  const requests = Array.from({ length: 8 }, (_, b) => ({
    tokens: Array.from({ length: 24 }, (_, t) => 40 + ((b * 13 + t * 5) % 60)),
  }));
  model.generate(requests, { maxTokens: 2, stopTokenIds: [], adapter, temperature: 0 });
  const start = performance.now();
  const results = model.generate(requests, { maxTokens, stopTokenIds: [], adapter, temperature: 0 });
  return results.reduce((sum, result) => sum + result.tokens.length, 0) / ((performance.now() - start) / 1000);
}

/**
 * Self-AC's cost claim (ALGORITHMS.md §2), measured in one run: on the same rollouts, the packed update
 * (one sequence per episode) against an ordinary turn-by-turn actor-critic (a critic sequence per state, an
 * actor sequence per turn) computing the same loss; then generation speed of the base, the trained model
 * with its adapter off, merged, and on.
 */
export async function selfAcCost(options: { durationMs: number; checkpoint?: string }): Promise<string[]> {
  const checkpoint = options.checkpoint ?? (existsSync(WARM_START) ? WARM_START : 'tiny-1m');
  const model = await loadModel(checkpoint, { backend: 'wasm', seed: 1 });
  model.addAdapter('policy', { rank: 16, alpha: 32, seed: 1 });
  model.addValueHead(1);
  const trainer = new Trainer(model, { adapter: 'policy', valueHead: true, learningRate: 1e-3 });
  const format = new ChatTurnFormat(model.tokenizer);
  const registry = installedEnvRegistry();
  const trajectories: Trajectory[] = await collectChains({
    policy: { model, format },
    makeEnv: async () => (await registry.make(ENV_ID, { options: ENV_OPTIONS })) as Env<string, Action>,
    envId: ENV_ID,
    seeds: Array.from({ length: 8 }, (_, i) => 1000 + i),
    groupSize: 2,
    options: { maxActionTokens: 32, maxRolloutTokens: 160, instructions: false, adapter: 'policy', seed: 7 },
  });
  const criticPrompt = criticPromptTokens(model.tokenizer);
  let episodes = trajectories
    .filter((t) => t.stopReason !== 'error' && t.steps.length > 0)
    .map((t) =>
      packEpisode(t, { format, criticPrompt, discount: LOSS.discount, maxPositions: model.config.maxPositions }),
    );
  // wasm materialises attention (B·heads·T² floats per layer, kept for the backward pass): a packed row grows by
  // |cp| tokens per turn, and one 13-turn episode (2,233 packed tokens) outgrew wasm's heap. Such episodes are
  // left out of both variants here, and counted.
  const packedAll = episodes.length;
  episodes = episodes.filter((episode) => episode.row.tokens.length <= MAX_PACKED_TOKENS);
  const turns = episodes.reduce((sum, episode) => sum + episode.vectors.aStart.length, 0);
  const minibatch = 8;

  // The same loss both ways, from the same weights (the equality of §2 at the level of the whole loss).
  const first = episodes.slice(0, 1);
  const packed = lossValue(
    model,
    first.map((episode) => episode.row),
    packedLoss(first),
  );
  let turnByTurn = 0;
  for (const part of await turnByTurnParts(model, first)) turnByTurn += lossValue(model, part.rows, part.loss);

  process.stderr.write(`self-ac: ${episodes.length} episodes, ${turns} turns; losses ${packed} / ${turnByTurn}\n`);
  // Timed: one epoch over all episodes, minibatches of 8 episodes, one Adam step per minibatch each way.
  const repeats = Math.max(1, Math.round(options.durationMs / 3000));
  let packedSeconds = 0;
  let packedSequences = 0;
  let packedPasses = 0;
  for (let r = 0; r < repeats; r += 1) {
    const start = performance.now();
    const stats = await selfAcUpdate(trainer, episodes, {
      ...LOSS,
      minibatchSize: minibatch,
      minibatchTokens: PASS_TOKENS,
      seed: r,
    });
    packedSeconds += (performance.now() - start) / 1000;
    packedSequences += stats.sequencesForwarded;
    packedPasses += stats.forwardPasses;
  }
  const packedTokens = repeats * episodes.reduce((sum, episode) => sum + episode.row.tokens.length, 0);
  process.stderr.write(`self-ac: packed update ${packedSeconds.toFixed(1)} s\n`);
  let turnSeconds = 0;
  let turnSequences = 0;
  let turnTokens = 0;
  for (let r = 0; r < repeats; r += 1) {
    for (let i = 0; i < episodes.length; i += minibatch) {
      // One step per minibatch as above; its gradient summed over one pass per episode (its 2n + 1 rows),
      // each weighted by its share of the minibatch's turns: the same mean loss, in bounded memory.
      const start = performance.now();
      const parts = await turnByTurnParts(model, episodes.slice(i, i + minibatch));
      await trainer.stepAccumulated(parts);
      turnSeconds += (performance.now() - start) / 1000;
      for (const part of parts) {
        turnSequences += part.sequences;
        turnTokens += part.rows.reduce((sum, row) => sum + row.tokens.length, 0);
      }
    }
  }

  // Inference: the trained model with the adapter off or merged has the base's shapes, so the base's speed.
  const base = await loadModel(checkpoint, { backend: 'wasm', seed: 1 });
  const merged = await mergeAdapter(model, 'policy');
  const maxTokens = 32;
  // Interleaved rounds, the median of each: one variant measured first would carry the process's warm-up.
  const variants = [
    ['base checkpoint (baseline)', base, null],
    ['after Self-AC, adapter off (value head unused)', model, null],
    ['after Self-AC, adapter merged into the base', merged, null],
    ['after Self-AC, adapter on, unmerged (for reference)', model, 'policy'],
  ] as const;
  const samples = variants.map((): number[] => []);
  for (let round = 0; round < 5; round += 1)
    variants.forEach(([, generator, adapter], index) =>
      samples[index]!.push(generationRate(generator, adapter, maxTokens)),
    );
  const rates = variants.map(([label], index) => [label, median(samples[index]!)] as const);
  base.dispose();
  merged.dispose();
  trainer.dispose();
  model.dispose();

  const baseRate = rates[0]![1];
  return [
    `${checkpoint} on wasm, ${episodes.length} episodes of ${ENV_ID} (${packedAll - episodes.length} of ${packedAll} left out: packed longer than ${MAX_PACKED_TOKENS} tokens) (${fmt(turns / episodes.length, 1)} turns each on average), ` +
      `minibatches of ${minibatch} episodes (one Adam step each; packed: ${fmt(packedPasses / repeats)} forward passes of at most ${PASS_TOKENS} padded tokens per epoch; turn by turn: a no-grad scoring pass over the critic rows for the detached TD targets and advantages, then gradient passes of at most ${PASS_TOKENS} padded tokens — that scoring is in its time, its ${fmt(episodes.reduce((sum, episode) => sum + episode.stateLengths.length, 0))} rows per epoch are not in its sequence count), one epoch, ${repeats} repetition(s). Tokens: the sequences' own lengths, without padding. Loss of the first episode, same weights: ` +
      `packed ${packed.toFixed(6)}, turn by turn ${turnByTurn.toFixed(6)} (|difference| ${Math.abs(packed - turnByTurn).toExponential(1)}).`,
    '',
    '| update | sequences through forward+backward | tokens | seconds | vs turn by turn |',
    '|---|---:|---:|---:|---:|',
    `| turn-by-turn actor-critic (a critic row per state s_0 … s_(n−1), an actor row per turn; baseline) | ${fmt(turnSequences)} | ${fmt(turnTokens)} | ${turnSeconds.toFixed(2)} | 100% |`,
    `| Self-AC packed (one row per episode, ShadowPrompt) | ${fmt(packedSequences)} | ${fmt(packedTokens)} | ${packedSeconds.toFixed(2)} | ${((100 * packedSeconds) / turnSeconds).toFixed(0)}% (${(turnSeconds / packedSeconds).toFixed(1)}× faster) |`,
    '',
    '| generation, 8 prompts × 32 tokens, greedy (median of 5 interleaved rounds) | tokens/s | vs base |',
    '|---|---:|---:|',
    ...rates.map(([label, rate]) => `| ${label} | ${fmt(rate)} | ${((100 * rate) / baseRate).toFixed(0)}% |`),
  ];
}

export const selfAcSection = {
  name: 'self-ac',
  slow: true,
  title:
    "Self-AC's cost claim: the packed update (one sequence per episode) vs a turn-by-turn actor-critic on the same rollouts and loss; generation with the adapter off or merged vs the base (goal: packed faster by about the turns per episode; generation 100% of the base)",
  run: (durationMs: number) => selfAcCost({ durationMs }),
};
