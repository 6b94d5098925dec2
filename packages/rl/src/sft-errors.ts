import { TurnGymError } from '@turngym/core';

/**
 * SFT data that cannot be trained on as given: no trajectories, a trajectory without action tokens, or
 * one longer than the model's context. The message names the trajectory, so the data (or `maxTokens`, or
 * `maxObservationTokens` when collecting) can be fixed rather than the model silently trained on less.
 */
export class SftDataError extends TurnGymError {
  constructor(message: string) {
    super('SFT_DATA', message);
  }
}

/**
 * The env or its expert threw while expert trajectories were collected. An expert that cannot play is a
 * setup problem (wrong options, an expert that needs the env in this process), not a failed episode, so it
 * stops the collection instead of being dropped; the message names the env, the agent and the seed.
 */
export class ExpertEpisodeError extends TurnGymError {
  constructor(
    readonly envId: string,
    readonly agent: string,
    readonly seed: number,
    cause: unknown,
  ) {
    super(
      'EXPERT_EPISODE',
      `${envId} seed ${seed}: the "${agent}" agent's episode failed: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
  }
}
