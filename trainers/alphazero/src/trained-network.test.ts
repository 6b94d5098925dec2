import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { FixedRewardDemoEnv, SellerEnv } from '@turngym/env-seller';
import { AlphaZeroError, loadGrpoCommander, loadTrainedNetwork, trainAlphaZero, trainGrpoCommander } from './index';
import { DEMO_ID, demoRegistry, HORIZON, REWARDS } from './__fixtures__/demo-env';

describe('loading a trained network back', () => {
  let root: string;
  const demoSpec = new FixedRewardDemoEnv(REWARDS, HORIZON).spec;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'trained-network-'));
    const quick = { envId: DEMO_ID, iterations: 1, evalEpisodes: 0, quiet: true };
    const alphaZero = await trainAlphaZero(
      { ...quick, runDir: join(root, 'alphazero'), episodesPerIteration: 1, simulations: 2 },
      { registry: demoRegistry() },
    );
    alphaZero.net.dispose();
    const grpo = await trainGrpoCommander(
      { ...quick, runDir: join(root, 'grpo'), groupsPerIteration: 1, groupSize: 2 },
      { registry: demoRegistry() },
    );
    grpo.net.dispose();
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it("names the other trainer's loader for a run of the other trainer", async () => {
    const refusal = (promise: Promise<unknown>) =>
      promise.then(
        () => null,
        (error: unknown) => error,
      );
    const fromGrpo = await refusal(loadTrainedNetwork(join(root, 'grpo'), demoSpec));
    expect(fromGrpo).toBeInstanceOf(AlphaZeroError);
    expect((fromGrpo as Error).message).toMatch(
      /holds a run of grpo-commander, not of alphazero: read it with loadGrpoCommander/,
    );
    const fromAlphaZero = await refusal(loadGrpoCommander(join(root, 'alphazero'), demoSpec));
    expect((fromAlphaZero as Error).message).toMatch(
      /holds a run of alphazero, not of grpo-commander: read it with loadTrainedNetwork/,
    );
    // Each reads its own.
    const own = await loadTrainedNetwork(join(root, 'alphazero'), demoSpec);
    own.net.dispose();
  });

  it("refuses another env's spec naming both envs, and keeps none of the network it built", async () => {
    const tensors = tf.memory().numTensors;
    const sellerSpec = new SellerEnv({ split: 'test' }).spec;
    await expect(loadTrainedNetwork(join(root, 'alphazero'), sellerSpec)).rejects.toThrow(
      new RegExp(`inputs is \\d+.*The run trained on ${DEMO_ID}, not ${sellerSpec.id}\\.`),
    );
    expect(tf.memory().numTensors).toBe(tensors);
  });
});
