import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RunDirectory } from '@turngym/rl';
import { trainAlphaZero, type AlphaZeroArgs } from './index';
import { DEMO_ID, demoRegistry, HORIZON } from './__fixtures__/demo-env';

const small: Partial<AlphaZeroArgs> = {
  envId: DEMO_ID,
  simulations: 20,
  episodesPerIteration: 8,
  updatesPerIteration: 16,
  batchSize: 32,
  evalEpisodes: 2,
  evalEvery: 4,
  quiet: true,
};

const opening = { opening: 'Pick an action.', openingInfo: {}, steps: [] };
const allLegal = { actionMask: [true, true, true, true] };

describe('trainAlphaZero', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'alphazero-'));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('converges on the fixed-reward demo env: the policy head and the search both pick the best action', async () => {
    const rows: Record<string, number>[] = [];
    const result = await trainAlphaZero(
      { ...small, runDir: join(root, 'demo'), iterations: 8 },
      { registry: demoRegistry(), onIteration: (row) => rows.push(row) },
    );
    const { priors, value } = result.net.evaluate(result.encoder.encode(opening, allLegal), [1, 1, 1, 1]);
    // The untrained network spreads its priors (about 0.25 each); trained, the best action dominates.
    expect(priors.indexOf(Math.max(...priors))).toBe(1);
    expect(priors[1]).toBeGreaterThan(0.6);
    // V(s0) approaches the best return, 2.7 (random play averages 1.28).
    expect(value).toBeGreaterThan(2.2);
    const last = rows.at(-1)!;
    expect(last['eval/episodic_return']).toBeCloseTo(HORIZON * 0.9, 6);
    expect(last['eval/mcts_episodic_return']).toBeCloseTo(HORIZON * 0.9, 6);
    expect(last['losses/value_loss']).toBeLessThan(rows[0]!['losses/value_loss']!);
    result.net.dispose();
  }, 90_000);

  it('converges on the demo env with the MCTS-DPO objective too (pairs from the search, the kit DPO loss)', async () => {
    const rows: Record<string, number>[] = [];
    const result = await trainAlphaZero(
      { ...small, runDir: join(root, 'dpo'), iterations: 6, objective: 'mcts-dpo' },
      { registry: demoRegistry(), onIteration: (row) => rows.push(row) },
    );
    const { priors } = result.net.evaluate(result.encoder.encode(opening, allLegal), [1, 1, 1, 1]);
    expect(priors.indexOf(Math.max(...priors))).toBe(1);
    expect(rows.at(-1)!['eval/episodic_return']).toBeCloseTo(HORIZON * 0.9, 6);
    expect(rows.at(-1)!['replay/pairs']).toBeGreaterThan(0);
    result.net.dispose();
  }, 90_000);

  it('resumes bit-exact: network, Adam, replay buffer and RNG come back from the checkpoint as one unit', async () => {
    const straight = await trainAlphaZero(
      { ...small, runDir: join(root, 'straight'), iterations: 4, episodesPerIteration: 4 },
      { registry: demoRegistry() },
    );
    const first = await trainAlphaZero(
      { ...small, runDir: join(root, 'resumed'), iterations: 2, episodesPerIteration: 4 },
      { registry: demoRegistry() },
    );
    first.net.dispose();
    // A new process in effect: a fresh network from the seed, restored from the checkpoint, run longer.
    const resumed = await trainAlphaZero(
      { ...small, runDir: join(root, 'resumed'), iterations: 4, episodesPerIteration: 4 },
      { registry: demoRegistry() },
    );
    expect(resumed.iterations).toBe(4);
    expect(Buffer.from(resumed.net.weightBytes()).equals(Buffer.from(straight.net.weightBytes()))).toBe(true);
    expect(resumed.net.stepCount).toBe(straight.net.stepCount);
    // Wall-clock figures differ; so do the evaluations, which a run does after its last iteration (the first
    // process evaluated after iteration 1): evaluation reads the network and changes nothing.
    const withoutTimes = async (dir: string) =>
      (await (await RunDirectory.open(join(root, dir))).readMetrics()).map((row) =>
        Object.fromEntries(
          Object.entries(row).filter(([name]) => !/^(time|eval)\//.test(name) && name !== 'charts/SPS'),
        ),
      );
    expect(await withoutTimes('resumed')).toEqual(await withoutTimes('straight'));
    const replay = (dir: string) => readFile(join(root, dir, 'checkpoint', 'stores', 'replay', 'replay.json'), 'utf8');
    expect(await replay('resumed')).toBe(await replay('straight'));
    straight.net.dispose();
    resumed.net.dispose();
  }, 90_000);

  it('refuses to resume a run with another network', async () => {
    const run = await trainAlphaZero(
      { ...small, runDir: join(root, 'run'), iterations: 1 },
      { registry: demoRegistry() },
    );
    run.net.dispose();
    await expect(
      trainAlphaZero(
        { ...small, runDir: join(root, 'run'), iterations: 2, hiddenSize: 8 },
        { registry: demoRegistry() },
      ),
    ).rejects.toThrow(/hiddenSize/);
  });

  it('names a bad argument', async () => {
    await expect(trainAlphaZero({ ...small, runDir: join(root, 'bad'), simulations: 0 })).rejects.toThrow(
      /simulations/,
    );
  });
});
