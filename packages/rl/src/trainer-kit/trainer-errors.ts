import { TurnGymError } from '@turngym/core';
import type { Trajectory } from '../trajectory';

/**
 * An env returned a reward that is not a finite number (NaN or ±Infinity). Advantages, returns and losses
 * built on it would be NaN, and the run would fail later with a message about the update, or write NaN
 * weights; the runner stops before the iteration trains or checkpoints and names the env, the episode and
 * the step, so the env can be fixed. The run resumes from its last checkpoint once it is. rl's advantage
 * builders (`groupAdvantageSamples`, `treeAdvantageSamples`) refuse such a record too, for loops of their own
 * (`advice` then says what the record would have done there); `step` is null when the steps are finite but the
 * record's `totalReward` is not.
 */
export class NonFiniteRewardError extends TurnGymError {
  constructor(
    readonly envId: string,
    readonly episodeId: string,
    readonly step: number | null,
    readonly reward: number,
    where: string,
    advice = 'Fix the env and run the same command: the run resumes from its last checkpoint (nothing of this iteration was saved).',
  ) {
    super(
      'NON_FINITE_REWARD',
      `${envId} returned ${step === null ? 'totalReward' : 'reward'} ${String(reward)}${step === null ? '' : ` at step ${step}`} of episode ${episodeId} (${where}); ` +
        `every reward must be a finite number. ${advice}`,
    );
  }
}

/**
 * Refuses a trajectory whose rewards are not all finite numbers before anything is computed from them, naming the
 * episode and the step (`NonFiniteRewardError`): each step's reward (the runner, `steps: true`), then the record's
 * `totalReward`, the one number the advantage builders read (a NaN step makes it NaN too).
 */
export function assertFiniteRewards(
  trajectories: readonly (Pick<Trajectory, 'envId' | 'episodeId' | 'totalReward'> &
    Partial<Pick<Trajectory, 'steps'>>)[],
  where: string,
  options: { readonly steps: boolean; readonly advice?: string },
): void {
  const { advice } = options;
  for (const trajectory of trajectories) {
    if (options.steps) {
      (trajectory.steps ?? []).forEach((step, index) => {
        if (!Number.isFinite(step.reward))
          throw new NonFiniteRewardError(trajectory.envId, trajectory.episodeId, index, step.reward, where, advice);
      });
    }
    if (!Number.isFinite(trajectory.totalReward))
      throw new NonFiniteRewardError(
        trajectory.envId,
        trajectory.episodeId,
        null,
        trajectory.totalReward,
        where,
        advice,
      );
  }
}

/**
 * Every rollout of an iteration (or of an evaluation) ended in an env error: a sandbox that is not installed,
 * a browser that does not start, a server that is down. Such rollouts are reported and never trained on, so
 * without this the run would go on "training" on nothing, logging a return of 0 with only `charts/env_errors`
 * to tell. The message carries the first error; the run resumes from its last checkpoint once the env works.
 */
export class EnvRolloutsFailedError extends TurnGymError {
  constructor(
    readonly envId: string,
    /** `iteration 3`, or `the evaluation after iteration 3`. */
    readonly where: string,
    readonly rollouts: number,
    readonly firstError: { readonly code: string; readonly message: string } | undefined,
  ) {
    super(
      'ENV_ROLLOUTS_FAILED',
      `${envId}: all ${rollouts} rollouts of ${where} ended in an env error, the first: ` +
        `${firstError ? `${firstError.message} (${firstError.code})` : 'no message'}. ` +
        'Fix the env and run the same command: the run resumes from its last checkpoint (nothing of this ' +
        'iteration was saved).',
    );
  }
}
