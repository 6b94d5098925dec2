import { TurnGymError } from '@turngym/core';

/**
 * Self-AC's errors (codes in the style of `packages/core/src/errors.ts`):
 *
 * | code                | class              | meaning                                                       |
 * |---------------------|--------------------|---------------------------------------------------------------|
 * | PACKED_EPISODE      | PackedEpisodeError | a rollout that cannot be packed (no action, env error, steps that do not match its actions, a critic prompt past the context) |
 * | SELF_AC_SETUP       | SelfAcSetupError   | the model or trainer lacks what Self-AC needs (a value head, a chat form for the critic prompt) |
 */
export class PackedEpisodeError extends TurnGymError {
  constructor(
    readonly episodeId: string,
    message: string,
  ) {
    super('PACKED_EPISODE', `${episodeId}: ${message}`);
  }
}

export class SelfAcSetupError extends TurnGymError {
  constructor(message: string) {
    super('SELF_AC_SETUP', message);
  }
}
