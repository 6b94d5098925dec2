import { TurnGymError } from '@turngym/core';

/**
 * Self-AC's errors (codes in the style of `packages/core/src/errors.ts`):
 *
 * | code                | class              | meaning                                                       |
 * |---------------------|--------------------|---------------------------------------------------------------|
 * | PACKED_EPISODE      | PackedEpisodeError | a rollout that cannot be packed (no action, env error, an action of 0 tokens, tokens the segments do not cover, more steps than actions, a reward that is not a finite number, an expert record's disturbance turns) |
 * | EPISODE_TOO_LONG    | EpisodeTooLongError | a rollout whose first turn alone packs past `maxPackedTokens`, or whose first states with the critic prompt pass the model's positions (the trainer leaves it out and counts it) |
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
    /**
     * Packed tokens of the episode's first turn: s_0, cp_0, a_0, o_0, cp_1 against `maxPackedTokens`; against
     * the model's positions, the longest state the critic must read with its prompt (s_0 + cp or s_1 + cp).
     */
    readonly firstTurnTokens: number,
    readonly limit: number,
    /** Which limit it passes: the trainer's `maxPackedTokens`, or the model's context (`maxPositions`). */
    readonly limitName: 'maxPackedTokens' | 'maxPositions' = 'maxPackedTokens',
  ) {
    super(
      'EPISODE_TOO_LONG',
      limitName === 'maxPackedTokens'
        ? `${episodeId}: its first turn alone packs to ${firstTurnTokens} tokens, more than maxPackedTokens (${limit}); nothing of it can be trained.`
        : `${episodeId}: a state of its first turn and the critic prompt take ${firstTurnTokens} tokens, more than the model's ${limit} positions; nothing of it can be trained.`,
    );
  }
}

export class SelfAcSetupError extends TurnGymError {
  constructor(message: string) {
    super('SELF_AC_SETUP', message);
  }
}
