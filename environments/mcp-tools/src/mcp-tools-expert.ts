import type { Action, Agent, AgentEpisodeStart, Env } from '@turngym/spec';
import type { McpToolsEnv } from './mcp-tools-env';

/**
 * The scripted baseline: plays the current task's known solution (its calls, then its answer), read from the
 * env with privileged access. A task without one gets the answer "unknown".
 */
export class McpToolsExpert implements Agent<string, Action> {
  readonly name = 'scripted';
  private plan: Action[] = [];

  constructor(private readonly env: Env<any, any>) {}

  async start(_episode: AgentEpisodeStart<string>): Promise<void> {
    const env = this.env.unwrapped as McpToolsEnv;
    const solution = env.currentTask?.solution;
    this.plan = [
      ...(solution?.calls ?? []).map((call) => ({ name: call.tool, arguments: call.arguments })),
      { name: env.answerTool, arguments: { answer: solution?.answer ?? 'unknown' } },
    ];
  }

  async act(): Promise<Action> {
    return (
      this.plan.shift() ?? { name: (this.env.unwrapped as McpToolsEnv).answerTool, arguments: { answer: 'unknown' } }
    );
  }
}
