import { defineOptions, SeededRng, type JSONSchemaType } from '@turngym/core';
import { eventLoopYielder, tf, type ForwardOutputs, type TokenRow, type Trainer } from '@turngym/lm';
import { k3KlTf } from './k3-kl';
import { actionSpans, hasActionTokens, lossMask, roleLossWeights } from './loss-mask';
import { gspoLossTf, ppoClipLossTf } from './ppo-loss';
import { EmptyUpdateSampleError } from './rl-errors';
import type { Trajectory } from './trajectory';

/** How the policy is updated from one batch of rollouts (ALGORITHMS.md §0–1). */
export interface PpoUpdateOptions {
  /** Passes over the batch. */
  epochs: number;
  /** Sequences per optimiser step (the last step of an epoch takes what is left). */
  minibatchSize: number;
  /**
   * Most padded tokens (sequences × the longest) per forward pass: a minibatch longer than this is run in
   * several passes whose gradients are summed before its one step (gradient accumulation), since attention
   * keeps B·heads·T² floats per layer for the backward pass and wasm's heap is bounded.
   */
  minibatchTokens: number;
  /** `token`: token-level PPO-clip, token-mean (GRPO, Tree-GRPO); `sequence`: GSPO's sequence ratio. */
  ratio: 'token' | 'sequence';
  /** ε of the clip (0.2). */
  clipEpsilon: number;
  /** c of dual-clip PPO (Tree-GRPO: 3); omitted = plain PPO-clip. */
  dualClip?: number;
  /** β_KL on the k3 KL to the reference policy (the adapters off): 0.001. */
  klCoefficient: number;
  /** Weight of the entropy bonus (Tree-GRPO: 0.001). */
  entropyCoefficient: number;
  /**
   * CleanRL's `target_kl`: once a minibatch's approx_kl (measured by its forward, before its step) exceeds
   * this, the update stops after that step. Off-policy minibatches late in an update are where one step can
   * push a token far past the clip range through parameters it shares with others; omitted = no early stop.
   */
  targetKl?: number;
  /**
   * Loss weight of each role's action tokens in rollouts with several roles (ALGORITHMS.md §4); 0 freezes
   * a role, as when each role's adapter is updated on its own. Roles not listed weigh 1; omitted = all 1.
   * A sample none of whose action tokens weighs more than 0 is left out of this update.
   */
  roleWeights?: Record<string, number>;
  /** Seeds the minibatch shuffling. */
  seed: number;
}

export const ppoUpdateOptionsSchema: JSONSchemaType<PpoUpdateOptions> = {
  type: 'object',
  additionalProperties: false,
  required: [],
  properties: {
    epochs: { type: 'integer', minimum: 1, default: 1 },
    minibatchSize: { type: 'integer', minimum: 1, default: 8 },
    minibatchTokens: { type: 'integer', minimum: 1, default: 2048 },
    ratio: { type: 'string', enum: ['token', 'sequence'], default: 'token' },
    clipEpsilon: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1, default: 0.2 },
    dualClip: { type: 'number', exclusiveMinimum: 1, nullable: true },
    klCoefficient: { type: 'number', minimum: 0, default: 0.001 },
    entropyCoefficient: { type: 'number', minimum: 0, default: 0 },
    targetKl: { type: 'number', exclusiveMinimum: 0, nullable: true },
    roleWeights: {
      type: 'object',
      nullable: true,
      required: [],
      additionalProperties: { type: 'number', minimum: 0 },
    },
    seed: { type: 'integer', default: 0 },
  },
};

export const validatePpoUpdateOptions = defineOptions<PpoUpdateOptions>('ppo update', ppoUpdateOptionsSchema);

/**
 * One sequence to train on: a rollout (a tree leaf with its shared prefix) and its advantage — one scalar
 * broadcast to every action token (GRPO, Tree-GRPO), or finer: per turn (GiGPO's and CCAPO's step
 * advantages, Self-AC's A = R − V) or per token.
 */
