import { runEpisode } from '@turngym/core';
import { FixedRewardDemoEnv } from './fixed-reward-demo-env';
import { MctsAgent } from './mcts-agent';
import { MctsBot, type MctsDecision, type MctsOptions } from './mcts-bot';
import { NO_THREAT_ROLLOUT } from './seller-baselines';
import { SellerEnv } from './seller-env';

/**
 * Decisions of the reference MCTS bot recorded from its own implementation (commit before it became a user of
 * a shared search), so any rewrite must reproduce them exactly: the same chosen actions, the same visit counts
 * and return totals per child, the same moves over whole episodes. The seller's many exact ties (every move
 * of a cold buyer ends at -1) make these sensitive to the tie-breaking and to the order of random draws.
 */
const statistics = (decision: MctsDecision): unknown => ({
  action: decision.action,
  children: decision.children.map((child) => [child.action, child.visits, child.total]),
});

describe('MctsBot golden decisions (recorded from the reference implementation)', () => {
  it('the demo env over a 3-step horizon: same action, visits and totals', async () => {
    const env = new FixedRewardDemoEnv([0.2, 0.9, 0.5, 0.1], 3);
    await env.reset({ seed: 0 });
    expect(statistics(await new MctsBot({ simulations: 40, seed: 1 }).search(env))).toEqual({
      action: 1,
      children: [
        [0, 4, 3.6],
        [1, 28, 55.900000000000006],
        [2, 5, 6.199999999999999],
        [3, 3, 2.9000000000000004],
      ],
    });
  });

  it('the seller env, a search and a second search growing the same tree: same statistics', async () => {
    const expected: Record<number, unknown[]> = {
      4: [
        {
          action: 6,
          children: [
            [0, 7, -7],
            [1, 7, -7],
            [2, 7, -7],
            [3, 6, -6],
            [4, 6, -6],
            [5, 6, -6],
            [6, 9, -7],
            [7, 6, -6],
            [8, 6, -6],
          ],
        },
        {
          action: 6,
          children: [
            [0, 13, -13],
            [1, 13, -13],
            [2, 13, -13],
            [3, 13, -13],
            [4, 13, -13],
            [5, 13, -13],
            [6, 16, -14],
            [7, 13, -13],
            [8, 13, -13],
          ],
        },
      ],
      11: [
        {
          action: 0,
          children: [
            [0, 7, -7],
            [1, 7, -7],
            [2, 7, -7],
            [3, 7, -7],
            [4, 7, -7],
            [5, 7, -7],
            [6, 6, -6],
            [7, 6, -6],
            [8, 6, -6],
          ],
        },
        {
          action: 0,
          children: [
            [0, 14, -14],
            [1, 14, -14],
            [2, 14, -14],
            [3, 13, -13],
            [4, 13, -13],
            [5, 13, -13],
            [6, 13, -13],
            [7, 13, -13],
            [8, 13, -13],
          ],
        },
      ],
    };
    for (const seed of [4, 11]) {
      const env = new SellerEnv();
      const reset = await env.reset({ seed });
      const bot = new MctsBot({ simulations: 60, seed });
      const first = await bot.search(env, reset.info.actionMask);
      const second = await bot.search(env, reset.info.actionMask, first.tree);
      expect([statistics(first), statistics(second)]).toEqual(expected[seed]);
    }
  });

  it('whole seller episodes with the agent (subtree reused), with random and with no-threat rollouts', async () => {
    const env = new SellerEnv();
    const threat = env.metaActions.actions.findIndex((action) => action.behavesAs === 'threaten');
    const play = async (seed: number, rolloutPolicy?: MctsOptions['rolloutPolicy']): Promise<unknown> => {
      const agent = new MctsAgent(env, { simulations: 40, seed, ...(rolloutPolicy ? { rolloutPolicy } : {}) });
      const actions: number[] = [];
      const act = agent.act.bind(agent);
      agent.act = async (observation, info) => {
        const action = await act(observation, info);
        actions.push(action as number);
        return action;
      };
      const outcome = await runEpisode(env, agent, seed);
      return { actions, totalReward: outcome.totalReward };
    };
    expect([await play(2), await play(9)]).toEqual([
      { actions: [1, 4, 1, 2, 2], totalReward: 1 },
      { actions: [0, 1, 1, 1, 1], totalReward: -1 },
    ]);
    expect([await play(2, NO_THREAT_ROLLOUT(threat)), await play(9, NO_THREAT_ROLLOUT(threat))]).toEqual([
      { actions: [0, 1, 2, 2, 1], totalReward: 1 },
      { actions: [0, 1, 1, 1, 1], totalReward: -1 },
    ]);
  });
});
