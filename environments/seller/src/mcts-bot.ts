import {
  TreeSearch,
  type EdgeStatistics,
  type SearchChild,
  type SearchNode,
  type SimulationPolicy,
  type TreeSearchResult,
} from '@turngym/search';
import type { Action, Env } from '@turngym/spec';

export interface MctsOptions {
  /** Simulations per decision. */
  simulations: number;
  /** c of the UCT formula (ALGORITHMS.md §5: 1.41). */
  exploration?: number;
  /** Longest rollout after the expanded node (default: to the end of the episode). */
  maxRolloutSteps?: number;
  /** Seeds the bot's own choices (untried-action order, random rollouts). */
  seed?: number;
  /** Picks each rollout action among the legal ones (default: uniformly, as the reference bot). */
  rolloutPolicy?: SimulationPolicy<number>;
}

export type MctsChildStats = SearchChild<number>;
/** A node of the search tree: exact for an env whose forks clone its random stream. */
export type MctsNode = SearchNode<number>;

export interface MctsDecision extends TreeSearchResult<number> {
  /** The child with the best mean return. */
  readonly action: number;
  /** The root's expanded children, by action index. */
  readonly children: readonly MctsChildStats[];
}

/**
 * The reference MCTS bot (ALGORITHMS.md §5, after LightZero PR #276's seller bot), as settings of
 * `@turngym/search`'s `TreeSearch`: UCT over the discrete meta-actions through `fork()`, each untried legal action
 * expanded first in a seeded random order, random rollouts to the end, the undiscounted return-to-go backed
 * up, the child with the best mean return chosen. Its own selection score replaces the textbook UCT:
 *
 *   UCT(child) = total / (visits + 1) + c · sqrt(2 · ln(N + 1) / (n + 1))     (N: parent visits, n: child's)
 *
 * and equal scores go to the first action (its `>` scan), so its decisions are those of the bot before the
 * move to `TreeSearch` (`mcts-bot-golden.test.ts`). With a deterministic env (a fork clones the random
 * stream), the tree holds exact states, which is what makes it an upper bound for policies that see only the
 * observation.
 */
export class MctsBot {
  readonly simulations: number;
  readonly exploration: number;
  private readonly treeSearch: TreeSearch<unknown, number>;

  constructor(options: MctsOptions) {
    if (!Number.isInteger(options.simulations) || options.simulations < 1) {
      throw new RangeError(`MctsBot: simulations must be a positive integer, got ${options.simulations}`);
    }
    this.simulations = options.simulations;
    this.exploration = options.exploration ?? 1.41;
    const exploration = this.exploration;
    const referenceUct = ({ visits, total, parentVisits }: EdgeStatistics<number>): number =>
      total / (visits + 1) + exploration * Math.sqrt((2 * Math.log(parentVisits + 1)) / (visits + 1));
    const maxRolloutSteps = options.maxRolloutSteps;
    this.treeSearch = new TreeSearch<unknown, number>(
      {
        simulations: options.simulations,
        rule: 'uct',
        tieBreak: 'first',
        choose: 'mean',
        seed: options.seed ?? 0,
        ...(maxRolloutSteps !== undefined && Number.isFinite(maxRolloutSteps) ? { maxRolloutSteps } : {}),
      },
      { score: referenceUct, ...(options.rolloutPolicy ? { simulationPolicy: options.rolloutPolicy } : {}) },
    );
  }

  /**
   * Searches from `env`'s current state (it is only forked, never stepped) and returns the decision.
   * @param mask the legal actions now (`info.actionMask` of the last reset or step), if the env has a mask
   * @param tree the subtree of this very state from an earlier search (`decision.tree.children.get(action)`)
   */
  async search(env: Env<unknown, Action>, mask?: readonly boolean[], tree?: MctsNode): Promise<MctsDecision> {
    const decision = await this.treeSearch.search(env as Env<unknown, number>, {
      info: mask ? { actionMask: [...mask] } : {},
      ...(tree ? { tree } : {}),
    });
    return { ...decision, children: [...decision.children].sort((a, b) => a.action - b.action) };
  }
}