export interface UpdateSample {
  readonly trajectory: Trajectory;
  /** Broadcast to every action token of the sequence (ALGORITHMS.md §0, §1) unless a finer one is given. */
  readonly advantage: number;
  /** One per action turn, in order: each turn's advantage on each of its action tokens (overrides `advantage`). */
  readonly turnAdvantages?: readonly number[];
  /** One per token of `trajectory.tokens`, read on action tokens only (overrides the other two). */
  readonly tokenAdvantages?: readonly number[];
  /** Value targets per token, for a value-head loss (carried for the trainer; `ppoUpdate` does not read them). */
  readonly valueTargets?: readonly number[];
}

/**
 * The advantage of every token of the sample's sequence (0 off the action tokens), from `tokenAdvantages`,
 * else `turnAdvantages` spread over each turn's action span; null when the sample has only its scalar
 * (the broadcast path). A length that does not match the sequence or its turns is an error.
 */
export function sampleTokenAdvantages(sample: UpdateSample): number[] | null {
  const { trajectory } = sample;
  const mask = lossMask(trajectory);
  if (sample.tokenAdvantages) {
    if (sample.tokenAdvantages.length !== trajectory.tokens.length) {
      throw new RangeError(
        `UpdateSample ${trajectory.episodeId}: tokenAdvantages has ${sample.tokenAdvantages.length} values for ${trajectory.tokens.length} tokens.`,
      );
    }
    return sample.tokenAdvantages.map((advantage, index) => (mask[index] ? advantage : 0));
  }
  if (sample.turnAdvantages) {
    const spans = actionSpans(trajectory);
    if (sample.turnAdvantages.length !== spans.length) {
      throw new RangeError(
        `UpdateSample ${trajectory.episodeId}: turnAdvantages has ${sample.turnAdvantages.length} values for ${spans.length} action turns.`,
      );
    }
    const row = new Array<number>(trajectory.tokens.length).fill(0);
    spans.forEach((span, turn) => row.fill(sample.turnAdvantages![turn]!, span.start, span.end + 1));
    return row;
  }
  return null;
}

/** Throws a `RangeError` naming the sample when an advantage the update would read is not a finite number. */
function assertFiniteAdvantages(sample: UpdateSample, index: number): void {
  const where = `ppoUpdate: samples[${index}] (${sample.trajectory.episodeId})`;
  const row = sampleTokenAdvantages(sample);
  if (row === null) {
    if (!Number.isFinite(sample.advantage)) {
      throw new RangeError(
        `${where} has advantage ${String(sample.advantage)}; every advantage must be a finite number.`,
      );
    }
    return;
  }
  const name = sample.tokenAdvantages ? 'tokenAdvantages' : 'turnAdvantages';
  const values = sample.tokenAdvantages ?? sample.turnAdvantages!;
  const bad = row.findIndex((value) => !Number.isFinite(value));
  if (bad < 0) return;
  const at = sample.tokenAdvantages
    ? bad
    : actionSpans(sample.trajectory).findIndex((span) => span.start <= bad && bad <= span.end);
  throw new RangeError(
    `${where}: ${name}[${at}] is ${String(values[at])}; every advantage the update reads must be a finite number.`,
  );
}

/** CleanRL's loss metrics, averaged over the gradient steps of the update. */
export interface PpoUpdateStats {
  readonly policyLoss: number;
  /** k3 KL to the reference policy (adapters off). */
  readonly klRef: number;
  /** E[(ρ − 1) − log ρ] over action tokens: how far the update moved from the rollout policy. */
  readonly approxKl: number;
  /**
   * Fraction of action tokens whose ratio left [1 − ε, 1 + ε]: the token's own ratio, or with `ratio: 'sequence'`
   * its sequence's (GSPO clips whole sequences; its ε of ~3e-4 is left by nearly every token ratio once the
   * policy moves, clipped or not).
   */
  readonly clipFraction: number;
  readonly entropy: number;
  readonly gradNorm: number;
  readonly steps: number;
  /** Whether `targetKl` cut the update short. */
  readonly stoppedEarly: boolean;
  /** Action tokens trained on (per epoch). */
  readonly actionTokens: number;
  /** Action tokens through all the gradient steps taken (epochs × actionTokens unless stopped early). */
  readonly trainedTokens: number;
}

