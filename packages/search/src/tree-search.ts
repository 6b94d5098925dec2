import { SeededRng } from '@turngym/core';
import type { Env, Info } from '@turngym/spec';
import { TreeSearchError } from './tree-search-error';
import { validateTreeSearchOptions, type TreeSearchOptions } from './tree-search-options';

/** Actions a search can key its tree by: a discrete space's indices, or strings from a finite list. */
export type SearchAction = number | string;

/** A state as the hooks see it. */
export interface SearchState<Obs, Act extends SearchAction> {
  /**
   * An env at this state: the simulation's own fork, closed after the simulation, so a value hook may step it
   * (the default one rolls out in it). At the root (priors only) it is a fork made for the hook.
   */
  readonly env: Env<Obs, Act>;
  /** The observation of this state (the root's only where `search` was given it). */
  readonly observation?: Obs;
  /** The info of the step (or reset) that reached this state; `info.actionMask` for discrete spaces. */
  readonly info: Info;
  /**
   * The legal actions here, in the order priors are given and ties are broken. At a truncated state (the value
   * hook only) they are those of its info, though the episode was cut before any of them could be taken.
   */
  readonly actions: readonly Act[];
  /**
   * True at a state whose step was `truncated` (a time limit cut the episode there, it did not end): the value
   * hook is asked for its value (a truncated state still has a future; Pardo et al. 2018), but no action follows
   * it in the search, and its `env` refuses to step.
   */
  readonly truncated?: boolean;
}

/** Picks a rollout action among the legal ones; the default is uniform with the search's seeded stream. */
export type SimulationPolicy<Act extends SearchAction> = (legal: readonly Act[], rng: SeededRng) => Act;

/** What the selection rule scores: one edge of a node. */
export interface EdgeStatistics<Act extends SearchAction> {
  readonly action: Act;
  /** n: simulations through this edge (0 if never taken). */
  readonly visits: number;
  /** Sum of the returns backed up through it (the return from its own action on). */
  readonly total: number;
  /** P: the edge's prior (the root's includes the Dirichlet noise); uniform under `uct`. */
  readonly prior: number;
  /** N: the visits of the node the edge leaves. */
  readonly parentVisits: number;
}

/** The functions a search calls; every one has a default, so `{}` is plain UCT with random rollouts. */
export interface TreeSearchHooks<Obs, Act extends SearchAction> {
  /**
   * The legal actions of a state. Default: a discrete space's indices where `info.actionMask` is not false
   * (all of them when the mask is absent or allows none, as the reference seller bot did). Other spaces need it.
   */
  actions?: (state: Omit<SearchState<Obs, Act>, 'actions'>) => readonly Act[];
  /** P(s, ·) over `state.actions` (normalised by the search; default uniform). Read by `puct` only. */
  prior?: (state: SearchState<Obs, Act>) => readonly number[] | Promise<readonly number[]>;
  /**
   * V(s) of a new non-terminal leaf: the expected discounted return from here. Also asked, once, for a state the
   * episode was truncated at (`state.truncated`): the cut ends the search's path there, not the state's future.
   * Default: one rollout to the end (or `maxRolloutSteps`) with `simulationPolicy`, which makes the search plain
   * Monte Carlo UCT; a rollout cannot go past a truncation, so it values a truncated state 0.
   */
  value?: (state: SearchState<Obs, Act>, rng: SeededRng) => number | Promise<number>;
  /** The default value hook's rollout policy (default: a legal action uniformly). */
  simulationPolicy?: SimulationPolicy<Act>;
  /** Replaces the rule's selection formula (e.g. the reference seller bot's smoothed UCT). Largest wins. */
  score?: (edge: EdgeStatistics<Act>) => number;
}

/**
 * A node of the search tree: exact for an env whose forks clone its random stream. Statistics are of the
 * return from the node's incoming action on (Q(parent, action) = total / visits).
 */
export class SearchNode<Act extends SearchAction> {
  visits = 0;
  total = 0;
  readonly children = new Map<Act, SearchNode<Act>>();
  /** P over `legal`, set when a `puct` search evaluates the node (without the root's noise). */
  priors: readonly number[] | undefined;
  /**
   * V(s) of a truncated node, from the value hook when it was reached first: backed up again on every visit, since
   * the search cannot go on past the cut to refine it.
   */
  value: number | undefined;

