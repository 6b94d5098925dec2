import { runEpisode } from '@turngym/core';
import { FixedRewardDemoEnv } from './fixed-reward-demo-env';
import { MctsAgent } from './mcts-agent';
import { MctsBot } from './mcts-bot';
import { SellerEnv } from './seller-env';

describe('MctsBot (UCT through fork, random rollouts, best mean child)', () => {
  it('converges on the demo env: 4 actions with fixed rewards', async () => {
    const env = new FixedRewardDemoEnv([0.2, 0.9, 0.5, 0.1]);
    await env.reset({ seed: 0 });
    const decision = await new MctsBot({ simulations: 200, seed: 1 }).search(env);
    expect(decision.action).toBe(1);
    const visits = decision.children.map((child) => child.visits);
    // Every action is tried, then the visits concentrate on the best one.
    expect(Math.min(...visits)).toBeGreaterThan(0);
    expect(visits[1]).toBeGreaterThan(visits[0]! + visits[2]! + visits[3]!);
    expect(decision.children.map((child) => child.mean)).toEqual(
      [0.2, 0.9, 0.5, 0.1].map((reward) => expect.closeTo(reward, 9)),
    );
  });

  it('the share of visits on the best action grows with the number of simulations', async () => {
    const env = new FixedRewardDemoEnv([0.4, 0.3, 0.5, 0.45]);
    await env.reset({ seed: 0 });
    const share = async (simulations: number): Promise<number> => {
      const decision = await new MctsBot({ simulations, seed: 2 }).search(env);
      expect(decision.action).toBe(2);
      return decision.children[2]!.visits / simulations;
    };
    const few = await share(50);
    const many = await share(2000);
    expect(many).toBeGreaterThan(few);
  });

  it('plans a multi-step episode: repeats the best action for the whole horizon', async () => {
    const env = new FixedRewardDemoEnv([0.2, 0.1, 0.7, 0.3], 3);
    const outcome = await runEpisode(env, new MctsAgent(env, { simulations: 300, seed: 3 }), 0);
    expect(outcome.totalReward).toBeCloseTo(2.1);
  });

  it('searches the seller env without touching it, and never threatens', async () => {
    const env = new SellerEnv();
    const reset = await env.reset({ seed: 4 });
    const decision = await new MctsBot({ simulations: 150, seed: 4 }).search(env, reset.info.actionMask);
    expect(env.dialogue).toEqual([]);
    expect(decision.action).not.toBe(5);
    // The threat's children all ended at once with -1 (or worse for most buyers).
    expect(decision.children.find((child) => child.action === 5)!.mean).toBeLessThan(-0.5);
  });

  it('rejects what it cannot search', async () => {
    expect(() => new MctsBot({ simulations: 0 })).toThrow(/simulations must be a positive integer/);
    const text = new SellerEnv({ mode: 'seller' });
    await text.reset({ seed: 0 });
    await expect(new MctsBot({ simulations: 5 }).search(text)).rejects.toThrow(/needs a discrete action space/);
  });
});
