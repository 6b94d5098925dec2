import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { Registry } from '@turngym/core';
import { FixedRewardDemoEnv, register as registerSeller, SELLER_COMMANDER_ID, SellerEnv } from '@turngym/env-seller';
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

  it('refuses a network trained with another turn limit (env options), naming maxTurns and the options to use', async () => {
    const registry = new Registry();
    registerSeller(registry);
    const runDir = join(root, 'seller-rounds');
    const trained = await trainAlphaZero(
      {
        envId: SELLER_COMMANDER_ID,
        envOptions: { rounds: 6 },
        runDir,
        iterations: 1,
        episodesPerIteration: 1,
        simulations: 2,
        evalEpisodes: 0,
        quiet: true,
      },
      { registry },
    );
    trained.net.dispose();
    const tensors = tf.memory().numTensors;
    // Same length of features, other meaning: the turn feature is normalised by the turn limit.
    await expect(loadTrainedNetwork(runDir, new SellerEnv({ split: 'test' }).spec)).rejects.toThrow(
      /trained on features with maxTurns 6, these features have maxTurns 8\. Make the env as the run did \(its envOptions: \{"rounds":6\}\)/,
    );
    expect(tf.memory().numTensors).toBe(tensors);
    const same = await loadTrainedNetwork(runDir, new SellerEnv({ split: 'test', rounds: 6 }).spec);
    expect(same.encoder.maxTurns).toBe(6);
    same.net.dispose();
  });
});
