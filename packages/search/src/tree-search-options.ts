import { defineOptions, InvalidOptionsError, type JSONSchemaType } from '@turngym/core';

/**
 * Options of `TreeSearch` (the JSON half; the hooks, which are functions, are `TreeSearchHooks`). Type and
 * schema side by side so they cannot drift; defaults are filled by validation.
 */
export interface TreeSearchOptions {
  /** Simulations per `search()` call: each forks the root, descends, evaluates one new leaf, backs up. */
  simulations: number;
  /**
   * How a node picks the action to descend through (ALGORITHMS.md §5):
   * - `uct`: untried actions first (one per simulation, drawn with the search's seeded stream), then the
   *   largest `Q + c·sqrt(ln N / n)` (Kocsis & Szepesvári 2006); priors are not used.
   * - `puct`: AlphaZero's `Q + P·c(N)·sqrt(N)/(1 + n)` over every legal action, tried or not (an untried one
   *   has Q = 0, as in LightZero's AlphaZero), with `c(N) = ln((N + cBase + 1)/cBase) + cInit`.
   * A `score` hook replaces the formula of either rule (UCT still tries untried actions first).
   */
  rule: 'uct' | 'puct';
  /** c of the UCT rule (default √2 ≈ 1.41, the reference bot's constant). */
  exploration: number;
  /** c_base of PUCT's exploration schedule (AlphaZero / LightZero: 19652). */
  cBase: number;
  /** c_init of PUCT's exploration schedule (AlphaZero / LightZero: 1.25). */
  cInit: number;
  /** α of the Dirichlet noise mixed into the root's priors (LightZero's AlphaZero: 0.3). */
  dirichletAlpha: number;
  /**
   * Weight of that noise: root priors = (1 − w)·P + w·Dir(α). AlphaZero self-play uses 0.25; the default 0
   * (no noise) suits evaluation. Only `puct` reads priors, so only `puct` takes it (with `uct` it is refused).
   */
  dirichletWeight: number;
  /** γ applied to rewards and leaf values when backing up (1: the undiscounted return, as the reference bot). */
  discount: number;
  /**
   * Equal scores: `random` draws among the tied actions with the search's seeded stream (no bias towards the
   * first action); `first` takes the first in the action list (the reference bot's `>` scan).
   */
  tieBreak: 'random' | 'first';
  /**
   * The action a search returns: `visits` = the most visited root child (AlphaZero), or one sampled with
   * probability ∝ visits^(1/temperature) when `temperature` > 0; `mean` = the visited child with the best mean
   * return, more visits breaking a tie (the reference seller bot).
   */
  choose: 'visits' | 'mean';
  /** τ for `choose: 'visits'` (refused with `mean`): 0 takes the most visited child, 1 samples ∝ visits. */
  temperature: number;
  /** Longest random rollout of the default value hook (unset: to the end of the episode). */
  maxRolloutSteps?: number;
  /** Seeds every choice the search makes: untried order, ties, rollouts, noise, sampling. */
  seed: number;
}

export const treeSearchOptionsSchema: JSONSchemaType<TreeSearchOptions> = {
  type: 'object',
  additionalProperties: false,
  required: ['simulations'],
  properties: {
    simulations: { type: 'integer', minimum: 1 },
    rule: { type: 'string', enum: ['uct', 'puct'], default: 'uct' },
    exploration: { type: 'number', minimum: 0, default: Math.SQRT2 },
    cBase: { type: 'number', exclusiveMinimum: 0, default: 19652 },
    cInit: { type: 'number', minimum: 0, default: 1.25 },
    dirichletAlpha: { type: 'number', exclusiveMinimum: 0, default: 0.3 },
    dirichletWeight: { type: 'number', minimum: 0, maximum: 1, default: 0 },
    discount: { type: 'number', minimum: 0, maximum: 1, default: 1 },
    tieBreak: { type: 'string', enum: ['random', 'first'], default: 'random' },
    choose: { type: 'string', enum: ['visits', 'mean'], default: 'visits' },
    temperature: { type: 'number', minimum: 0, default: 0 },
    maxRolloutSteps: { type: 'integer', minimum: 0, nullable: true },
    seed: { type: 'integer', default: 0 },
  },
};

const validateSchema = defineOptions<TreeSearchOptions>('tree search', treeSearchOptionsSchema);

/**
 * The schema's checks, then the settings a rule or choice would silently ignore: `temperature` samples by visits
 * (`choose: 'mean'` never reads it) and root noise goes into priors (`uct` never reads them). Set, they would
 * leave a search deterministic, or noiseless, where its caller asked otherwise.
 */
export const validateTreeSearchOptions = Object.assign(
  (input: unknown): TreeSearchOptions => {
    const options = validateSchema(input);
    const problems: string[] = [];
    if (options.choose === 'mean' && options.temperature !== 0)
      problems.push(
        `options.temperature (${options.temperature}) samples by visits: it needs choose "visits", not "mean"`,
      );
    if (options.rule === 'uct' && options.dirichletWeight !== 0)
      problems.push(
        `options.dirichletWeight (${options.dirichletWeight}) adds noise to priors, which only rule "puct" reads`,
      );
    if (problems.length > 0) throw new InvalidOptionsError('tree search', problems);
    return options;
  },
  { schema: validateSchema.schema },
);
