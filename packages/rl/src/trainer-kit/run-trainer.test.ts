import { existsSync } from 'node:fs';
import * as tf from '@tensorflow/tfjs';
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry, TurnGymError, type EnvStepOutcome } from '@turngym/core';
import type { Action } from '@turngym/spec';
import { DigitEnv } from '../__fixtures__/digit-env';
import { digitRegistry, readMetricsRows, smokeArgs, tinyCheckpoint } from '../__fixtures__/trainer-smoke';
import { collectChains } from '../chain-rollouts';
import { tokenCrossEntropyLoss } from '@turngym/lm';
import { groupAdvantages } from '../group-advantages';
import { JsonStatisticsStore } from '../json-statistics-store';
import { ppoUpdate } from '../ppo-update';
import { readTrajectories, type Trajectory } from '../trajectory';
import { RUN_LOCK_FILE } from '../run-lock';
import { EnvRolloutsFailedError, NonFiniteRewardError } from './trainer-errors';
import { ppoUpdateOptions, runTrainer } from './run-trainer';
import type { TrainerAlgorithm } from './trainer-algorithm';
import { defineTrainerArgs, type TrainerArgs } from './trainer-args';

type TestArgs = TrainerArgs & { groupSize: number };
const testArgs = defineTrainerArgs<{ groupSize: number }>('test-chains', {
  groupSize: { type: 'integer', minimum: 2, default: 3 },
});

/**
 * The smallest algorithm on the runner (GRPO without its tie filter), with state of its own: a count of
 * the samples it trained on, checkpointed, and logged as a metric so a resume shows whether it came back.
 */
function chainsAlgorithm(): TrainerAlgorithm<TestArgs, { trajectories: Trajectory[] }> {
  let samplesSeen = 0;
  return {
    name: 'test-chains',
    args: testArgs,
    collect: async (request, { args }) => ({
      trajectories: await collectChains({ ...request, groupSize: args.groupSize }),
    }),
    advantages: ({ trajectories }, { args }) =>
      Array.from({ length: args.promptsPerIteration }, (_, group) => {
        const members = trajectories.filter((trajectory) => trajectory.group === group);
        const advantages = groupAdvantages(members.map((member) => member.totalReward));
        return members.map((trajectory, index) => ({ trajectory, advantage: advantages[index]! }));
      })
        .flat()
        .filter((sample) => sample.advantage !== 0),
    update: (trainer, samples, { args, iteration }) => {
      samplesSeen += samples.length;
      return ppoUpdate(trainer, samples, ppoUpdateOptions(args, iteration));
    },
    metrics: () => ({ 'charts/samples_seen': samplesSeen }),
    state: { save: () => samplesSeen, load: (saved) => (samplesSeen = saved as number) },
  };
}

/**
 * The same algorithm with a second adapter (its own Adam, stepped on the sampled sequences) and a store of
 * per-seed visit counts: both logged, so a resume that lost either shows in the metrics.
 */
function attachedAlgorithm(): TrainerAlgorithm<TestArgs, { trajectories: Trajectory[] }> {
  const base = chainsAlgorithm();
  let criticLoss = 0;
  return {
    ...base,
    adapters: { critic: { rank: 2, learningRate: 1e-2 } },
    stores: () => ({ visits: new JsonStatisticsStore<number>() }),
    update: async (trainer, samples, context) => {
      const critic = context.trainers.critic!;
      criticLoss = (
        await critic.step(
          samples.map(({ trajectory }) => ({ tokens: trajectory.tokens })),
          tokenCrossEntropyLoss,
        )
      ).loss;
      return base.update(trainer, samples, context);
    },
    metrics: (rollouts, context) => {
      const visits = context.stores.visits as JsonStatisticsStore<number>;
      for (const trajectory of rollouts.trajectories) visits.update(String(trajectory.seed), (n) => (n ?? 0) + 1);
      return {
        ...base.metrics!(rollouts, context),
        'charts/critic_loss': criticLoss,
        'charts/seeds_revisited': [...Object.values(visits.toJSON())].filter((n) => n > 1).length,
        'charts/visits': Object.values(visits.toJSON()).reduce((sum, n) => sum + n, 0),
      };
    },
  };
}

