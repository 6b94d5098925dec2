import { InvalidOptionsError } from '@turngym/core';

/**
 * Self-AC's episode vectors (ALGORITHMS.md §2; the slide's "集向量", p-episode vectors: each entry is one
 * turn's or one state's property), in the packed sequence's token indices.
 */
export interface EpisodeVectors {
  /** a_start: first token of each action a_0 … a_(n−1) (inclusive). */
  readonly aStart: readonly number[];
  /** a_end: last token of each action (inclusive). */
  readonly aEnd: readonly number[];
  /** cp_start: first token of each critic prompt cp_0 … cp_n (inclusive). */
  readonly cpStart: readonly number[];
  /** cp_end: last token of each critic prompt (inclusive); V(s_k) is the value head there. */
  readonly cpEnd: readonly number[];
  /** π_old(a_k | s_k): the rollout-time probability of each whole action (may underflow for long actions). */
  readonly piOld: readonly number[];
  /** log π_old(a_k | s_k) = Σ of the action's sampling logprobs: what the log-space ratio uses. */
  readonly logPiOld: readonly number[];
  /** r_0 … r_n: r_k is the reward from s_k to s_(k+1); r_n = 0 (nothing follows the last state). */
  readonly rewards: readonly number[];
  /** R_0 … R_n: the return from s_k, discounted by λ: R_k = Σ_j λ^j r_(k+j). */
  readonly returns: readonly number[];
  /**
   * λ that `returns` were discounted with (`packEpisode`'s `discount`). The loss reads λ from here, so the
   * actor's R and the critic's TD targets cannot disagree (`episodeDiscount`); vectors made by hand may leave
   * it out, and then the loss's `discount` option is the only λ.
   */
  readonly discount?: number;
  /** Whether s_n is terminal (the task ended): then V(s_n) is 0 by definition, not the head's output. */
  readonly terminal: boolean;
  /**
   * Whether the packed episode was cut short of its rollout (its later turns did not fit the context or
   * `maxPackedTokens`): the rollout's rewards after s_n are known, so the critic's targets take the known
   * return R_n in place of a bootstrap V(s_n) (`tdRewards`), and V(s_n) is not read, as for a terminal state.
   */
  readonly cut: boolean;
}

/**
 * The rewards the TD targets read (§2's r, a cut episode closed) **[choice]**: for a cut episode r_(n−1) is
 * replaced by R_(n−1) = r_(n−1) + λ·R_n (R counts the whole rollout), with V(s_n) read as 0. Then every
 * Y_j of state k that reaches s_n is Σ_(i<n−k) λ^i r_(k+i) + λ^(n−k)·R_n, the known return, for every
 * horizon j; a bootstrap V(s_n) would reach only the targets that land exactly on s_n (§2's shift reads 0
 * past the last state), so the longer horizons would take the cut for an end with no reward.
 */
export function tdRewards(vectors: EpisodeVectors): number[] {
  const rewards = [...vectors.rewards];
  const n = vectors.aStart.length;
  if (vectors.cut && n > 0) rewards[n - 1] = vectors.returns[n - 1]!;
  return rewards;
}

/** Whether V(s_n) is the head's output (else 0): not for a terminal or a cut episode. */
export function lastStateLive(vectors: EpisodeVectors): boolean {
  return !vectors.terminal && !vectors.cut;
}

/**
 * The return from each state as the actor's advantage and the critic's targets read it **[choice]**: R_k for
 * an episode that ended (terminal) or whose known return closes it (cut); for one cut short by a time limit or
 * a budget (truncated, `lastStateLive`), R_k + λ^(n−k)·V(s_n), since the rewards after s_n are unknown, not 0:
 * V(s_n) stands in for them, as it does in the critic's TD targets (rl's `tdCriticLoss` `bootstrap`).
 * Without it the last turns before a time limit would be told they were worse than expected by λ^(n−k)·V(s_n).
 */
export function bootstrappedReturns(vectors: EpisodeVectors, lastValue: number, discount: number): number[] {
  const n = vectors.aStart.length;
  if (!lastStateLive(vectors)) return [...vectors.returns];
  return vectors.returns.map((value, k) => value + discount ** (n - k) * lastValue);
}

/**
 * The one λ of a batch (§2 has one discount for R and for the TD targets): the λ the episodes' returns were
 * packed with (`packedWith`: each episode's `vectors.discount`), which must be the same for all of them and,
 * when `given` (a loss's or an update's `discount` option), equal to it. Two values would train the actor on
 * returns discounted by one λ against a critic whose TD targets and bootstrap use another, with no sign of it
 * in the numbers. `given` alone (vectors made by hand without `discount`) is used as it is; neither gives
 * undefined (the caller's default).
 */