  constructor(
    /** Legal actions in this state (none where the episode ended or was cut). */
    readonly legal: readonly Act[],
    /** No action follows in the search: the episode terminated or was truncated here. */
    readonly terminal: boolean,
    /** The episode was truncated here (a time limit), not terminated: the state keeps its value V(s). */
    readonly truncated = false,
  ) {}
}

export interface SearchChild<Act extends SearchAction> {
  readonly action: Act;
  readonly visits: number;
  readonly total: number;
  /** total / visits (0 for an unvisited child). */
  readonly mean: number;
}

export interface TreeSearchResult<Act extends SearchAction> {
  /** The chosen action (`choose`, `temperature`). */
  readonly action: Act;
  /** The root's expanded children, in the order of the root's legal actions. */
  readonly children: readonly SearchChild<Act>[];
  /** π: the root's visit distribution over `tree.legal`, AlphaZero's policy target. */
  readonly policy: readonly number[];
  /** The root's mean backed-up return (its V estimate); 0 before any simulation reached it. */
  readonly rootValue: number;
  /** The priors the root was searched with, noise included (`puct` only). */
  readonly rootPriors: readonly number[] | undefined;
  readonly simulations: number;
  /** The tree; its child under `action` can seed the next search where the env is deterministic. */
  readonly tree: SearchNode<Act>;
}

/** Where a search starts, besides the env. */
export interface SearchStart<Obs, Act extends SearchAction> {
  /** The info of the last reset or step (its `actionMask` gives the root's legal actions). */
  info?: Info;
  /** The current observation (passed to the root's prior hook). */
  observation?: Obs;
  /** The subtree of this very state from an earlier search, to keep growing. */
  tree?: SearchNode<Act>;
}

/**
 * Monte Carlo tree search over any env that can `fork()` and whose actions form a finite list: UCT (plain
 * MCTS with random rollouts) or AlphaZero's PUCT with prior and value hooks (ALGORITHMS.md §5). Each
 * simulation forks the root env, descends by the rule to a state never reached before, evaluates it with the
 * value hook (and the prior hook under PUCT), and backs up G = r + γ·G along the path. The search owns one
 * seeded stream across calls, so the same seed and calls give the same tree.
 */
export class TreeSearch<Obs = unknown, Act extends SearchAction = number> {
  readonly options: Readonly<TreeSearchOptions>;
  private readonly rng: SeededRng;
  private readonly hooks: TreeSearchHooks<Obs, Act>;

  constructor(
    options: Partial<TreeSearchOptions> & Pick<TreeSearchOptions, 'simulations'>,
    hooks: TreeSearchHooks<Obs, Act> = {},
  ) {
    this.options = validateTreeSearchOptions(options);
    this.rng = new SeededRng(this.options.seed);
    this.hooks = hooks;
  }

  /** Searches from `env`'s current state (it is only forked, never stepped) and returns the decision. */
  async search(env: Env<Obs, Act>, start: SearchStart<Obs, Act> = {}): Promise<TreeSearchResult<Act>> {
    const info = start.info ?? {};
    if (!this.hooks.actions && env.spec.actionSpace.type !== 'discrete') {
      throw new TreeSearchError(
        `TreeSearch needs a discrete action space or an actions hook; ${env.spec.id} has ${env.spec.actionSpace.type}`,
      );
    }
    // A subtree from the last search already holds the statistics of this state: keep growing it.
    const root =
      start.tree && !start.tree.terminal
        ? start.tree
        : new SearchNode(this.legalActions(env, { env, info, observation: start.observation }), false);
    let rootPriors: readonly number[] | undefined;
    if (this.options.rule === 'puct') {
      if (!root.priors) {
        const fork = await env.fork();
        try {
          root.priors = await this.priors({ env: fork, info, observation: start.observation, actions: root.legal });
        } finally {
          await fork.close();
        }
      }
      rootPriors = this.withRootNoise(root.priors);
    }
    for (let i = 0; i < this.options.simulations; i++) await this.simulate(env, root, rootPriors);
    return this.result(root, rootPriors);
  }

