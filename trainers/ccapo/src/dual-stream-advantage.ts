/**
 * CCAPO v4.1's two advantage streams and their fusion (ALGORITHMS.md §3 lines 100–105; seed §4–§5), on plain
 * numbers: the macro stream scores whole episodes within their task group (efficiency), the micro stream
 * scores each step against the history store's baseline (quality); each is z-scored on its own, then mixed.
 */
import { groupAdvantages, groupStatistics } from '@turngym/rl';

/** The macro reward's constants (line 100; the seed's v4.1 values). */
export interface MacroRewardParameters {
  /** R_terminal: paid once when the episode succeeds. */
  readonly terminalReward: number;
  /** R_penalty: paid every step, always ≤ 0 (the time cost). */
  readonly stepPenalty: number;
}

export const MACRO_REWARD_DEFAULTS: MacroRewardParameters = { terminalReward: 10, stepPenalty: -0.1 };

/** σ_min of the micro stream's z-score (line 104). */
export const MICRO_SIGMA_MIN = 0.1;

/**
 * R_τ = 1[success]·R_terminal + N_step·R_penalty (ALGORITHMS.md §3 line 100): success in 10 steps → 9.0,
 * in 40 → 6.0; failure at 30 steps → −3.0. Loop steps count in N_step too (line 103).
 */
export function macroReward(
  success: boolean,
  steps: number,
  parameters: MacroRewardParameters = MACRO_REWARD_DEFAULTS,
): number {
  return (success ? parameters.terminalReward : 0) + steps * parameters.stepPenalty;
}

/**
 * A_macro(i) = (R_τ(i) − mean_group R_τ) / (std_group R_τ + ε) (line 101): GRPO's group z-score of the macro
 * reward over the rollouts of one task (`groupAdvantages`, the same math as GRPO's).
 *
 * A task left with one scored rollout (its siblings' envs failed) has no group to be compared with: its
 * A_macro is 0, as GRPO leaves such a group out (`isTiedGroup`). `groupAdvantages`' group-of-one rule
 * (mean 0, std 1: A = R) is made for rewards in [0, 1]; on R_τ's scale it would hand the survivor 9.0
 * (a 10-step success) or −3.0 (a failure at 30) on every turn, several times any z-score of the batch.
 */
export function macroAdvantages(macroRewards: readonly number[]): Float64Array {
  if (macroRewards.length < 2) return new Float64Array(macroRewards.length);
  return groupAdvantages(macroRewards);
}

/**
 * A_micro_raw(i, t) = Q(s_t, a_t) − V̄(S_anchor) (line 102): better or worse than the history's expectation
 * at this anchor. 0 when the anchor is unknown to the store (no baseline: the macro stream explores alone)
 * and on loop steps (their R_micro is 0: no farming the store's high-score region). An edge the store has
 * never seen scores Q = 0 (seed §4.2).
 */
export function rawMicroAdvantage(step: {
  readonly edgeScore: number;
  readonly baseline: number | null;
  readonly loop: boolean;
}): number {
  if (step.loop || step.baseline === null) return 0;
  return step.edgeScore - step.baseline;
}

/**
 * A_micro = (raw − mean_batch raw) / max(std_batch raw, σ_min) (ALGORITHMS.md §3 line 104), over every step
 * of the batch (the zeros of unknown anchors and loops included). σ_min keeps a batch of mostly zeros (a young
 * store) from blowing its few non-zero values up to the macro stream's scale. The std is the unbiased one,
 * as the macro stream's (`microStatistics`).
 *
 * A batch whose raw values are all equal gets exact zeros, as `groupAdvantages` gives a tied group: the
 * floating mean of five equal values can be an ulp off them, and the ~1e-16 left over made a tied task group's
 * turns look non-zero, so its rollouts were trained on (KL and all) instead of skipped.
 */
export function microAdvantages(raw: readonly number[], sigmaMin: number = MICRO_SIGMA_MIN): Float64Array {
  const result = new Float64Array(raw.length);
  if (raw.every((value) => value === raw[0])) return result;
  const { mean, std } = microStatistics(raw);
  const scale = Math.max(std, sigmaMin);
  raw.forEach((value, index) => (result[index] = (value - mean) / scale));
  return result;
}

/**
 * The mean and std `microAdvantages` z-scores a batch with: the unbiased std, 0 for a single step (its only
 * value is its mean). 0 and 0 for an empty batch. `stdb/micro_raw_std` logs this std, so it can be read against
 * σ_min.
 */
export function microStatistics(raw: readonly number[]): { mean: number; std: number } {
  if (raw.length === 0) return { mean: 0, std: 0 };
  return raw.length === 1 ? { mean: raw[0]!, std: 0 } : groupStatistics(raw);
}

/** A_total(t) = A_macro(i) + β·A_micro(i, t) (ALGORITHMS.md §3 line 105), β ∈ [0.5, 1]. */
export function fuseAdvantages(macro: number, micro: readonly number[], beta: number): number[] {
  return micro.map((value) => macro + beta * value);
}