/** Right-pads per-row numbers to [B, T] (T = the forward's padded length). */
function padded(rows: readonly (readonly number[])[], length: number): Float32Array {
  const data = new Float32Array(rows.length * length);
  rows.forEach((row, b) => data.set(row.slice(0, length), b * length));
  return data;
}

/**
 * The policy-gradient update every GRPO-family trainer shares: π_old is the rollout's own sampling logprob
 * (exact because rollouts sample at temperature 1 without top-p: the collector records log π(token)), the
 * reference is the same model with its adapters off, and each sequence's advantage is broadcast to its
 * action tokens. Loss = PPO-clip (token or GSPO sequence ratio) + β_KL·k3 − c_H·entropy.
 */
export async function ppoUpdate(
  trainer: Trainer,
  samples: readonly UpdateSample[],
  input: Partial<PpoUpdateOptions> = {},
): Promise<PpoUpdateStats> {
  const options = validatePpoUpdateOptions(input);
  // A branch that stopped at once still trains its shared prefix with its own advantage (ALGORITHMS.md §1).
  const { roleWeights } = options;
  const weightsOf = (trajectory: Trajectory): number[] =>
    roleWeights ? roleLossWeights(trajectory, roleWeights) : Array.from(lossMask(trajectory));
  samples.forEach(({ trajectory }, index) => {
    if (!hasActionTokens(trajectory))
      throw new EmptyUpdateSampleError(
        trajectory.episodeId,
        `ppoUpdate: samples[${index}] (${trajectory.episodeId}) has no action token to train on; leave it out of the samples (hasActionTokens) and keep its reward in its group's statistics.`,
      );
  });
  // A role weighted 0 is frozen: a sample with only its tokens has nothing to train here, by the caller's choice.
  const usable = roleWeights
    ? samples.filter((sample) => weightsOf(sample.trajectory).some((weight) => weight > 0))
    : samples;
  if (usable.length === 0)
    throw new EmptyUpdateSampleError(undefined, 'ppoUpdate: no sample has an action token to train on.');
  if (options.ratio === 'sequence' && usable.some((sample) => sampleTokenAdvantages(sample) !== null)) {
    throw new RangeError("ppoUpdate: ratio 'sequence' (GSPO) takes one advantage per sequence, not per turn or token.");
  }
  // A NaN or infinite advantage reaches every weight through one step (the gradient norm is NaN, so clipping
  // cannot catch it) and the adapter is lost without an error: refuse it here, naming the sample.
  const trained = new Set(usable);
  samples.forEach((sample, index) => {
    if (trained.has(sample)) assertFiniteAdvantages(sample, index);
  });
  const rows: TokenRow[] = usable.map(({ trajectory }) => ({
    tokens: trajectory.tokens,
    weights: weightsOf(trajectory),
  }));
  // The reference policy: the base model, adapters off — no second copy of the weights.
  const lengths = rows.map((row) => row.tokens.length);
  const refLogprobs: number[][] = new Array(rows.length);
  // tfjs's async reads resolve at once on the cpu backend: without a pause a signal waited for the whole update.
  const pause = eventLoopYielder();
  for (const batch of packMinibatches(
    rows.map((_, index) => index),
    lengths,
    options,
  )) {
    const reference = await trainer.model.score(
      batch.map((index) => rows[index]!),
      { adapter: null },
    );
    batch.forEach((index, b) => (refLogprobs[index] = reference.logprobs[b]!.map((value) => value ?? 0)));
    await pause();
  }

  const rng = new SeededRng(options.seed);
  const totals = { policyLoss: 0, klRef: 0, approxKl: 0, clipped: 0, entropy: 0, gradNorm: 0, tokens: 0, steps: 0 };
  const actionTokens = rows.reduce((sum, row) => sum + row.weights!.reduce((a, b) => a + b, 0), 0);
  let stoppedEarly = false;
  const tokensOf = (index: number): number => rows[index]!.weights!.reduce((sum, weight) => sum + weight, 0);
  for (let epoch = 0; epoch < options.epochs && !stoppedEarly; epoch++) {
    const order = rng.shuffle(usable.map((_, index) => index));
    for (let first = 0; first < order.length; first += options.minibatchSize) {
      // One optimiser step per minibatch; its gradient is accumulated over forward passes of at most
      // minibatchTokens padded tokens, so the step size and the memory bound are separate choices.
      const minibatch = order.slice(first, first + options.minibatchSize);
      const stepTokens = minibatch.reduce((sum, index) => sum + tokensOf(index), 0);
      const side: PassStats = { policyLoss: 0, klRef: 0, approxKl: 0, clipped: 0, entropy: 0, tokens: 0 };
      const parts = packMinibatches(minibatch, lengths, {
        minibatchSize: minibatch.length,
        minibatchTokens: options.minibatchTokens,
      }).map((batch) => {
        // Each pass's token means (and GSPO's sequence mean) weighted by its share of the minibatch: the
        // summed loss is the minibatch's own mean.
        const tokenShare = batch.reduce((sum, index) => sum + tokensOf(index), 0) / Math.max(stepTokens, 1e-9);
        const sequenceShare = batch.length / minibatch.length;
        const policyShare = options.ratio === 'token' ? tokenShare : sequenceShare;
        const loss = passLoss(
          {
            samples: batch.map((index) => usable[index]!),
            reference: batch.map((index) => refLogprobs[index]!),
            policyShare,
            tokenShare,
          },
          options,
          side,
        );
        return { rows: batch.map((index) => rows[index]!), loss };
      });
      // Entropy is always read: a collapsing policy shows there first, bonus or not.
      const result = await trainer.stepAccumulated(parts, { entropy: true });
      const approxKl = side.approxKl / Math.max(side.tokens, 1e-9);
      totals.policyLoss += side.policyLoss;
      totals.klRef += side.klRef;
      totals.approxKl += approxKl;
      totals.entropy += side.entropy;
      totals.clipped += side.clipped;
      totals.tokens += side.tokens;
      totals.gradNorm += result.gradNorm;
      totals.steps += 1;
      await pause();
      if (options.targetKl !== undefined && approxKl > options.targetKl) {
        stoppedEarly = true;
        break;
      }
    }
  }
  const steps = Math.max(1, totals.steps);
  return {
    policyLoss: totals.policyLoss / steps,
    klRef: totals.klRef / steps,
    approxKl: totals.approxKl / steps,
    clipFraction: totals.tokens > 0 ? totals.clipped / totals.tokens : 0,
    entropy: totals.entropy / steps,
    gradNorm: totals.gradNorm / steps,
    steps: totals.steps,
    stoppedEarly,
    actionTokens,
    trainedTokens: totals.tokens,
  };
}