  private async simulate(rootEnv: Env<Obs, Act>, root: SearchNode<Act>, rootPriors?: readonly number[]) {
    const env = await rootEnv.fork();
    try {
      const path: SearchNode<Act>[] = [root];
      const rewards: number[] = [];
      let node = root;
      let leaf: SearchState<Obs, Act> | undefined;
      // The new node joins the tree only once it is evaluated: a hook that throws leaves no unevaluated node
      // behind in a tree the caller may hand back (it would never get its priors or value).
      let expanded: { parent: SearchNode<Act>; action: Act } | undefined;
      // Selection, then expansion of the first state never reached before.
      while (!node.terminal) {
        const action = this.selectAction(node, node === root ? rootPriors : node.priors);
        const result = await env.step(action);
        rewards.push(result.reward);
        let child = node.children.get(action);
        if (!child) {
          // A truncation cuts the path, not the state's future: unlike a termination, it keeps a value.
          const truncated = !result.terminated && result.truncated;
          const terminal = result.terminated || result.truncated;
          const state = { env, info: result.info, observation: result.observation };
          const legal = result.terminated ? [] : this.legalActions(env, state, truncated);
          child = new SearchNode(terminal ? [] : legal, terminal, truncated);
          expanded = { parent: node, action };
          if (!result.terminated) leaf = { ...state, actions: legal, ...(truncated ? { truncated } : {}) };
        }
        path.push(child);
        node = child;
        if (expanded) break;
      }
      // Evaluation: a terminated state has no future return; a truncated one keeps the value it was given.
      let value = node.truncated ? (node.value ?? 0) : 0;
      if (leaf) {
        if (this.options.rule === 'puct' && !leaf.truncated) node.priors = await this.priors(leaf);
        value = await this.evaluate(leaf, rootEnv);
        if (leaf.truncated) node.value = value;
      }
      if (expanded) expanded.parent.children.set(expanded.action, node);
      // Backup: each node gets the discounted return from its own incoming action on, G = r + γ·G.
      for (let i = path.length - 1; i >= 1; i--) {
        value = (rewards[i - 1] as number) + this.options.discount * value;
        const each = path[i] as SearchNode<Act>;
        each.visits += 1;
        each.total += value;
      }
      root.visits += 1;
      root.total += value;
    } finally {
      await env.close();
    }
  }

  /** V(leaf) from the value hook (default: a rollout, which cannot go past a truncation: 0 there). */
  private async evaluate(leaf: SearchState<Obs, Act>, rootEnv: Env<Obs, Act>): Promise<number> {
    if (!this.hooks.value && leaf.truncated) return 0;
    const value = await (this.hooks.value ?? this.rollout)(leaf, this.rng);
    // One NaN would poison every mean on the path, and the choice made from them.
    if (!Number.isFinite(value)) {
      throw new TreeSearchError(
        `the value hook must give a finite number for a state of ${rootEnv.spec.id}, got ${value}`,
      );
    }
    return value;
  }

  /** UCT tries every action once (in a seeded random order) before scoring; PUCT scores them all. */
  private selectAction(node: SearchNode<Act>, priors: readonly number[] | undefined): Act {
    const { rule, exploration, cBase, cInit } = this.options;
    if (rule === 'uct') {
      const untried = node.legal.filter((action) => !node.children.has(action));
      if (untried.length > 0) return this.rng.pick(untried);
    }
    const parentVisits = node.visits;
    // PUCT's exploration schedule c(N) (AlphaZero pseudocode; LightZero's ptree `_ucb_score`).
    const schedule = Math.log((parentVisits + cBase + 1) / cBase) + cInit;
    const scores = node.legal.map((action, index) => {
      const child = node.children.get(action);
      const visits = child?.visits ?? 0;
      const total = child?.total ?? 0;
      const prior = priors?.[index] ?? 1 / node.legal.length;
      if (this.hooks.score) {
        const score = this.hooks.score({ action, visits, total, prior, parentVisits });
        // NaN loses every comparison: the action would silently never be chosen (or, all NaN, always the first).
        if (Number.isNaN(score))
          throw new TreeSearchError(`the score hook gave NaN for action ${JSON.stringify(action)}`);
        return score;
      }
      const q = visits > 0 ? total / visits : 0;
      if (rule === 'uct') return q + exploration * Math.sqrt(Math.log(parentVisits) / visits);
      return q + prior * schedule * (Math.sqrt(parentVisits) / (1 + visits));
    });
    return node.legal[this.argmax(scores)] as Act;
  }