// The loop runs end to end, writes what it promises, and a stopped run resumes exactly where it stopped.
// Learning itself is shown by the benchmark runs.
describe('runTrainer', () => {
  let dir: string;
  let checkpoint: string;
  const registry = digitRegistry();

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'turngym-run-trainer-'));
    checkpoint = await tinyCheckpoint(join(dir, 'base'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const args = (runDir: string, overrides: Partial<TestArgs> = {}): Partial<TestArgs> => ({
    ...smokeArgs(checkpoint, runDir),
    ...overrides,
  });
  const train = async (runDir: string, overrides: Partial<TestArgs> = {}) => {
    const result = await runTrainer(chainsAlgorithm(), args(runDir, overrides), { registry });
    result.model.dispose();
    return result;
  };

  const metrics = readMetricsRows;
  const comparable = (row: Record<string, number>) =>
    Object.fromEntries(
      Object.entries(row).filter(
        ([name]) => !name.startsWith('time/') && !name.includes('per_second') && name !== 'charts/SPS',
      ),
    );

  it('logs CleanRL metrics per iteration, evaluates on schedule, saves trajectories and a checkpoint', async () => {
    const runDir = join(dir, 'run-a');
    const result = await train(runDir);
    expect(result.iterations).toBe(3);
    const rows = await metrics(runDir);
    expect(rows.map((row) => row.iteration)).toEqual([0, 1, 2]);
    for (const row of rows) {
      for (const name of ['charts/episodic_return', 'charts/SPS', 'budget/generated_tokens', 'time/rollout_s'])
        expect(Number.isFinite(row[name])).toBe(true);
    }
    expect(rows.some((row) => Number.isFinite(row['losses/policy_loss']))).toBe(true);
    expect(rows.every((row) => Number.isFinite(row['charts/samples_seen']))).toBe(true);
    // Evaluation at iteration 1 (every 2) and at the end.
    expect(rows.map((row) => 'eval/success_rate' in row)).toEqual([false, true, true]);
    expect(rows.at(-1)!['budget/generated_tokens']).toBe(result.generatedTokens);
    const trajectories = await readTrajectories(join(runDir, 'trajectories.jsonl'));
    expect(trajectories).toHaveLength(3 * 2 * 3);
    expect(trajectories[0]!.episodeId.startsWith('it0/')).toBe(true);
  });

  it("resumes a stopped run where it stopped, the algorithm's state included: the same metrics as a run that never stopped", async () => {
    const whole = join(dir, 'run-whole');
    await train(whole);
    const split = join(dir, 'run-split');
    await train(split, { iterations: 2 });
    await train(split);
    const [a, b] = [await metrics(whole), await metrics(split)];
    expect(b.map((row) => row.iteration)).toEqual([0, 1, 2]);
    // The policy moved in each iteration, so equality below needs the adapter and Adam state restored.
    expect(a.every((row) => Number.isFinite(row['losses/policy_loss']))).toBe(true);
    expect(b.map(comparable)).toEqual(a.map(comparable));
    // A copy of a stopped run in another directory continues as the run itself (the learning runner extends
    // budgets so).
    const copy = join(dir, 'run-copy');
    await train(copy, { iterations: 2 });
    const moved = join(dir, 'run-moved');
    await cp(copy, moved, { recursive: true });
    await train(moved);
    expect((await metrics(moved)).map(comparable)).toEqual(a.map(comparable));
  });

  it('lets go of its run however it ends: no lock held after it returns or fails, no model kept after a failure', async () => {
    const runDir = join(dir, 'run-ends');
    await train(runDir, { iterations: 1 });
    // A long-lived process (a notebook, a sweep) must not hold every run it trained until it exits.
    expect(existsSync(join(runDir, RUN_LOCK_FILE))).toBe(false);
    const before = tf.memory().numTensors;
    // A resume with another seed is refused: the model it loaded and the run's lock go with the error.
    await expect(train(runDir, { seed: 6 })).rejects.toThrow(/holds another run.*seed: stored 5, now 6/);
    expect(existsSync(join(runDir, RUN_LOCK_FILE))).toBe(false);
    expect(tf.memory().numTensors).toBe(before);
    // And a failure mid-run (a NaN reward): the same.
    const bad = new Registry();
    bad.register({
      id: 'test/nan-v1',
      entryPoint: () =>
        new (class extends DigitEnv {
          protected override onStep(action: Action): EnvStepOutcome<string> {
            return { ...super.onStep(action), reward: Number.NaN };
          }
        })({ maxTurns: 3, partialCredit: true }),
    });
    const failed = join(dir, 'run-fails');
    await expect(
      runTrainer(chainsAlgorithm(), args(failed, { envId: 'test/nan-v1' }), { registry: bad }),
    ).rejects.toThrow(NonFiniteRewardError);
    expect(existsSync(join(failed, RUN_LOCK_FILE))).toBe(false);
    expect(tf.memory().numTensors).toBe(before);
  });

  it('stops on its signal: after the iteration in flight with its checkpoint, or before any when stopped while loading', async () => {
    const runDir = join(dir, 'run-stopped');
    const stop = new AbortController();
    const base = chainsAlgorithm();
    // Ctrl-C during iteration 0's rollouts.
    const stopping = {
      ...base,
      collect: (...call: Parameters<typeof base.collect>) => (stop.abort(), base.collect(...call)),
    };
    const stopped = await runTrainer(stopping, args(runDir), { registry, signal: stop.signal });
    stopped.model.dispose();
    expect(stopped.iterations).toBe(1);
    expect((await metrics(runDir)).map((row) => row.iteration)).toEqual([0]);
    expect(JSON.parse(await readFile(join(runDir, 'checkpoint', 'checkpoint.json'), 'utf8')).iteration).toBe(0);
    // Ctrl-C while the resume loads: no iteration is in flight, so none is started.
    const again = await runTrainer(chainsAlgorithm(), args(runDir), { registry, signal: AbortSignal.abort() });
    again.model.dispose();
    expect(again.iterations).toBe(1);
    expect((await metrics(runDir)).map((row) => row.iteration)).toEqual([0]);
  });

  it('counts finished iterations in its progress: n/total after the n-th, the last line once', async () => {
    const runDir = join(dir, 'run-progress');
    const written: string[] = [];
    const write = jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
    // The plain lines a log gets (CI, a pipe), whatever the terminal jest runs in.
    const tty = Object.getOwnPropertyDescriptor(process.stderr, 'isTTY');
    Object.defineProperty(process.stderr, 'isTTY', { value: false, configurable: true });
    try {
      await train(runDir, { quiet: false, iterations: 3 });
      await train(runDir, { quiet: false, iterations: 4 });
    } finally {
      write.mockRestore();
      if (tty) Object.defineProperty(process.stderr, 'isTTY', tty);
      else delete (process.stderr as { isTTY?: boolean }).isTTY;
    }
    const counts = written.join('').match(/^test-chains \d+\/\d+/gm);
    // One line at the end of each run (logEvery 10): the first after its third iteration, the resumed after its fourth.
    expect(counts).toEqual(['test-chains 3/3', 'test-chains 4/4']);
  });

  it("reports a finished run's last evaluation when its command runs again, though it evaluates nothing new", async () => {
    const runDir = join(dir, 'run-finished');
    const first = await train(runDir);
    const evaluated = (await metrics(runDir)).at(-1)!['eval/success_rate'];
    expect(first.testSuccessRate).toBe(evaluated);
    // The same command again (as after a kill between the last checkpoint and the exit): nothing left to run.
    const again = await train(runDir);
    expect(again.iterations).toBe(3);
    expect(again.testSuccessRate).toBe(evaluated);
    expect(Number.isFinite(again.testSuccessRate)).toBe(true);
  });

  it('stops at the token budget, evaluating the last iteration', async () => {
    const runDir = join(dir, 'run-budget');
    const result = await train(runDir, { iterations: 10, tokenBudget: 1 });
    expect(result.iterations).toBe(1);
    expect((await metrics(runDir)).at(-1)!['eval/success_rate']).toBeDefined();
  });

  it('reads a null optional argument as not set: `--set tokenBudget=null` drops the budget, not the run', async () => {
    // `0 >= null` is true: with the null kept, the run stopped before its first iteration and reported success.
    const args = testArgs.validate({ envId: 'x', runDir: 'r', tokenBudget: null, dualClip: null, targetKl: null });
    for (const field of ['tokenBudget', 'dualClip', 'targetKl']) expect(field in args).toBe(false);
    const result = await train(join(dir, 'run-null-budget'), { iterations: 2, tokenBudget: null as never });
    expect(result.iterations).toBe(2);
  });

  it('rejects bad arguments naming the field, shared or the algorithm’s own', async () => {
    await expect(train(join(dir, 'bad'), { groupSize: 1 })).rejects.toThrow(/groupSize/);
    await expect(train(join(dir, 'bad'), { ratio: 'tokens' as never })).rejects.toThrow(/ratio/);
  });

  it('refuses an unknown env or bad env options before writing the run, so the corrected command runs', async () => {
    const runDir = join(dir, 'bad-env');
    for (const overrides of [
      { envId: 'test/no-such-env-v1' },
      { envOptions: { zzz: 1 } },
      { testEnvOptions: { zzz: 1 } },
    ] as Partial<TestArgs>[]) {
      await expect(train(runDir, overrides)).rejects.toThrow(/no-such-env|zzz/);
      expect(existsSync(runDir)).toBe(false);
    }
    expect((await train(runDir)).iterations).toBeGreaterThan(0);
  });

  it('refuses what an algorithm’s own check rejects before writing the run, so the corrected command runs', async () => {
    const runDir = join(dir, 'bad-check');
    const checked = (limit: number) => ({
      ...chainsAlgorithm(),
      check: (checkedArgs: TestArgs) => {
        if (checkedArgs.groupSize > limit) throw new Error(`groupSize ${checkedArgs.groupSize} is over ${limit}`);
      },
    });
    await expect(runTrainer(checked(2), args(runDir), { registry })).rejects.toThrow(/groupSize 3 is over 2/);
    expect(existsSync(runDir)).toBe(false);
    const result = await runTrainer(checked(3), args(runDir), { registry });
    result.model.dispose();
    expect(result.iterations).toBe(3);
  });

  it('stops on a NaN or infinite reward from the env, naming env, episode and step, before the iteration trains or is saved', async () => {
    /** The digit env whose partial credit is `reward` (NaN, Infinity): an env with a bug in its reward. */
    class BadRewardEnv extends DigitEnv {
      constructor(private readonly reward: number) {
        super({ maxTurns: 3, partialCredit: true });
      }
      protected override onStep(action: Action): EnvStepOutcome<string> {
        const outcome = super.onStep(action);
        return outcome.reward === 0.2 ? { ...outcome, reward: this.reward } : outcome;
      }
    }
    for (const reward of [Number.NaN, Number.POSITIVE_INFINITY]) {
      const bad = new Registry();
      bad.register({ id: 'test/bad-reward-v1', entryPoint: () => new BadRewardEnv(reward) });
      const runDir = join(dir, `bad-reward-${reward}`);
      const run = runTrainer(chainsAlgorithm(), args(runDir, { envId: 'test/bad-reward-v1' }), { registry: bad });
      const error = await run.then(
        (result) => (result.model.dispose(), null),
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(NonFiniteRewardError);
      expect(TurnGymError.isInstance(error) && error.code).toBe('NON_FINITE_REWARD');
      expect((error as Error).message).toMatch(
        new RegExp(`test/bad-reward-v1 returned reward ${reward} at step 0 of episode it0/g\\d+/c\\d+`),
      );
      // Nothing of the iteration was logged or checkpointed: a resume after the env is fixed starts at 0.
      expect(existsSync(join(runDir, 'checkpoint'))).toBe(false);
      expect(
        existsSync(join(runDir, 'metrics.jsonl')) ? await readFile(join(runDir, 'metrics.jsonl'), 'utf8') : '',
      ).toBe('');
    }
  });

  it('stops when every rollout of an iteration failed in the env, with the first error, instead of training on nothing', async () => {
    const broken = new Registry();
    broken.register({
      id: 'test/broken-v1',
      entryPoint: ({ failAtTurn }: { failAtTurn: number }) =>
        new DigitEnv({ maxTurns: 3, partialCredit: true, failAtTurn }),
      optionsSchema: {
        type: 'object',
        additionalProperties: false,
        required: [],
        properties: { failAtTurn: { type: 'integer', default: 0 } },
      },
    });
    const runDir = join(dir, 'broken-env');
    const run = runTrainer(chainsAlgorithm(), args(runDir, { envId: 'test/broken-v1' }), { registry: broken });
    await expect(run).rejects.toThrow(EnvRolloutsFailedError);
    await expect(run).rejects.toThrow(
      /test\/broken-v1: all 6 rollouts of iteration 0 ended in an env error, the first: digit env failed at turn 0/,
    );
    expect(existsSync(join(runDir, 'checkpoint'))).toBe(false);
    // The same for an evaluation env that fails on every episode (its split's data missing, say).
    const evalDir = join(dir, 'broken-test-env');
    const evaluation = runTrainer(
      chainsAlgorithm(),
      args(evalDir, { envId: 'test/broken-v1', envOptions: { failAtTurn: 99 }, testEnvOptions: { failAtTurn: 0 } }),
      { registry: broken },
    );
    await expect(evaluation).rejects.toThrow(
      /test\/broken-v1: all 3 rollouts of the evaluation after iteration 1 ended in an env error/,
    );
  });

  it("resumes an algorithm's extra adapter, its Adam and its stores with the policy: the same metrics as a run that never stopped", async () => {
    const run = (runDir: string, overrides: Partial<TestArgs> = {}) =>
      runTrainer(attachedAlgorithm(), args(runDir, overrides), { registry }).then((result) => result.model.dispose());
    const whole = join(dir, 'attached-whole');
    await run(whole);
    const split = join(dir, 'attached-split');
    await run(split, { iterations: 2 });
    await run(split);
    const [a, b] = [await metrics(whole), await metrics(split)];
    expect(a.every((row) => row['charts/critic_loss']! > 0)).toBe(true);
    expect(a.at(-1)!['charts/visits']).toBe(3 * 2 * 3);
    expect(b.map(comparable)).toEqual(a.map(comparable));
    const manifest = JSON.parse(await readFile(join(split, 'checkpoint', 'checkpoint.json'), 'utf8'));
    expect(manifest.trainers).toEqual({ critic: { adapter: 'critic', valueHead: false, base: false } });
    expect(manifest.stores).toEqual(['visits']);
  });
});
