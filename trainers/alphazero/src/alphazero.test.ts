import { existsSync } from 'node:fs';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { Registry } from '@turngym/core';
import { FixedRewardDemoEnv, register as registerSeller, SELLER_COMMANDER_ID } from '@turngym/env-seller';
import { RunDirectory } from '@turngym/rl';
import { AlphaZeroError } from './alphazero-error';
import { trainAlphaZero, validateAlphaZeroArgs, type AlphaZeroArgs } from './index';
import { DEMO_ID, demoRegistry, HORIZON, REWARDS } from './__fixtures__/demo-env';
import { FaultMidEpisode, FaultOnSeed } from './__fixtures__/faulty-env';

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

  it('targets z: the undiscounted return to the end; a time-limit cut adds no loss and no bootstrap', async () => {
    // One action paying 0.5 a step: every episode is the same, so each state's z is known by hand.
    const registry = new Registry();
    registry.register({ id: 'demo/ends-at-three-v1', entryPoint: () => new FixedRewardDemoEnv([0.5], 3) });
    // The env would go on for 10 steps; its spec's turn limit (2) cuts it, as the time limit of any env does.
    registry.register({
      id: 'demo/cut-at-two-v1',
      entryPoint: () => {
        const env = new FixedRewardDemoEnv([0.5], 10);
        Object.assign(env, { spec: { ...env.spec, maxTurns: 2 } });
        return env;
      },
    });
    const targets = async (envId: string) => {
      const runDir = join(root, envId.replace('/', '-'));
      const rows: Record<string, number>[] = [];
      const run = await trainAlphaZero(
        { ...small, envId, runDir, iterations: 1, episodesPerIteration: 2, simulations: 4, evalEpisodes: 0 },
        { registry, onIteration: (row) => rows.push(row) },
      );
      run.net.dispose();
      const saved = JSON.parse(await readFile(join(runDir, 'checkpoint', 'stores', 'replay', 'replay.json'), 'utf8'));
      return { rows, z: (saved.samples as { return: number }[]).map((sample) => sample.return) };
    };
    const ends = await targets('demo/ends-at-three-v1');
    expect(ends.z).toEqual([0.5 + 0.5 + 0.5, 0.5 + 0.5, 0.5, 0.5 + 0.5 + 0.5, 0.5 + 0.5, 0.5]);
    const cut = await targets('demo/cut-at-two-v1');
    expect(cut.z).toEqual([0.5 + 0.5, 0.5, 0.5 + 0.5, 0.5]);
    expect(cut.rows[0]!['charts/episodic_return']).toBe(1);
    expect(cut.rows[0]!['charts/success_rate']).toBe(0);
  });

  it('refuses to resume a run with another network, closing its envs, its network and the run', async () => {
    let opened = 0;
    let closed = 0;
    const registry = new Registry();
    registry.register({
      id: DEMO_ID,
      entryPoint: () => {
        opened += 1;
        const env = new FixedRewardDemoEnv(REWARDS, HORIZON);
        const close = env.close.bind(env);
        env.close = () => ((closed += 1), close());
        return env;
      },
    });
    const run = await trainAlphaZero({ ...small, runDir: join(root, 'run'), iterations: 1 }, { registry });
    run.net.dispose();
    // A finished run lets go of its directory: a long-lived process does not hold every run it trained.
    expect(existsSync(join(root, 'run', '.lock'))).toBe(false);
    const tensors = tf.memory().numTensors;
    await expect(
      trainAlphaZero({ ...small, runDir: join(root, 'run'), iterations: 2, hiddenSize: 8 }, { registry }),
    ).rejects.toThrow(/hiddenSize/);
    expect(existsSync(join(root, 'run', '.lock'))).toBe(false);
    expect(tf.memory().numTensors).toBe(tensors);
    expect(closed).toBe(opened);
  });

  it('stops on its signal: after the iteration in flight, or before any when stopped while loading', async () => {
    const runDir = join(root, 'stopped');
    const stop = new AbortController();
    const first = await trainAlphaZero(
      { ...small, runDir, iterations: 3 },
      { registry: demoRegistry(), signal: stop.signal, onIteration: () => stop.abort() },
    );
    first.net.dispose();
    expect(first.iterations).toBe(1);
    const rows = async () =>
      (await readFile(join(runDir, 'metrics.jsonl'), 'utf8'))
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).iteration);
    expect(await rows()).toEqual([0]);
    // Ctrl-C while the resume loads: no iteration is in flight, so none is started.
    const again = await trainAlphaZero(
      { ...small, runDir, iterations: 3 },
      { registry: demoRegistry(), signal: AbortSignal.abort() },
    );
    again.net.dispose();
    expect(again.iterations).toBe(1);
    expect(await rows()).toEqual([0]);
  });

  it('stops on a NaN or infinite reward from the env, naming it, before the network is trained or saved', async () => {
    for (const bad of [Number.NaN, Number.NEGATIVE_INFINITY]) {
      const registry = new Registry();
      registry.register({ id: DEMO_ID, entryPoint: () => new FixedRewardDemoEnv([0.2, bad, 0.5, 0.1], HORIZON) });
      const runDir = join(root, `bad-reward-${bad}`);
      const error = await trainAlphaZero({ ...small, runDir, iterations: 1 }, { registry }).then(
        (result) => (result.net.dispose(), null),
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(AlphaZeroError);
      expect((error as AlphaZeroError).code).toBe('ALPHAZERO_ENV');
      expect((error as Error).message).toMatch(new RegExp(`${DEMO_ID} returned reward ${bad} for action 1`));
      expect(existsSync(join(runDir, 'checkpoint'))).toBe(false);
      expect(
        existsSync(join(runDir, 'metrics.jsonl')) ? await readFile(join(runDir, 'metrics.jsonl'), 'utf8') : '',
      ).toBe('');
    }
  });

  it('leaves a void episode (a role failed) out of training and the scores, counts it, and goes on', async () => {
    const faulty = (isFaulty: (seed: number | undefined) => boolean) => {
      const registry = new Registry();
      registry.register({
        id: DEMO_ID,
        entryPoint: () => new FaultOnSeed(new FixedRewardDemoEnv(REWARDS, HORIZON), isFaulty),
      });
      return registry;
    };
    const rows: Record<string, number>[] = [];
    // Odd seeds fail: about half the self-play episodes, and test seeds 100001 and 100003 of 100000–100003.
    const run = await trainAlphaZero(
      { ...small, runDir: join(root, 'void'), iterations: 1, evalEpisodes: 4 },
      { registry: faulty((seed) => (seed ?? 0) % 2 === 1), onIteration: (row) => rows.push(row) },
    );
    run.net.dispose();
    const row = rows[0]!;
    const errored = row['charts/errored_episodes']!;
    expect(errored).toBeGreaterThan(0);
    expect(errored).toBeLessThan(8);
    // Only the finished episodes' states were kept (3 each) and played (global_step counts their moves).
    expect(row['replay/size']).toBe((8 - errored) * HORIZON);
    expect(row.global_step).toBe((8 - errored) * HORIZON);
    expect(row['charts/episode_turns']).toBe(HORIZON);
    expect(row['eval/errored_episodes']).toBe(2);
    expect(row['eval/mcts_errored_episodes']).toBe(2);
    expect(row['eval/success_rate']).toBe(0); // the demo env reports no success: over the 2 that finished
    // Every episode void: nothing to train on, most likely a role that cannot work at all. The run says so, with
    // the last episode's error, before the iteration is trained or saved.
    const runDir = join(root, 'all-void');
    const error = await trainAlphaZero(
      { ...small, runDir, iterations: 1, evalEpisodes: 2 },
      { registry: faulty(() => true) },
    ).then(
      (result) => (result.net.dispose(), null),
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(AlphaZeroError);
    expect((error as Error).message).toMatch(
      /every self-play episode of iteration 1 was void \(8 of 8.*the last: .*the buyer role failed after its retries/,
    );
    expect(existsSync(join(runDir, 'checkpoint'))).toBe(false);
  });

  it('resumes a run whose directory was moved or copied: the directory is where the run is, not what it is', async () => {
    const first = await trainAlphaZero(
      { ...small, runDir: join(root, 'before-move'), iterations: 1 },
      { registry: demoRegistry() },
    );
    first.net.dispose();
    await cp(join(root, 'before-move'), join(root, 'moved'), { recursive: true });
    const resumed = await trainAlphaZero(
      { ...small, runDir: join(root, 'moved'), iterations: 2 },
      { registry: demoRegistry() },
    );
    resumed.net.dispose();
    expect(resumed.iterations).toBe(2);
  });

  it("counts a void episode's played moves in global_step, as the moves of every other episode", async () => {
    const registry = new Registry();
    // Odd seeds fail at their second played move: one move was played (and, with LLM roles, paid for).
    registry.register({
      id: DEMO_ID,
      entryPoint: () =>
        new FaultMidEpisode(new FixedRewardDemoEnv(REWARDS, HORIZON), (seed) => (seed ?? 0) % 2 === 1, 2),
    });
    const rows: Record<string, number>[] = [];
    const run = await trainAlphaZero(
      { ...small, runDir: join(root, 'mid-void'), iterations: 1, evalEpisodes: 0 },
      { registry, onIteration: (row) => rows.push(row) },
    );
    run.net.dispose();
    const row = rows[0]!;
    const errored = row['charts/errored_episodes']!;
    expect(errored).toBeGreaterThan(0);
    expect(errored).toBeLessThan(8);
    expect(row['replay/size']).toBe((8 - errored) * HORIZON);
    expect(row.global_step).toBe((8 - errored) * HORIZON + errored);
    expect(run.globalStep).toBe(row.global_step);
  });

  it('takes --backend (the CLI passes it to every trainer), naming a bad one', () => {
    expect(validateAlphaZeroArgs({ envId: DEMO_ID, runDir: 'runs/x' }).backend).toBe('cpu');
    expect(validateAlphaZeroArgs({ envId: DEMO_ID, runDir: 'runs/x', backend: 'wasm' }).backend).toBe('wasm');
    expect(() => validateAlphaZeroArgs({ envId: DEMO_ID, runDir: 'runs/x', backend: 'gpu' as never })).toThrow(
      /options\.backend must be one of: "auto", "tensorflow", "webgpu", "wasm", "cpu" \(got "gpu"\)/,
    );
  });

  it('resumes a run recorded before backend and textFeatures existed, as it ran: cpu and ascii', async () => {
    const runDir = join(root, 'older');
    const first = await trainAlphaZero({ ...small, runDir, iterations: 1 }, { registry: demoRegistry() });
    first.net.dispose();
    const path = join(runDir, 'run.json');
    const info = JSON.parse(await readFile(path, 'utf8'));
    delete info.args.backend;
    delete info.args.textFeatures;
    await writeFile(path, `${JSON.stringify(info)}\n`);
    const resumed = await trainAlphaZero(
      { ...small, runDir, iterations: 2, backend: 'cpu' },
      { registry: demoRegistry() },
    );
    resumed.net.dispose();
    expect(resumed.iterations).toBe(2);
    // Another text reading is another run: refused, naming the field.
    await expect(
      trainAlphaZero({ ...small, runDir, iterations: 3, textFeatures: 'unicode' }, { registry: demoRegistry() }),
    ).rejects.toThrow(/args\.textFeatures: stored "ascii", now "unicode"/);
  });

  it('refuses task ids the env does not have before writing the run, so the corrected command runs', async () => {
    const registry = new Registry();
    registerSeller(registry);
    const args = { ...small, envId: SELLER_COMMANDER_ID, runDir: join(root, 'tasks'), iterations: 1, simulations: 2 };
    await expect(
      trainAlphaZero({ ...args, episodesPerIteration: 1, trainTasks: [0, 99_999] }, { registry }),
    ).rejects.toThrow(/trainTasks: task 99999: .*taskId must be < \d+/);
    await expect(
      trainAlphaZero({ ...args, episodesPerIteration: 1, evalTasks: [99_999] }, { registry }),
    ).rejects.toThrow(/evalTasks: task 99999: .*taskId must be < \d+/);
    expect(existsSync(args.runDir)).toBe(false);
    const result = await trainAlphaZero(
      { ...args, episodesPerIteration: 1, evalEpisodes: 1, trainTasks: [0], evalTasks: [0] },
      { registry },
    );
    result.net.dispose();
    expect(result.iterations).toBe(1);
  });

  it('refuses fewer evaluation episodes than evalTasks, which would evaluate only the first tasks', async () => {
    const runDir = join(root, 'few-episodes');
    await expect(
      trainAlphaZero({ ...small, runDir, evalTasks: [0, 1, 2], evalEpisodes: 2 }, { registry: demoRegistry() }),
    ).rejects.toThrow(/evalEpisodes: 2 episodes would evaluate only the first 2 of the 3 evalTasks/);
    expect(existsSync(runDir)).toBe(false);
  });

  it('names a bad argument', async () => {
    await expect(trainAlphaZero({ ...small, runDir: join(root, 'bad'), simulations: 0 })).rejects.toThrow(
      /simulations/,
    );
  });
});
