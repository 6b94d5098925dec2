import * as tf from '@tensorflow/tfjs';
import { assertFinite, assertSameLength, type Numbers } from './internal/checks';
import { assertSameShape, maskedTokenMeanTf } from './internal/tensor-checks';
import { ppoClipTokenLoss, ppoClipTokenLossTf } from './ppo-loss';
import { validatePpoLossOptions, type PpoLossOptions } from './ppo-loss-options';
import { EmptyLossMaskError } from './rl-errors';

/**
 * PPO-clip with a turn-level ratio (ALGORITHMS.md §2, Self-AC's actor loss): one ratio per action a_k, the
 * probability of the whole action under π_θ over π_old, computed in log space,
 *   ρ_k = exp(clamp(Σ_{t ∈ a_k} (logp_θ,t − logp_old,t), ±20)),
 *   l_k = max(−ρ_k·A_k, −clip(ρ_k, 1−ε, 1+ε)·A_k)   (dual clip as in `ppoClipLoss` when set),
 *   L = Σ_k l_k / K   over the K turns of the batch (turn-mean).
 * Between the token ratio (one per token) and GSPO's sequence ratio (one per rollout, a geometric mean):
 * the unit is the agent step, the unit its advantage A_k = R_k − V(s_k) is about. The ratio is a product,
 * not a geometric mean, as §2 writes it; long actions move it further, and the ±20 clamp is §2's [choice].
 * The turn-mean is a **[choice]**: §2 does not say how turns are aggregated; a mean over turns weighs
 * each agent step equally, as the token-mean weighs each token.
 */
export interface TurnSpan {
  /** First token of the action (inclusive); `actionSpans` of a `TokenRecord` gives these. */
  readonly start: number;
  /** Last token of the action (inclusive). */
  readonly end: number;
}

/** One rollout for the plain loss: token log-probs, its actions' spans, one advantage per action. */
export interface TurnPpoSequence {
  readonly logp: Numbers;
  readonly oldLogp: Numbers;
  /** The actions, in order, not overlapping. */
  readonly turns: readonly TurnSpan[];
  /** A_k, one per entry of `turns`. */
  readonly advantages: Numbers;
}

/**
 * The batch on tensors: logp, oldLogp [batch, tokens]; advantages [batch, K] with K at least the most turns
 * of a row (entries past a row's turns are padding: ignored, but finite); `turns` per row as plain spans.
 */
export interface TurnPpoTensors {
  readonly logp: tf.Tensor2D;
  readonly oldLogp: tf.Tensor2D;
  readonly advantages: tf.Tensor2D;
  readonly turns: readonly (readonly TurnSpan[])[];
}

/** log ρ_k per turn of one rollout: Σ over the turn's tokens of logp − oldLogp (unclamped). */
export function turnLogRatios(logp: Numbers, oldLogp: Numbers, turns: readonly TurnSpan[]): Float64Array {
  const what = 'turnLogRatios';
  const length = assertSameLength(what, { logp, oldLogp });
  assertFinite(what, 'logp', logp);
  assertFinite(what, 'oldLogp', oldLogp);
  assertTurns(what, turns, length);
  return Float64Array.from(turns, (turn) => {
    let sum = 0;
    for (let t = turn.start; t <= turn.end; t += 1) sum += (logp[t] as number) - (oldLogp[t] as number);
    return sum;
  });
}

/** The turn-level PPO-clip loss on plain numbers; turn-mean over all turns of all sequences. */
export function ppoTurnClipLoss(sequences: readonly TurnPpoSequence[], options: Partial<PpoLossOptions> = {}): number {
  const settings = validatePpoLossOptions(options);
  const what = 'ppoTurnClipLoss';
  if (sequences.length === 0) throw new RangeError(`${what}: sequences is empty.`);
  let sum = 0;
  let count = 0;
  sequences.forEach((sequence, index) => {
    const where = `${what}: sequences[${index}]`;
    if (sequence.advantages.length !== sequence.turns.length) {
      throw new RangeError(
        `${where}: advantages must have one entry per turn (turns has ${sequence.turns.length}, advantages has ${sequence.advantages.length}).`,
      );
    }
    if (sequence.turns.length === 0) throw new EmptyLossMaskError(where);
    assertFinite(where, 'advantages', sequence.advantages);
    turnLogRatios(sequence.logp, sequence.oldLogp, sequence.turns).forEach((logRatio, k) => {
      sum += ppoClipTokenLoss(logRatio, sequence.advantages[k] as number, settings);
    });
    count += sequence.turns.length;
  });
  return sum / count;
}

/**
 * The same on tensors; a scalar whose gradient flows into `logp`. The per-turn sums are one segment sum
 * over the flattened batch (tokens outside every turn go to a spare segment that is dropped).
 */
export function ppoTurnClipLossTf(inputs: TurnPpoTensors, options: Partial<PpoLossOptions> = {}): tf.Scalar {
  const settings = validatePpoLossOptions(options);
  const what = 'ppoTurnClipLossTf';
  assertSameShape(what, { logp: inputs.logp, oldLogp: inputs.oldLogp });
  const [rows, tokens] = inputs.logp.shape;
  const [advantageRows, maxTurns] = inputs.advantages.shape;
  if (
    inputs.logp.rank !== 2 ||
    inputs.advantages.rank !== 2 ||
    advantageRows !== rows ||
    inputs.turns.length !== rows
  ) {
    throw new RangeError(
      `${what}: logp must be [batch, tokens], advantages [batch, turns] and turns one list per row (logp is [${inputs.logp.shape.join(', ')}], advantages is [${inputs.advantages.shape.join(', ')}], turns has ${inputs.turns.length} rows).`,
    );
  }
  const segments = new Int32Array(rows * tokens).fill(rows * maxTurns);
  const turnMask = new Float32Array(rows * maxTurns);
  inputs.turns.forEach((turns, row) => {
    const where = `${what}: row ${row}`;
    assertTurns(where, turns, tokens);
    if (turns.length === 0) throw new EmptyLossMaskError(where);
    if (turns.length > maxTurns) {
      throw new RangeError(`${where} has ${turns.length} turns but advantages has room for ${maxTurns}.`);
    }
    turns.forEach((turn, k) => {
      segments.fill(row * maxTurns + k, row * tokens + turn.start, row * tokens + turn.end + 1);
      turnMask[row * maxTurns + k] = 1;
    });
  });
  return tf.tidy(() => {
    const difference = tf.reshape(tf.sub(inputs.logp, inputs.oldLogp), [rows * tokens]);
    const sums = tf.unsortedSegmentSum(difference, tf.tensor1d(segments, 'int32'), rows * maxTurns + 1);
    const logRatio = tf.reshape(tf.slice(sums, 0, rows * maxTurns), [rows, maxTurns]);
    const loss = ppoClipTokenLossTf(logRatio, inputs.advantages, settings);
    return maskedTokenMeanTf(what, loss, tf.tensor2d(turnMask, [rows, maxTurns]));
  });
}

function assertTurns(what: string, turns: readonly TurnSpan[], length: number): void {
  let previousEnd = -1;
  turns.forEach((turn, k) => {
    const { start, end } = turn;
    if (!Number.isInteger(start) || !Number.isInteger(end) || start <= previousEnd || end < start || end >= length) {
      throw new RangeError(
        `${what}: turns[${k}] is {start: ${start}, end: ${end}}; turns are inclusive token ranges inside the ${length} tokens, in order and not overlapping.`,
      );
    }
    previousEnd = end;
  });
}
