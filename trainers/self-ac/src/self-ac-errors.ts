import { TurnGymError } from '@turngym/core';

/**
 * Self-AC's errors (codes in the style of `packages/core/src/errors.ts`):
 *
 * | code                | class              | meaning                                                       |
 * |---------------------|--------------------|---------------------------------------------------------------|
 * | PACKED_EPISODE      | PackedEpisodeError | a rollout that cannot be packed (no action, env error, steps that do not match its actions, a critic prompt past the context) |
 * | EPISODE_TOO_LONG    | EpisodeTooLongError | a rollout whose first turn alone packs past `maxPackedTokens` (the trainer leaves it out and counts it) |
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

export class EpisodeTooLongError extends TurnGymError {
  constructor(
    readonly episodeId: string,
    /** Packed tokens of the episode's first turn: s_0, cp_0, a_0, o_0, cp_1. */
    readonly firstTurnTokens: number,
    readonly limit: number,
  ) {
    super(
      'EPISODE_TOO_LONG',
      `${episodeId}: its first turn alone packs to ${firstTurnTokens} tokens, more than maxPackedTokens (${limit}); nothing of it can be trained.`,
    );
  }
}

export class SelfAcSetupError extends TurnGymError {
  constructor(message: string) {
    super('SELF_AC_SETUP', message);
  }
}