  /** The index of the largest value, ties broken by `tieBreak` (exact equality: the scores are deterministic). */
  private argmax(values: readonly number[]): number {
    let best = Number.NEGATIVE_INFINITY;
    let tied: number[] = [];
    values.forEach((value, index) => {
      if (value > best) {
        best = value;
        tied = [index];
      } else if (value === best) tied.push(index);
    });
    if (tied.length === 0) return 0; // every score NaN: take the first rather than fail mid-search
    return tied.length === 1 || this.options.tieBreak === 'first' ? (tied[0] as number) : this.rng.pick(tied);
  }

  /** The default value hook: one rollout with the simulation policy, its discounted return. */
  private readonly rollout = async (state: SearchState<Obs, Act>, rng: SeededRng): Promise<number> => {
    const policy = this.hooks.simulationPolicy ?? ((legal: readonly Act[], stream: SeededRng) => stream.pick(legal));
    const limit = this.options.maxRolloutSteps ?? Number.POSITIVE_INFINITY;
    let legal = state.actions;
    let total = 0;
    let weight = 1;
    for (let step = 0; step < limit; step++) {
      const result = await state.env.step(policy(legal, rng));
      total += weight * result.reward;
      weight *= this.options.discount;
      if (result.terminated || result.truncated) break;
      legal = this.legalActions(state.env, { env: state.env, info: result.info, observation: result.observation });
    }
    return total;
  };

  /** `truncated`: a state no action follows, where a hook may list none. */
  private legalActions(
    env: Env<Obs, Act>,
    state: Omit<SearchState<Obs, Act>, 'actions'>,
    truncated = false,
  ): readonly Act[] {
    if (this.hooks.actions) {
      const actions = this.hooks.actions(state);
      if (actions.length === 0 && !truncated)
        throw new TreeSearchError(`the actions hook listed no action for a non-terminal state of ${env.spec.id}`);
      // The tree keys children by action: a repeated one would share a child and count its visits twice.
      const seen = new Set<Act>();
      for (const action of actions) {
        if (seen.has(action))
          throw new TreeSearchError(
            `the actions hook listed ${JSON.stringify(action)} twice for a state of ${env.spec.id}`,
          );
        seen.add(action);
      }
      return actions;
    }
    const space = env.spec.actionSpace;
    const n = space.type === 'discrete' ? space.n : 0;
    // Otherwise the search would step `undefined`, and the env's error would not say why.
    if (n === 0 && !truncated)
      throw new TreeSearchError(`${env.spec.id} has a discrete space of 0 actions: nothing to search`);
    const all = Array.from({ length: n }, (_, index) => index);
    const mask = state.info.actionMask;
    const legal = Array.isArray(mask) ? all.filter((index) => mask[index] !== false) : all;
    return (legal.length > 0 ? legal : all) as unknown as readonly Act[];
  }

  private async priors(state: SearchState<Obs, Act>): Promise<readonly number[]> {
    if (!this.hooks.prior) return state.actions.map(() => 1 / state.actions.length);
    const raw = await this.hooks.prior(state);
    const sum = raw.reduce((total, p) => total + p, 0);
    if (raw.length !== state.actions.length || raw.some((p) => !(p >= 0) || !Number.isFinite(p)) || !(sum > 0)) {
      throw new TreeSearchError(
        `the prior hook must give ${state.actions.length} non-negative finite numbers with a positive sum ` +
          `(one per legal action), got [${raw.join(', ')}]`,
      );
    }
    return raw.map((p) => p / sum);
  }