export function episodeDiscount(
  packedWith: readonly (number | undefined)[],
  given: number | undefined,
  subject: string,
): number | undefined {
  const packed = [...new Set(packedWith.filter((discount): discount is number => discount !== undefined))];
  if (packed.length > 1) {
    throw new InvalidOptionsError(subject, [
      `the episodes were packed with different discounts (${packed.join(', ')}); λ has one value per batch: pack them with the same packEpisode discount`,
    ]);
  }
  const [fromEpisodes] = packed;
  if (given !== undefined && fromEpisodes !== undefined && given !== fromEpisodes) {
    throw new InvalidOptionsError(subject, [
      `discount is ${given}, but the episodes' returns were packed with discount ${fromEpisodes} (packEpisode's discount); λ has one value: leave discount out (it is read from the episodes) or pack with ${given}`,
    ]);
  }
  return given ?? fromEpisodes;
}

/** R_k = r_k + λ·R_(k+1), R past the end = 0 (ALGORITHMS.md §2). */
export function discountedReturns(rewards: readonly number[], discount: number): number[] {
  const returns = new Array<number>(rewards.length).fill(0);
  let next = 0;
  for (let k = rewards.length - 1; k >= 0; k -= 1) {
    next = (rewards[k] as number) + discount * next;
    returns[k] = next;
  }
  return returns;
}

/**
 * A batch of episode vectors right-padded to the longest episode (ALGORITHMS.md §2): B episodes × K turns
 * (the most actions) or × S = K + 1 states, row-major. V, r and R pad with 0, π_old with 1 (so log π_old
 * with 0), token indices with 0 — as the slide's example matrices.
 */
export interface EpisodeBatch {
  readonly episodes: number;
  /** K: the most actions of an episode in the batch. */
  readonly turns: number;
  /** S = K + 1: the most states. */
  readonly states: number;
  readonly aStart: Int32Array;
  readonly aEnd: Int32Array;
  readonly cpStart: Int32Array;
  readonly cpEnd: Int32Array;
  readonly piOld: Float32Array;
  readonly logPiOld: Float32Array;
  /** r as the TD targets read it (`tdRewards`: a cut episode's last reward carries the return after it). */
  readonly rewards: Float32Array;
  readonly returns: Float32Array;
  /** λ of the batch's returns (`episodeDiscount`): undefined when no episode says. */
  readonly discount: number | undefined;
  /** [B·K] 1 where episode b has action k. */
  readonly turnMask: Float32Array;
  /** [B·S] 1 where episode b has state k. */
  readonly stateMask: Float32Array;
  /**
   * [B·S] 1 where V(s_k) is the head's output: every state but padding, a terminal s_n (whose value is 0) and
   * a cut episode's s_n (whose known return is in `rewards`). A truncated episode's s_n stays: it is the
   * bootstrap value of the states before it.
   */
  readonly live: Float32Array;
  /**
   * [B·S] the critic's loss mask: 1 on s_0 … s_(n−1). s_n has no target of its own (its TD target would read
   * past the end, i.e. call it terminal), so it is only ever read, as a bootstrap.
   */
  readonly criticMask: Float32Array;
  /**
   * [B·S] 1 on s_n of a truncated episode (`lastStateLive`): every TD target and return reaching past it reads
   * V(s_n) there (`bootstrappedReturns`; rl's `tdCriticLoss` `bootstrap`).
   */
  readonly bootstrap: Float32Array;
}

export function padEpisodeVectors(episodes: readonly EpisodeVectors[]): EpisodeBatch {
  const B = episodes.length;
  const K = Math.max(0, ...episodes.map((episode) => episode.aStart.length));
  const S = K + 1;
  const batch = {
    episodes: B,
    turns: K,
    states: S,
    discount: episodeDiscount(
      episodes.map((episode) => episode.discount),
      undefined,
      'padEpisodeVectors',
    ),
    aStart: new Int32Array(B * K),
    aEnd: new Int32Array(B * K),
    cpStart: new Int32Array(B * S),
    cpEnd: new Int32Array(B * S),
    piOld: new Float32Array(B * K).fill(1),
    logPiOld: new Float32Array(B * K),
    rewards: new Float32Array(B * S),
    returns: new Float32Array(B * S),
    turnMask: new Float32Array(B * K),
    stateMask: new Float32Array(B * S),
    live: new Float32Array(B * S),
    criticMask: new Float32Array(B * S),
    bootstrap: new Float32Array(B * S),
  };
  episodes.forEach((episode, b) => {
    const n = episode.aStart.length;
    batch.aStart.set(episode.aStart, b * K);
    batch.aEnd.set(episode.aEnd, b * K);
    batch.piOld.set(episode.piOld, b * K);
    batch.logPiOld.set(episode.logPiOld, b * K);
    batch.turnMask.fill(1, b * K, b * K + n);
    batch.cpStart.set(episode.cpStart, b * S);
    batch.cpEnd.set(episode.cpEnd, b * S);
    batch.rewards.set(tdRewards(episode), b * S);
    batch.returns.set(episode.returns, b * S);
    batch.stateMask.fill(1, b * S, b * S + n + 1);
    batch.live.fill(1, b * S, b * S + (lastStateLive(episode) ? n + 1 : n));
    batch.criticMask.fill(1, b * S, b * S + n);
    if (lastStateLive(episode)) batch.bootstrap[b * S + n] = 1;
  });
  return batch;
}
