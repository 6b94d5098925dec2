/**
 * GiGPO's two-level advantages (ALGORITHMS.md §5b lines 143–147; reference: verl-agent `gigpo/core_gigpo.py`),
 * on plain numbers: an episode-level group z-score over the rollouts of one task, and a step-level one over the
 * steps of those rollouts that stood in the same anchor state.
 */
import { groupAdvantages } from '@turngym/rl';

/** γ of the discounted step returns (line 145). */
export const GIGPO_GAMMA = 0.95;

/**
 * The discounted Monte-Carlo return of every step, R_t = Σ_{k≥t} γ^{k−t} r_k (ALGORITHMS.md §5b line 145),
 * computed backwards: R_t = r_t + γ·R_{t+1}.
 */
export function discountedReturns(rewards: readonly number[], gamma: number = GIGPO_GAMMA): number[] {
  const returns = new Array<number>(rewards.length);
  let next = 0;
  for (let t = rewards.length - 1; t >= 0; t--) {
    next = rewards[t]! + gamma * next;
    returns[t] = next;
  }
  return returns;
}

/** One rollout of a task group, as the step level sees it: its steps' anchor states and rewards. */
export interface GroupRollout {
  /** The episode return R_i (the episode level). */
  readonly episodeReturn: number;
  /** Per step: the anchor state the step was taken in (states equal as strings are the same state). */
  readonly anchors: readonly string[];
  /** Per step: the reward r_t of that step. */
  readonly rewards: readonly number[];
}

/** A task group's advantages per rollout and step, with how its steps grouped. */
export interface GroupAdvantages {
  /** A_episode(i): the group z-score of R_i (line 143). */
  readonly episode: number[];
  /** A_step(i, t): the z-score of R_t among the steps of the group in the same anchor state; 0 alone (line 146). */
  readonly step: number[][];
  /** Anchor-state step groups formed (distinct anchors in the task group). */
  readonly stepGroups: number;
  /** Of those, the groups of one step: their A_step is 0. */
  readonly singletonGroups: number;
}

/**
 * Both levels for one task group (ALGORITHMS.md §5b lines 143–146). Steps are grouped by anchor state across
 * all rollouts of the group; a group of two or more gets A_step = (R_t − mean)/(std + 1e-6) (the unbiased std
 * and ε of GRPO's `groupAdvantages`, so equal returns give exact zeros); a singleton group gets 0.
 */
export function gigpoGroupAdvantages(rollouts: readonly GroupRollout[], gamma: number = GIGPO_GAMMA): GroupAdvantages {
  const episode = rollouts.length > 0 ? Array.from(groupAdvantages(rollouts.map((r) => r.episodeReturn))) : [];
  const returns = rollouts.map((rollout) => discountedReturns(rollout.rewards, gamma));
  const members = new Map<string, [number, number][]>();
  rollouts.forEach((rollout, i) =>
    rollout.anchors.forEach((anchor, t) => {
      const list = members.get(anchor) ?? [];
      list.push([i, t]);
      members.set(anchor, list);
    }),
  );
  const step = rollouts.map((rollout) => rollout.anchors.map(() => 0));
  let singletonGroups = 0;
  for (const list of members.values()) {
    if (list.length < 2) {
      singletonGroups += 1;
      continue;
    }
    const advantages = groupAdvantages(list.map(([i, t]) => returns[i]![t]!));
    list.forEach(([i, t], k) => (step[i]![t] = advantages[k]!));
  }
  return { episode, step, stepGroups: members.size, singletonGroups };
}

/** A(i, t) = A_episode(i) + ω·A_step(i, t) (ALGORITHMS.md §5b line 147). */
export function combineGigpo(episode: number, step: readonly number[], omega: number): number[] {
  return step.map((value) => episode + omega * value);
}