/** A step's side statistics, summed over its forward passes (read eagerly: they carry no gradient). */
interface PassStats {
  policyLoss: number;
  klRef: number;
  /** Summed over action tokens; the step divides by `tokens`. */
  approxKl: number;
  clipped: number;
  entropy: number;
  tokens: number;
}

/** One forward pass of a step: its sequences, their reference logprobs, and its share of the step's means. */
interface PassInput {
  readonly samples: readonly UpdateSample[];
  readonly reference: readonly (readonly number[])[];
  /** The pass's share of the policy term's mean: of action tokens (token ratio) or of sequences (GSPO). */
  readonly policyShare: number;
  /** The pass's share of the minibatch's action tokens, which weights the KL and entropy token means. */
  readonly tokenShare: number;
}

/**
 * The loss of one forward pass: PPO-clip (or GSPO) + β_KL·k3 − c_H·entropy, each weighted by the pass's
 * share so that the passes' summed loss is the minibatch's own mean. Adds the pass's statistics to `side`.
 */
function passLoss(pass: PassInput, options: PpoUpdateOptions, side: PassStats): (outputs: ForwardOutputs) => tf.Scalar {
  const clip = { clipEpsilon: options.clipEpsilon, ...(options.dualClip ? { dualClip: options.dualClip } : {}) };
  return (outputs) => {
    const [B, T] = outputs.logprobs.shape;
    const oldLogp = tf.tensor2d(
      padded(
        pass.samples.map((sample) => sample.trajectory.logprobs),
        T,
      ),
      [B, T],
    );
    const refLogp = tf.tensor2d(padded(pass.reference, T), [B, T]);
    const mask = outputs.weights;
    const advantages = pass.samples.map((sample) => sample.advantage);
    // Per-turn or per-token advantages where a sample has them; else the scalar broadcast (the default path).
    const rows = pass.samples.map(sampleTokenAdvantages);
    const tokenAdvantages = rows.some((row) => row !== null)
      ? tf.tensor2d(
          padded(
            rows.map((row, b) => row ?? new Array<number>(T).fill(advantages[b]!)),
            T,
          ),
          [B, T],
        )
      : tf.tensor2d(advantages, [B, 1]);
    // The mask holds each token's loss weight (a role's, §4): it weighs the token mean once. Scaling the
    // advantages by it too would weigh a token by w² (a planner at 0.5 counted at 0.25).
    const policy =
      options.ratio === 'token'
        ? ppoClipLossTf(
            { logp: outputs.logprobs, oldLogp, advantages: tf.broadcastTo(tokenAdvantages, [B, T]), mask },
            clip,
          )
        : gspoLossTf({ logp: outputs.logprobs, oldLogp, advantages: tf.tensor1d(advantages), mask }, clip);
    const kl = k3KlTf({ logp: outputs.logprobs, refLogp, mask });
    const tokens = tf.sum(mask);
    const entropy = outputs.entropy ? tf.div(tf.sum(tf.mul(outputs.entropy, mask)), tokens) : tf.scalar(0);
    const logRatio = tf.sub(outputs.logprobs, oldLogp);
    const ratio = tf.exp(logRatio);
    side.policyLoss += policy.dataSync()[0]! * pass.policyShare;
    side.klRef += kl.dataSync()[0]! * pass.tokenShare;
    side.entropy += entropy.dataSync()[0]! * pass.tokenShare;
    side.tokens += tokens.dataSync()[0]!;
    side.approxKl += tf.sum(tf.mul(tf.sub(tf.sub(ratio, 1), logRatio), mask)).dataSync()[0]!;
    // What the clip acts on: each token's ratio, or (GSPO) each sequence's, exp of its mean log-ratio.
    const clipRatio =
      options.ratio === 'token'
        ? ratio
        : tf.expandDims(tf.exp(tf.div(tf.sum(tf.mul(logRatio, mask), 1), tf.sum(mask, 1))), 1);
    side.clipped += tf
      .sum(tf.mul(tf.cast(tf.greater(tf.abs(tf.sub(clipRatio, 1)), options.clipEpsilon), 'float32'), mask))
      .dataSync()[0]!;
    return tf.add(
      tf.mul(policy, pass.policyShare),
      tf.mul(tf.sub(tf.mul(kl, options.klCoefficient), tf.mul(entropy, options.entropyCoefficient)), pass.tokenShare),
    ) as tf.Scalar;
  };
}

