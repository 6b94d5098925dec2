import { groupAdvantages, isTiedGroup } from './group-advantages';
import { hasActionTokens } from './loss-mask';
import type { UpdateSample } from './ppo-update';
import { assertFiniteRewards } from './trainer-kit/trainer-errors';
import type { Trajectory } from './trajectory';

/** What a non-finite reward would have done in a builder's group statistics: said by its error. */
export const NON_FINITE_GROUP_ADVICE =
  'A NaN makes every advantage of its group NaN, and a group of one, or of equal infinities, would be skipped as tied without a word; fix the env (or the record) before building advantages.';

/**
 * GRPO's update samples straight from the sampled trajectories (ALGORITHMS.md §0): per prompt (`group` 0 …
 * `prompts` − 1), A_i = (R_i − mean_g R) / (std_g R + 1e-6) over its rollouts' returns, broadcast to every
 * action token of rollout i. A rollout the env failed on is reported, never scored: it leaves its group. A
 * scored rollout whose return (`totalReward`) is not a finite number is refused (`NonFiniteRewardError`, naming
 * its episode) before any group is built, and so is a rollout whose `group` lies outside 0 … `prompts` − 1
 * (it was left out without a word). A
 * tied group (`isTiedGroup`) has no signal and gives no samples; its rollouts still count against the budget.
 * A rollout cut before its first action counts in its group's statistics but has nothing to train
 * (`hasActionTokens`). Any trainer whose advantage is GRPO's (Plan/Act writes one final reward to every role's
 * sample) takes it from here; `treeAdvantageSamples` is Tree-GRPO's twin.
 */
export function groupAdvantageSamples(trajectories: readonly Trajectory[], prompts: number): UpdateSample[] {
  assertFiniteRewards(
    trajectories.filter((trajectory) => trajectory.stopReason !== 'error'),
    'groupAdvantageSamples',
    { steps: false, advice: NON_FINITE_GROUP_ADVICE },
  );
  // A rollout of a group the loop below never visits would leave the update without a word.
  const stray = trajectories.find(
    (trajectory) => !Number.isInteger(trajectory.group) || trajectory.group < 0 || trajectory.group >= prompts,
  );
  if (stray) {
    throw new RangeError(
      `groupAdvantageSamples: episode ${stray.episodeId} is in group ${String(stray.group)}, outside the ${prompts} prompts (groups 0 … ${prompts - 1}); pass the number of prompts the rollouts were collected for.`,
    );
  }
  const samples: UpdateSample[] = [];
  for (let group = 0; group < prompts; group++) {
    const members = trajectories.filter((t) => t.group === group && t.stopReason !== 'error');
    const rewards = members.map((member) => member.totalReward);
    if (isTiedGroup(rewards)) continue;
    const advantages = groupAdvantages(rewards);
    members.forEach((trajectory, index) => {
      if (hasActionTokens(trajectory)) samples.push({ trajectory, advantage: advantages[index]! });
    });
  }
  return samples;
}
