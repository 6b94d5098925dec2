import { assertFinite, type Numbers } from './internal/checks';

/** ALGORITHMS.md §0: the 1e-6 added to the std, so an all-equal group divides by something. */
export const ADVANTAGE_EPSILON = 1e-6;

export interface GroupStatistics {
  readonly mean: number;
  /** Unbiased (n − 1) standard deviation; 1 for a group of one (ALGORITHMS.md §1). */
  readonly std: number;
}

/**
 * Mean and std of one group's rewards, as GRPO and Tree-GRPO use them.
 *
 * The std is the unbiased one (divide by n − 1), as ALGORITHMS.md §1 says and as the reference code
 * (verl's `torch.std`) computes. A group of one has no spread to estimate, so §1's rule (verl's too) sets
 * mean 0 and std 1: the lone rollout's advantage is its own reward, R / (1 + 1e-6).
 */
export function groupStatistics(rewards: Numbers): GroupStatistics {
  const n = rewards.length;
  if (n === 0) throw new RangeError('groupStatistics: rewards is empty; a group needs at least one rollout.');
  assertFinite('groupStatistics', 'rewards', rewards);
  if (n === 1) return { mean: 0, std: 1 };
  let sum = 0;
  for (let index = 0; index < n; index += 1) sum += rewards[index] as number;
  const mean = sum / n;
  let squares = 0;
  for (let index = 0; index < n; index += 1) squares += ((rewards[index] as number) - mean) ** 2;
  return { mean, std: Math.sqrt(squares / (n - 1)) };
}

/**
 * GRPO's group-relative advantage (ALGORITHMS.md §0):
 *   A_i = (R_i − mean(R_group)) / (std(R_group) + 1e-6),
 * one number per rollout, later shared by every action token of rollout i.
 *
 * A group whose rewards are all equal gets exact zeros: the floating mean of equal values can be off by an
 * ulp, and dividing that by 1e-6 would turn "no signal" into a tiny spurious one.
 */
export function groupAdvantages(rewards: Numbers, epsilon: number = ADVANTAGE_EPSILON): Float64Array {
  const { mean, std } = groupStatistics(rewards);
  const advantages = new Float64Array(rewards.length);
  if (rewards.length > 1 && allEqual(rewards)) return advantages;
  for (let index = 0; index < rewards.length; index += 1) {
    advantages[index] = ((rewards[index] as number) - mean) / (std + epsilon);
  }
  return advantages;
}

/**
 * The one rule for a group that carries no relative signal: fewer than two scored rollouts, or all their
 * rewards equal. Its advantages are 0 (or, alone, just its raw reward), so it is not trained on (DAPO's
 * dynamic-sampling filter); its rollouts still count against the budget. GRPO applies it to a prompt's
 * rollouts, Tree-GRPO to all leaves of a prompt's trees.
 */
export function isTiedGroup(rewards: Numbers): boolean {
  return rewards.length < 2 || allEqual(rewards);
}

function allEqual(values: Numbers): boolean {
  for (let index = 1; index < values.length; index += 1) if (values[index] !== values[0]) return false;
  return true;
}
