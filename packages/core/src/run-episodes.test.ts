import type { Agent, Env } from '@turngym/spec';
import { TurnGymError } from './errors';
import { isAgentStop, runEpisode } from './run-episodes';

/** An env that pays 0.5 a step and ends (a success) at turn 10, so an episode cut short is told from one played out. */
function countingEnv(): Env<string, string> {
  let turn = 0;
  return {
    spec: { id: 'test/counting-v0' },
    reset: async () => {
      turn = 0;
      return { observation: 'start', info: {} };
    },
    step: async () => {
      turn += 1;
      const done = turn >= 10;
      return { observation: `turn ${turn}`, reward: 0.5, terminated: done, truncated: false, info: { success: done } };
    },
    close: async () => {},
  } as unknown as Env<string, string>;
}

/** An agent that acts `turns` times, then throws what `fail` makes (as an LLM agent whose model refused). */
function agentFailingAfter(turns: number, fail: () => Error): Agent<string, string> {
  let acted = 0;
  return {
    start: async () => {},
    act: async () => {
      if (acted === turns) throw fail();
      acted += 1;
      return 'go';
    },
    takeUsage: () => ({ promptTokens: 10, completionTokens: 2 }),
  } as unknown as Agent<string, string>;
}

/** As @turngym/llm's LLMCallError with `failure: 'context-length'` is: a TurnGymError that sets `agentStop`. */
class ContextFull extends TurnGymError {
  readonly agentStop = 'context-length';
  constructor() {
    super('LLM_CALL', 'openai:tiny: HTTP 400: The prompt has 1144 tokens, more than the context limit 1024.');
  }
}

describe('runEpisode when the agent cannot go on', () => {
  it("scores a full context as the agent's failure: truncated, not a success, the reward and turns so far, and why", async () => {
    const outcome = await runEpisode(
      countingEnv(),
      agentFailingAfter(3, () => new ContextFull()),
      7,
    );
    expect(outcome).toMatchObject({
      seed: 7,
      turns: 3,
      totalReward: 1.5,
      success: false,
      truncated: true,
      agentPromptTokens: 40,
      agentCompletionTokens: 8,
      agentStop: {
        reason: 'context-length',
        code: 'LLM_CALL',
        message: 'openai:tiny: HTTP 400: The prompt has 1144 tokens, more than the context limit 1024.',
      },
    });
  });

  it('still throws any other error of the agent (an endpoint down, a 5xx), so a runner records the episode as errored', async () => {
    const down = new TurnGymError('LLM_CALL', 'openai:tiny: could not connect', { isRetryable: true });
    await expect(
      runEpisode(
        countingEnv(),
        agentFailingAfter(3, () => down),
        7,
      ),
    ).rejects.toBe(down);
    await expect(
      runEpisode(
        countingEnv(),
        agentFailingAfter(0, () => new Error('boom')),
        7,
      ),
    ).rejects.toThrow('boom');
  });

  it('leaves an episode the env ends without agentStop', async () => {
    const outcome = await runEpisode(
      countingEnv(),
      agentFailingAfter(99, () => new ContextFull()),
      1,
    );
    expect(outcome).toMatchObject({ turns: 10, success: true, truncated: false });
    expect(outcome).not.toHaveProperty('agentStop');
  });
});

describe('isAgentStop', () => {
  it('reads only a non-empty string agentStop on an Error', () => {
    expect(isAgentStop(new ContextFull())).toBe(true);
    expect(isAgentStop(Object.assign(new Error('x'), { agentStop: '' }))).toBe(false);
    expect(isAgentStop(Object.assign(new Error('x'), { agentStop: true }))).toBe(false);
    expect(isAgentStop({ agentStop: 'context-length' })).toBe(false);
    expect(isAgentStop(new Error('context length exceeded'))).toBe(false);
  });
});
