import * as tf from '@tensorflow/tfjs';
import { assertFinite, assertSameLength, type Numbers } from './internal/checks';
import { legalLogSoftmax, legalLogSoftmaxTf } from './internal/legal-log-softmax';
import { assertSameShape } from './internal/tensor-checks';

/** How far a target row's sum may be from 1: float32 visit fractions are off by a few ulps. */
const TARGET_SUM_TOLERANCE = 1e-5;

/**
 * The policy-head term of AlphaZero's loss (ALGORITHMS.md §5: MSE(v, z) + CE(π_MCTS) − 1e-4·entropy): the
 * cross-entropy between a target distribution over a discrete action set — the root's MCTS visit
 * fractions — and the policy head's distribution, softmax of its logits over the legal actions:
 *   CE = (1/B) Σ_b −Σ_a target_{b,a} · log π_θ(a | s_b),   log π_θ = logits − logsumexp(legal logits).
 * Its gradient in the logits is π_θ − target on legal actions, 0 on illegal ones.
 *
 * A target row must be a distribution (entries ≥ 0 summing to 1) with no mass on an illegal action (that
 * would be −∞). A row with no legal action is an `EmptyActionSetError`.
 */
export interface PolicyCrossEntropyInputs {
  /** The policy head's logits, one row per state. */
  readonly logits: readonly Numbers[];
  /** The target distribution per state (e.g. visit counts / their sum). */
  readonly targets: readonly Numbers[];
  /** 0/1 per action, one row per state; 1 on legal actions. Absent: every action is legal. */
  readonly legal?: readonly Numbers[];
}

/** `PolicyCrossEntropyInputs` on tensors, each [states, actions]. */
export interface PolicyCrossEntropyTensors {
  readonly logits: tf.Tensor2D;
  readonly targets: tf.Tensor2D;
  readonly legal?: tf.Tensor2D;
}

/** CE between targets and the legal softmax of the logits, mean over states; plain numbers in, a number out. */
export function policyCrossEntropy(inputs: PolicyCrossEntropyInputs): number {
  const what = 'policyCrossEntropy';
  const rows = inputs.logits.length;
  if (rows === 0) throw new RangeError(`${what}: logits has no rows; the loss needs at least one state.`);
  const rowCounts = {
    logits: inputs.logits,
    targets: inputs.targets,
    ...(inputs.legal ? { legal: inputs.legal } : {}),
  };
  for (const [name, array] of Object.entries(rowCounts)) {
    if (array.length !== rows) {
      throw new RangeError(
        `${what}: ${name} must have one row per state (logits has ${rows}, ${name} has ${array.length}).`,
      );
    }
  }
  let sum = 0;
  for (let row = 0; row < rows; row += 1) {
    const logits = inputs.logits[row] as Numbers;
    const target = inputs.targets[row] as Numbers;
    const legal = inputs.legal?.[row];
    assertSameLength(what, { [`logits[${row}]`]: logits, [`targets[${row}]`]: target });
    const logProbabilities = legalLogSoftmax(what, row, logits, legal);
    assertDistribution(what, row, target, (action) => logProbabilities[action] !== Number.NEGATIVE_INFINITY);
    for (let action = 0; action < target.length; action += 1) {
      const weight = target[action] as number;
      if (weight !== 0) sum -= weight * (logProbabilities[action] as number);
    }
  }
  return sum / rows;
}

/**
 * The same on tensors; a scalar whose gradient flows into the logits. The targets (and the legal mask) are
 * read back once to give the plain twin's errors: they are data, small ([states, actions]), never trained.
 */
export function policyCrossEntropyTf(inputs: PolicyCrossEntropyTensors): tf.Scalar {
  const what = 'policyCrossEntropyTf';
  assertSameShape(what, {
    logits: inputs.logits,
    targets: inputs.targets,
    ...(inputs.legal ? { legal: inputs.legal } : {}),
  });
  if (inputs.logits.rank !== 2 || inputs.logits.shape[0] === 0) {
    throw new RangeError(
      `${what}: logits must be [states, actions] with at least one state (it is [${inputs.logits.shape.join(', ')}]).`,
    );
  }
  return tf.tidy(() => {
    const logProbabilities = legalLogSoftmaxTf(what, inputs.logits, inputs.legal);
    const legal = inputs.legal?.arraySync();
    inputs.targets
      .arraySync()
      .forEach((target, row) =>
        assertDistribution(what, row, target, (action) => legal === undefined || legal[row]![action] === 1),
      );
    return tf.div(tf.neg(tf.sum(tf.mul(inputs.targets, logProbabilities))), inputs.logits.shape[0]) as tf.Scalar;
  });
}

function assertDistribution(what: string, row: number, target: Numbers, isLegal: (action: number) => boolean): void {
  assertFinite(what, `targets[${row}]`, target);
  let total = 0;
  for (let action = 0; action < target.length; action += 1) {
    const weight = target[action] as number;
    if (weight < 0)
      throw new RangeError(`${what}: targets[${row}][${action}] is ${weight}; a target is a distribution (≥ 0).`);
    if (weight > 0 && !isLegal(action)) {
      throw new RangeError(
        `${what}: targets[${row}][${action}] is ${weight} on an illegal action; a target puts no mass where the policy cannot act.`,
      );
    }
    total += weight;
  }
  if (Math.abs(total - 1) > TARGET_SUM_TOLERANCE) {
    throw new RangeError(
      `${what}: targets[${row}] sums to ${total}; a target is a distribution (divide visit counts by their sum).`,
    );
  }
}
