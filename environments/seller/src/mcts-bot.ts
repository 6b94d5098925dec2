import { SeededRng } from '@turngym/core';
import type { Action, Env } from '@turngym/spec';

/** Picks a rollout action among the legal ones (default: uniformly, as the reference bot). */
export type RolloutPolicy = (legal: readonly number[], rng: SeededRng) => number;

export interface MctsOptions {
  /** Simulations per decision. */
  simulations: number;
  /** c of the UCT formula (ALGORITHMS.md §5: 1.41). */
  exploration?: number;
  /** Longest rollout after the expanded node (default: to the end of the episode). */
  maxRolloutSteps?: number;
  /** Seeds the bot's own choices (untried-action order, random rollouts). */
  seed?: number;
  rolloutPolicy?: RolloutPolicy;
}

export interface MctsChildStats {
  readonly action: number;
  readonly visits: number;
  /** Sum of the returns seen through this child (return-to-go from its action on). */
  readonly total: number;
  readonly mean: number;
}

export interface MctsDecision {
  /** The child with the best mean return. */
  readonly action: number;
  readonly children: readonly MctsChildStats[];
  readonly simulations: number;
  /** The search tree, whose child under `action` can seed the next search (the env is deterministic). */
  readonly tree: MctsNode;
}

/** A node of the search tree: exact for an env whose forks clone its random stream. */
export class MctsNode {
  visits = 0;
  total = 0;
  readonly children = new Map<number, MctsNode>();

  constructor(
    /** Legal actions in this state (from info.actionMask), all when there is no mask. */
    readonly legal: readonly number[],
    readonly terminal: boolean,
  ) {}
}

const uniform: RolloutPolicy = (legal, rng) => rng.pick(legal);

function legalActions(mask: unknown, n: number): number[] {
  const all = Array.from({ length: n }, (_, index) => index);
  if (!Array.isArray(mask)) return all;
  const legal = all.filter((index) => mask[index] !== false);
  return legal.length > 0 ? legal : all;
}

/**
 * The reference MCTS bot (ALGORITHMS.md §5, after LightZero PR #276's seller bot): UCT over a discrete action
 * space through `fork()`, random rollouts, the child with the best mean return. Each simulation forks the
 * root, descends by
 *
 *   UCT(child) = total / (visits + 1) + c · sqrt(2 · ln(N + 1) / (n + 1))     (N: parent visits, n: child's)
 *
 * expands one untried legal action, rolls out to the end, and backs up the return-to-go of every node on
 * the path. With a deterministic env (a fork clones the random stream), the tree holds exact states, which
 * is what makes it an upper bound for policies that see only the observation.
 */
export class MctsBot {
  readonly simulations: number;
  readonly exploration: number;
  private readonly maxRolloutSteps: number;
  private readonly rng: SeededRng;
  private readonly rolloutPolicy: RolloutPolicy;

  constructor(options: MctsOptions) {
    if (!Number.isInteger(options.simulations) || options.simulations < 1) {
      throw new RangeError(`MctsBot: simulations must be a positive integer, got ${options.simulations}`);
    }
    this.simulations = options.simulations;
    this.exploration = options.exploration ?? 1.41;
    this.maxRolloutSteps = options.maxRolloutSteps ?? Number.POSITIVE_INFINITY;
    this.rng = new SeededRng(options.seed ?? 0);
    this.rolloutPolicy = options.rolloutPolicy ?? uniform;
  }

  /**
   * Searches from `env`'s current state (it is only forked, never stepped) and returns the decision.
   * @param mask the legal actions now (`info.actionMask` of the last reset or step), if the env has a mask
   * @param tree the subtree of this very state from an earlier search (`decision.tree.children.get(action)`)
   */
  async search(env: Env<unknown, Action>, mask?: readonly boolean[], tree?: MctsNode): Promise<MctsDecision> {
    const space = env.spec.actionSpace;
    if (space.type !== 'discrete')
      throw new TypeError(`MctsBot needs a discrete action space; ${env.spec.id} has ${space.type}`);
    const n = space.n;
    // A subtree from the last search already holds the statistics of this state: keep growing it.
    const root = tree && !tree.terminal ? tree : new MctsNode(legalActions(mask, n), false);
    for (let i = 0; i < this.simulations; i++) await this.simulate(env, root, n);
    const children = [...root.children.entries()]
      .map(([action, child]) => ({
        action,
        visits: child.visits,
        total: child.total,
        mean: child.visits > 0 ? child.total / child.visits : 0,
      }))
      .sort((a, b) => a.action - b.action);
    let best = children[0] as MctsChildStats;
    for (const child of children) {
      if (child.mean > best.mean || (child.mean === best.mean && child.visits > best.visits)) best = child;
    }
    return { action: best.action, children, simulations: this.simulations, tree: root };
  }

  private async simulate(rootEnv: Env<unknown, Action>, root: MctsNode, n: number): Promise<void> {
    const env = await rootEnv.fork();
    try {
      const path: MctsNode[] = [root];
      const rewards: number[] = [];
      let node = root;
      // Selection and expansion.
      while (!node.terminal) {
        const untried = node.legal.filter((action) => !node.children.has(action));
        const expanding = untried.length > 0;
        const action = expanding ? this.rng.pick(untried) : this.select(node);
        const result = await env.step(action);
        rewards.push(result.reward);
        let child = node.children.get(action);
        if (!child) {
          child = new MctsNode(legalActions(result.info.actionMask, n), result.terminated || result.truncated);
          node.children.set(action, child);
        }
        path.push(child);
        node = child;
        if (expanding) break;
      }
      // Rollout.
      let rollout = 0;
      if (!node.terminal) {
        let legal = node.legal;
        for (let step = 0; step < this.maxRolloutSteps; step++) {
          const result = await env.step(this.rolloutPolicy(legal, this.rng));
          rollout += result.reward;
          if (result.terminated || result.truncated) break;
          legal = legalActions(result.info.actionMask, n);
        }
      }
      // Backup: each node gets the return from its own incoming action on.
      let value = rollout;
      for (let i = path.length - 1; i >= 1; i--) {
        value += rewards[i - 1] as number;
        const each = path[i] as MctsNode;
        each.visits += 1;
        each.total += value;
      }
      root.visits += 1;
      root.total += value;
    } finally {
      await env.close();
    }
  }

  private select(node: MctsNode): number {
    const logParent = Math.log(node.visits + 1);
    let bestAction = node.legal[0] as number;
    let bestScore = Number.NEGATIVE_INFINITY;
    for (const action of node.legal) {
      const child = node.children.get(action) as MctsNode;
      const score =
        child.total / (child.visits + 1) + this.exploration * Math.sqrt((2 * logParent) / (child.visits + 1));
      if (score > bestScore) {
        bestScore = score;
        bestAction = action;
      }
    }
    return bestAction;
  }
}
