/**
 * CCAPO v4.1's edge score (ALGORITHMS.md §3, lines 96–99; seed `ccapo-v4.1.md` §3.2): how much the history
 * store trusts the transition E = (anchor → fingerprint), squashed into [0, 1]. Plain numbers only; the store
 * (`Stdb`) supplies the counts.
 */

/** What the history store knows about one edge E. */
export interface EdgeStatistics {
  /** N_total(E): episodes that passed through E, successful or not. */
  readonly total: number;
  /** N_succ(E): successful episodes that passed through E. */
  readonly successes: number;
  /**
   * d_goal(E): mean steps from E to the end of the successful episodes through it (0 for the last step);
   * null while no successful episode passed through E.
   */
  readonly distanceToGoal: number | null;
}

/** The store's episode counts: N_total^global and N_succ^total. */
export interface GlobalStatistics {
  readonly episodes: number;
  readonly successes: number;
}

/** The constants of the score. */
export interface EdgeScoreParameters {
  /** α of I(E)'s Bayesian smoothing: a Beta(α, α) prior; 1 is uniform (ALGORITHMS.md §3 line 96). */
  readonly priorCount: number;
  /** λ, the weight of C(E) in 1 + λ·C(E) (the seed leaves it open: 1 **[choice]**). */
  readonly criticalityWeight: number;
  /** The exponent of D(E) = 1/(d_goal + 1)^0.5 (line 98). */
  readonly distanceExponent: number;
}

export const EDGE_SCORE_DEFAULTS: EdgeScoreParameters = { priorCount: 1, criticalityWeight: 1, distanceExponent: 0.5 };

/** ε of C(E)'s two ratios (line 97): keeps 0/0 out, far below any count. */
export const CRITICALITY_EPSILON = 1e-8;

/**
 * I(E) = (N_succ(E) + α) / (N_total(E) + 2α) (ALGORITHMS.md §3 line 96): the success rate of episodes
 * through E, smoothed towards 1/2 while E has few visits (v4.1's fix of v4.0's marginal probability, which
 * collapsed to 0 once the graph had many edges).
 */
export function importance(edge: EdgeStatistics, priorCount: number = EDGE_SCORE_DEFAULTS.priorCount): number {
  return (edge.successes + priorCount) / (edge.total + 2 * priorCount);
}

/**
 * C(E) = [N_succ(E)/(N_total(E) + ε)] / [N_succ^total/(N_total^global + ε)] (line 97): how much more often
 * episodes through E succeed than episodes in general. A store that has never seen a success has no base
 * rate to divide by; every N_succ(E) is 0 then, so C(E) is 0 (not 0/0).
 */
export function criticality(edge: EdgeStatistics, global: GlobalStatistics): number {
  if (global.successes === 0) return 0;
  const conditional = edge.successes / (edge.total + CRITICALITY_EPSILON);
  const base = global.successes / (global.episodes + CRITICALITY_EPSILON);
  return conditional / (base + CRITICALITY_EPSILON);
}

/**
 * D(E) = 1/(d_goal(E) + 1)^0.5 (line 98): edges close to the goal weigh more. An edge no successful episode
 * went through has no distance to the goal; it gets D = 1 **[choice]**, so I(E) (which keeps falling with
 * every failure, thanks to the smoothing) alone ranks such edges, and C(E) = 0 already marks them.
 */
export function distanceDecay(edge: EdgeStatistics, exponent: number = EDGE_SCORE_DEFAULTS.distanceExponent): number {
  if (edge.distanceToGoal === null) return 1;
  return 1 / (edge.distanceToGoal + 1) ** exponent;
}

/**
 * Q(E) = sigmoid(log(I(E)·(1 + λ·C(E))·D(E))) (ALGORITHMS.md §3 line 99), in [0, 1]. Since
 * sigmoid(log x) = x/(1 + x), it is computed that way: no log of a tiny product, no overflow.
 */
export function edgeScore(
  edge: EdgeStatistics,
  global: GlobalStatistics,
  parameters: EdgeScoreParameters = EDGE_SCORE_DEFAULTS,
): number {
  const x =
    importance(edge, parameters.priorCount) *
    (1 + parameters.criticalityWeight * criticality(edge, global)) *
    distanceDecay(edge, parameters.distanceExponent);
  return x / (1 + x);
}
