import { SellerEnv } from '@turngym/env-seller';
import { AlphaZeroSearch, DialogueEncoder, PolicyHeadAgent, PolicyValueNet, TranscriptRecorder } from './index';

async function sellerAt(seed: number): Promise<{ env: TranscriptRecorder; info: Record<string, unknown> }> {
  const env = new TranscriptRecorder(new SellerEnv({ split: 'train' }));
  const reset = await env.reset({ seed });
  return { env, info: reset.info };
}

describe('AlphaZeroSearch on the seller commander', () => {
  const encoder = new DialogueEncoder(9, 8);
  const net = new PolicyValueNet({ inputs: encoder.size, actions: 9, hidden: 16 }, 3, 0.01);
  afterAll(() => net.dispose());
  const options = { simulations: 10, cBase: 19652, cInit: 1.25, dirichletAlpha: 0.3, temperature: 0, seed: 5 };

  it('searches the legal meta-actions through fork with the network priors, and adds noise at the root only when asked', async () => {
    const { env, info } = await sellerAt(11);
    const first = await env.step(0); // greet: afterwards greeting is masked
    const quiet = await new AlphaZeroSearch(net, encoder, { ...options, dirichletWeight: 0 }).search(env, first.info);
    expect(quiet.tree.legal).not.toContain(0);
    expect(quiet.fullPolicy[0]).toBe(0);
    expect(quiet.fullPolicy.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
    expect(quiet.children.reduce((sum, child) => sum + child.visits, 0)).toBe(10);
    // Without noise the root is searched with the network's priors; with noise, with (1 − w)·P + w·Dir(α).
    const expected = net.evaluate(encoder.encode(env.transcript, first.info), encoder.legal(first.info)).priors;
    quiet.tree.legal.forEach((action, index) => expect(quiet.rootPriors?.[index]).toBeCloseTo(expected[action]!, 12));
    const noisy = await new AlphaZeroSearch(net, encoder, { ...options, dirichletWeight: 0.25 }).search(
      env,
      first.info,
    );
    expect(noisy.rootPriors).not.toEqual(quiet.rootPriors);
    expect(noisy.networkPriors).toEqual(quiet.networkPriors);
    // The env itself was only forked: still one step in.
    expect(env.transcript.steps).toHaveLength(1);
    expect(info.actionMask).toEqual([true, true, true, true, true, true, true, true, true]);
    await env.close();
  });

  it('reads the dialogue: the features change with what the buyer said', async () => {
    const { env, info } = await sellerAt(12);
    const before = encoder.encode(env.transcript, info);
    const step = await env.step(3); // ask what matters: the buyer names needs
    const after = encoder.encode(env.transcript, step.info);
    expect(before).toHaveLength(encoder.size);
    expect(after).not.toEqual(before);
    await env.close();
  });

  it('the policy head agent rebuilds the same transcript from its observations as the recorder', async () => {
    const { env, info } = await sellerAt(13);
    const agent = new PolicyHeadAgent(net, encoder);
    await agent.start({ seed: 13, spec: env.spec, observation: env.transcript.opening, info });
    const action = (await agent.act(env.transcript.opening, info)) as number;
    const step = await env.step(action);
    const next = (await agent.act(step.observation, step.info)) as number;
    const { priors } = net.evaluate(encoder.encode(env.transcript, step.info), encoder.legal(step.info));
    expect(next).toBe(priors.indexOf(Math.max(...priors)));
    await env.close();
  });
});
