import type { Action, Agent, AgentEpisodeStart, Env, Info } from '@turngym/spec';
import { MctsBot, type MctsDecision, type MctsNode, type MctsOptions } from './mcts-bot';

/**
 * An agent that plans each move with `MctsBot` in the env it acts in (privileged: it forks that env, so it
 * sees the buyer's hidden state through the futures it simulates). Build it for the very env it will play.
 */
export class MctsAgent implements Agent<unknown, Action> {
  readonly name = 'mcts';
  readonly bot: MctsBot;
  /** The last decision, for inspection. */
  lastDecision: MctsDecision | undefined;
  private subtree: MctsNode | undefined;

  /**
   * @param env the env (wrappers included) the agent acts in
   * @param options the bot's options; `reuseTree` (default true) keeps the chosen child's subtree for the next move
   */
  constructor(
    private readonly env: Env<unknown, Action>,
    options: MctsOptions & { reuseTree?: boolean },
  ) {
    this.bot = new MctsBot(options);
    this.reuseTree = options.reuseTree ?? true;
  }

  private readonly reuseTree: boolean;

  async start(_episode: AgentEpisodeStart<unknown>): Promise<void> {
    this.lastDecision = undefined;
    this.subtree = undefined;
  }

  async act(_observation: unknown, info: Info): Promise<Action> {
    const decision = await this.bot.search(this.env, info.actionMask, this.reuseTree ? this.subtree : undefined);
    this.lastDecision = decision;
    this.subtree = decision.tree.children.get(decision.action);
    return decision.action;
  }
}