  /** (1 − w)·P + w·η with η ~ Dir(α) (AlphaZero: exploration at the root only, redrawn for each search). */
  private withRootNoise(priors: readonly number[]): readonly number[] {
    const { dirichletAlpha, dirichletWeight } = this.options;
    if (dirichletWeight === 0 || priors.length < 2) return priors;
    const { weights, sum } = this.dirichlet(dirichletAlpha, priors.length);
    return priors.map((p, index) => (1 - dirichletWeight) * p + (dirichletWeight * (weights[index] as number)) / sum);
  }

  /**
   * η ~ Dir(α, …, α) as weights over their sum: Gamma(α) draws, each drawn as `SeededRng.gamma` draws it. Below
   * α = 1 that is Gamma(α + 1)·U^(1/α), which underflows to 0 for a small α (U^(1/α) < 1e-308): when every draw
   * did, their logs, log Gamma(α + 1) + log(U)/α, give the weights instead, rather than 0/0 = NaN priors.
   */
  private dirichlet(alpha: number, count: number): { weights: number[]; sum: number } {
    const total = (weights: readonly number[]) => weights.reduce((sum, w) => sum + w, 0);
    if (alpha >= 1) {
      const weights = Array.from({ length: count }, () => this.rng.gamma(alpha));
      return { weights, sum: total(weights) };
    }
    const draws = Array.from({ length: count }, () => {
      const boost = this.rng.gamma(alpha + 1);
      const uniform = 1 - this.rng.next();
      return { gamma: boost * Math.pow(uniform, 1 / alpha), log: Math.log(boost) + Math.log(uniform) / alpha };
    });
    const gammas = draws.map((draw) => draw.gamma);
    if (total(gammas) > 0) return { weights: gammas, sum: total(gammas) };
    const top = Math.max(...draws.map((draw) => draw.log));
    const weights = draws.map((draw) => Math.exp(draw.log - top));
    return { weights, sum: total(weights) };
  }

  private result(root: SearchNode<Act>, rootPriors: readonly number[] | undefined): TreeSearchResult<Act> {
    const children = root.legal.flatMap((action) => {
      const child = root.children.get(action);
      if (!child) return [];
      return [
        { action, visits: child.visits, total: child.total, mean: child.visits > 0 ? child.total / child.visits : 0 },
      ];
    });
    const visits = root.legal.map((action) => root.children.get(action)?.visits ?? 0);
    const visitSum = visits.reduce((total, n) => total + n, 0);
    const policy = visits.map((n) => (visitSum > 0 ? n / visitSum : 0));
    return {
      action: this.choose(root, children, visits),
      children,
      policy,
      rootValue: root.visits > 0 ? root.total / root.visits : 0,
      rootPriors,
      simulations: this.options.simulations,
      tree: root,
    };
  }

  private choose(root: SearchNode<Act>, children: readonly SearchChild<Act>[], visits: readonly number[]): Act {
    if (children.length === 0) return root.legal[0] as Act; // nothing searched (a terminal root)
    if (this.options.choose === 'mean') {
      // The best mean, then the most visits among equal means, then `tieBreak`.
      const best = Math.max(...children.map((child) => child.mean));
      const atBest = children.filter((child) => child.mean === best);
      const mostVisits = Math.max(...atBest.map((child) => child.visits));
      const tied = atBest.filter((child) => child.visits === mostVisits);
      const pick = tied.length === 1 || this.options.tieBreak === 'first' ? tied[0] : this.rng.pick(tied);
      return (pick as SearchChild<Act>).action;
    }
    const { temperature } = this.options;
    if (temperature === 0) return root.legal[this.argmax(visits)] as Act;
    // π ∝ n^(1/τ), computed in log space so a small τ cannot overflow.
    const logs = visits.map((n) => (n > 0 ? Math.log(n) / temperature : Number.NEGATIVE_INFINITY));
    const top = Math.max(...logs);
    // A τ so small that ln(n)/τ is infinite is τ → 0: the most visited (Infinity − Infinity would be NaN weights).
    if (top === Number.POSITIVE_INFINITY) return root.legal[this.argmax(visits)] as Act;
    return root.legal[this.rng.weighted(logs.map((l) => Math.exp(l - top)))] as Act;
  }
}