/**
 * Splits the sequences of `order` into batches of at most `minibatchSize` sequences and at most `minibatchTokens`
 * padded tokens (a sequence longer than that goes alone): the forward passes of a scoring or of one step. They
 * go shortest first (ties in `order`'s order), so each pass pads its rows to a length near their own: a pass
 * costs its rows × its longest row (attention, its square), and rollouts of one batch run from ~150 to ~1,000
 * tokens. Which sequences share a step is the caller's choice; which share a pass changes only the padding,
 * since a step's gradient is the sum over its passes.
 */
export function packMinibatches(
  order: readonly number[],
  lengths: readonly number[],
  options: Pick<PpoUpdateOptions, 'minibatchSize' | 'minibatchTokens'>,
): number[][] {
  const batches: number[][] = [];
  let current: number[] = [];
  let longest = 0;
  for (const index of [...order].sort((a, b) => lengths[a]! - lengths[b]!)) {
    const length = lengths[index]!;
    const widest = Math.max(longest, length);
    if (
      current.length > 0 &&
      (current.length >= options.minibatchSize || widest * (current.length + 1) > options.minibatchTokens)
    ) {
      batches.push(current);
      current = [];
      longest = 0;
    }
    current.push(index);
    longest = Math.max(longest, length);
  }
  if (current.length > 0) batches.push(current);
  return batches;
}
