import { groupAdvantages, isTiedGroup } from './group-advantages';
import { hasActionTokens } from './loss-mask';
import type { UpdateSample } from './ppo-update';
import type { Trajectory } from './trajectory';

/**
 * GRPO's update samples straight from the sampled trajectories (ALGORITHMS.md §0): per prompt (`group` 0 …
 * `prompts` − 1), A_i = (R_i − mean_g R) / (std_g R + 1e-6) over its rollouts' returns, broadcast to every
 * action token of rollout i. A rollout the env failed on is reported, never scored: it leaves its group. A
 * tied group (`isTiedGroup`) has no signal and gives no samples; its rollouts still count against the budget.
 * A rollout cut before its first action counts in its group's statistics but has nothing to train
 * (`hasActionTokens`). Any trainer whose advantage is GRPO's (Plan/Act writes one final reward to every role's
 * sample) takes it from here; `treeAdvantageSamples` is Tree-GRPO's twin.
 */
export function groupAdvantageSamples(trajectories: readonly Trajectory[], prompts: number): UpdateSample[] {
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
