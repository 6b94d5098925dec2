import { existsSync } from 'node:fs';
import { copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Trajectory } from '@turngym/rl';
import { digitRegistry, readMetricsRows, smokeSetup } from '../../../packages/rl/src/__fixtures__/trainer-smoke';
import { ccapoAlgorithm, trainCcapo, type CcapoArgs } from './ccapo';
import { fuseAdvantages, macroAdvantages, macroReward, microAdvantages } from './dual-stream-advantage';
import { edgeScore } from './edge-score';
import { Stdb } from './stdb';
import { StdbStore } from './stdb-store';

/** A finished rollout with the hooks' info on each step: `moves` are [fingerprint, location] per step. */
function rollout(group: number, success: boolean, moves: [string, string][]): Trajectory {
  return {
    episodeId: `g${group}/${moves.map(([f]) => f).join('')}/${success}`,
    group,
    success,
    turns: moves.length,
    stopReason: 'terminated',
    steps: moves.map(([fingerprint, anchor]) => ({ action: fingerprint, info: { fingerprint, anchor } })),
    segments: [{ kind: 'prompt', tokenCount: 2 }, ...moves.map(() => ({ kind: 'action', tokenCount: 1 }))],
  } as unknown as Trajectory;
}

// The loop, resume, budget and metrics are the runner's (tested in @turngym/rl); this is CCAPO's own.
describe('CCAPO', () => {
  const smoke = smokeSetup('turngym-ccapo-');
  const registry = digitRegistry();

  it('scores each turn as A_macro + β·A_micro against the history before the batch, then records the batch', async () => {
    const store = new StdbStore(join(smoke.dir, 'unit.sqlite'));
    await store.reset();
    const stdb = Stdb.open(store.path);
    // History: from the start, A led to success twice, B failed once.
    const path = (f: string, end: number) => [{ anchor: '^|^', fingerprint: f, loop: false, stepsToEnd: end }];
    stdb.record([
      { success: true, path: path('A', 0) },
      { success: true, path: path('A', 0) },
      { success: false, path: path('B', 0) },
    ]);
    const global = stdb.globals();
    const v = stdb.baseline('^|^')!;
    const qA = edgeScore(stdb.edge('^|^', 'A')!, global);
    const qB = edgeScore(stdb.edge('^|^', 'B')!, global);

    const trajectories = [
      rollout(0, true, [['A', 's1']]),
      rollout(0, false, [
        ['B', 's2'],
        ['B', 's2'],
        ['C', 's3'],
      ]),
      rollout(0, false, [['D', 's4']]),
    ];
    const args = { promptsPerIteration: 1, beta: 0.5, terminalReward: 10, stepPenalty: -0.1, sigmaMin: 0.1 };
    const algorithm = ccapoAlgorithm();
    const samples = algorithm.advantages(
      { trajectories },
      {
        args: args as CcapoArgs,
        iteration: 0,
        trainers: {},
        stores: { stdb: store },
      },
    );

    const macro = macroAdvantages([macroReward(true, 1), macroReward(false, 3), macroReward(false, 1)]);
    // Steps in batch order: A (known anchor), B (known), B again (a loop: 0), C (anchor s2|B unknown: 0),
    // D (unseen edge at a known anchor: Q = 0).
    const micro = microAdvantages([qA - v, qB - v, 0, 0, 0 - v]);
    expect(samples.map((s) => s.turnAdvantages)).toEqual([
      fuseAdvantages(macro[0]!, [micro[0]!], 0.5),
      fuseAdvantages(macro[1]!, [micro[1]!, micro[2]!, micro[3]!], 0.5),
      fuseAdvantages(macro[2]!, [micro[4]!], 0.5),
    ]);
    // The batch went in after scoring: 3 more episodes, the loop's edge counted once.
    expect(stdb.globals()).toEqual({ episodes: 6, successes: 3 });
    expect(stdb.edge('^|^', 'B')).toEqual({ total: 2, successes: 0, distanceToGoal: null });
    expect(stdb.edge('s2|B', 'B')!.total).toBe(1);
    stdb.close();
  });

  /**
   * A store worked out by hand (ALGORITHMS.md §3, α = λ = 1, η = 0.1), from the start anchor ^|^:
   * 1. A succeeds in 1 step: globals (1, 1); A: N = 1, S = 1, d = 0. I = 2/3, C = (1/1)/(1/1) = 1, D = 1:
   *    x = 2/3·2 = 4/3, Q = x/(1 + x) = 4/7, and V̄(^|^) starts there.
   * 2. A fails: A: N = 2, S = 1. V̄ untouched.
   * 3. B succeeds in 1 step: globals (3, 2); B: N = 1, S = 1, d = 0. I = 2/3, C = 1/(2/3) = 3/2: x = 2/3·5/2 = 5/3,
   *    Q = 5/8; V̄ = 4/7 + 0.1·(5/8 − 4/7) = 4/7 + 0.3/56.
   * Then Q(A) = I·(1 + C)·D with I = 2/4, C = (1/2)/(2/3) = 3/4: x = 7/8, Q = 7/15.
   */
  async function handWorkedStore(name: string): Promise<{ store: StdbStore; qA: number; vBar: number }> {
    const store = new StdbStore(join(smoke.dir, name));
    await store.reset();
    const path = (f: string) => [{ anchor: '^|^', fingerprint: f, loop: false, stepsToEnd: 0 }];
    store.use((stdb) =>
      stdb.record([
        { success: true, path: path('A') },
        { success: false, path: path('A') },
        { success: true, path: path('B') },
      ]),
    );
    const qA = 7 / 15;
    const vBar = 4 / 7 + 0.1 * (5 / 8 - 4 / 7);
    store.use((stdb) => {
      expect(stdb.globals()).toEqual({ episodes: 3, successes: 2 });
      expect(stdb.baseline('^|^')).toBeCloseTo(vBar, 7);
      expect(edgeScore(stdb.edge('^|^', 'A')!, stdb.globals())).toBeCloseTo(qA, 7);
    });
    return { store, qA, vBar };
  }
  const handArgs = { promptsPerIteration: 1, beta: 0.5, terminalReward: 10, stepPenalty: -0.1, sigmaMin: 0.1 };

  it('does not train a tied task group whose steps all have the same micro raw value (no signal at all)', async () => {
    const { store, qA, vBar } = await handWorkedStore('tied.sqlite');
    // Five rollouts that all took A and succeeded in one step: every R_τ is 9.9 (A_macro = 0), every raw micro
    // value is Q(A) − V̄ = 7/15 − 0.5768 ≈ −0.110 (A_micro = 0): nothing to learn from this batch.
    expect(qA - vBar).toBeCloseTo(-0.1101, 4);
    const trajectories = Array.from({ length: 5 }, () => rollout(0, true, [['A', 's1']]));
    const samples = ccapoAlgorithm().advantages(
      { trajectories },
      { args: handArgs as CcapoArgs, iteration: 0, trainers: {}, stores: { stdb: store } },
    );
    expect(samples).toEqual([]);
  });

  it('leaves a rollout cut before its first action out of the history: it took no edge, and is no failure', async () => {
    const { store } = await handWorkedStore('cut.sqlite');
    // The prompt past the context: no step, no action token. The policy never acted.
    const cut = {
      ...rollout(0, false, []),
      episodeId: 'g0/cut',
      stopReason: 'context',
    } as unknown as Trajectory;
    const trajectories = [rollout(0, true, [['A', 's1']]), cut, rollout(0, false, [['B', 's1']])];
    const samples = ccapoAlgorithm().advantages(
      { trajectories },
      { args: handArgs as CcapoArgs, iteration: 0, trainers: {}, stores: { stdb: store } },
    );
    // Its R_τ (0: no step, no success) still counts in its task group, as in GRPO; it has nothing to train.
    const macro = macroAdvantages([macroReward(true, 1), macroReward(false, 0), macroReward(false, 1)]);
    expect(samples.map((sample) => sample.trajectory.episodeId)).toEqual([
      trajectories[0]!.episodeId,
      trajectories[2]!.episodeId,
    ]);
    expect(samples.map((sample) => sample.advantage)).toEqual([macro[0], macro[2]]);
    // The hand-worked store held 3 episodes (2 successes); the batch adds the two that acted, not the cut one,
    // which counted as a failed episode lowered N_succ^total / N_total^global, the base rate C(E) divides by.
    store.use((stdb) => expect(stdb.globals()).toEqual({ episodes: 5, successes: 3 }));
  });

  it('works a batch by hand: a loop and an unknown anchor get raw 0, loops still cost a step, σ_min bites', async () => {
    const { store } = await handWorkedStore('by-hand.sqlite');
    // V̄(^|^) = 4/7 + 0.1·(5/8 − 4/7) = 323/560; Q(A) = 7/15; Q(B) = 5/8 (B: I = 2/3, C = (1/1)/(2/3), x = 5/3).
    const trajectories = [
      // Success in 3 steps, the third repeating the second (same fingerprint, text and place): R_τ = 10 − 0.3.
      rollout(0, true, [
        ['A', 's1'],
        ['X', 's2'],
        ['X', 's2'],
      ]),
      // Failure in 1 step: R_τ = −0.1.
      rollout(0, false, [['B', 's1']]),
    ];
    const samples = ccapoAlgorithm().advantages(
      { trajectories },
      { args: handArgs as CcapoArgs, iteration: 0, trainers: {}, stores: { stdb: store } },
    );
    // Raw: A: 7/15 − 323/560 = −37/336; X at s1|A (no V̄ there): 0; the loop: 0; B: 5/8 − 323/560 = 27/560.
    // Mean (−37/336 + 27/560)/4 = −13/840; unbiased std ≈ 0.067 < σ_min, so divided by 0.1.
    const raw = [-37 / 336, 0, 0, 27 / 560];
    const mean = -13 / 840;
    expect(Math.sqrt(raw.reduce((sum, value) => sum + (value - mean) ** 2, 0) / 3)).toBeLessThan(0.1);
    const micro = raw.map((value) => (value - mean) / 0.1); // [−0.9464, 0.1548, 0.1548, 0.6369]
    // Macro: R_τ = [9.7, −0.1], mean 4.8, unbiased std 9.8/√2: ±4.9/(9.8/√2 + 1e-6).
    const macro = 4.9 / (9.8 / Math.SQRT2 + 1e-6);
    expect(samples.map((sample) => sample.turnAdvantages)).toEqual([
      [macro + 0.5 * micro[0]!, macro + 0.5 * micro[1]!, macro + 0.5 * micro[2]!].map((v) => expect.closeTo(v, 6)),
      [expect.closeTo(-macro + 0.5 * micro[3]!, 6)],
    ]);
  });

  it('logs stdb/micro_raw_std as the std the micro z-score divided by (unbiased), against σ_min', async () => {
    const { store, qA, vBar } = await handWorkedStore('std.sqlite');
    // One rollout took A (raw = 7/15 − V̄), one took the unseen C at the known anchor (Q = 0: raw = −V̄).
    const trajectories = [rollout(0, true, [['A', 's1']]), rollout(0, true, [['C', 's1']])];
    const algorithm = ccapoAlgorithm();
    const context = { args: handArgs as CcapoArgs, iteration: 0, trainers: {}, stores: { stdb: store } };
    const samples = algorithm.advantages({ trajectories }, context);
    const metrics = algorithm.metrics!({ trajectories }, context);
    // Two values a = 7/15 − V̄, b = −V̄: mean = (a + b)/2, unbiased std = |a − b|/√2 = (7/15)/√2 ≈ 0.330 (the
    // population std would be 7/30 ≈ 0.233).
    expect(metrics['stdb/micro_raw_mean']).toBeCloseTo((qA - vBar - vBar) / 2, 7);
    expect(metrics['stdb/micro_raw_std']).toBeCloseTo(7 / 15 / Math.SQRT2, 7);
    // The z-score of two values is ±1/√2 (unbiased std); both rollouts took one step and tied on R_τ = 9.9.
    expect(samples.map((s) => s.turnAdvantages![0])).toEqual([
      expect.closeTo(0.5 * Math.SQRT1_2, 9),
      expect.closeTo(-0.5 * Math.SQRT1_2, 9),
    ]);
  });

  it('trains end to end, logs the store’s hit rate, and resumes with the store restored from the checkpoint', async () => {
    const run = (name: string, overrides: Partial<CcapoArgs> = {}) =>
      trainCcapo({ ...smoke.args(name), groupSize: 3, ...overrides }, { registry }).then((r) => r.model.dispose());
    await run('whole');
    await run('split', { iterations: 2 });
    await run('split');
    const whole = await readMetricsRows(join(smoke.dir, 'whole'));
    const split = await readMetricsRows(join(smoke.dir, 'split'));
    const stdbColumns = (rows: Record<string, number>[]) =>
      rows.map((row) => Object.fromEntries(Object.entries(row).filter(([name]) => name.startsWith('stdb/'))));
    expect(whole.map((row) => row['stdb/episodes'])).toEqual([6, 12, 18]);
    expect(whole.every((row) => row['stdb/anchor_hit_rate']! >= 0 && row['stdb/anchor_hit_rate']! <= 1)).toBe(true);
    expect(whole.some((row) => Number.isFinite(row['losses/policy_loss']))).toBe(true);
    // The resumed run saw the same history as the one that never stopped.
    expect(stdbColumns(split)).toEqual(stdbColumns(whole));
    const stdb = Stdb.open(join(smoke.dir, 'split', 'stdb.sqlite'), { readonly: true });
    expect(stdb.globals().episodes).toBe(18);
    stdb.close();
  });

  it('starts from a warm history when given one, and rejects bad arguments naming the field', async () => {
    const result = await trainCcapo(
      {
        ...smoke.args('warm'),
        groupSize: 2,
        iterations: 1,
        stdbWarmStart: join(smoke.dir, 'whole', 'stdb.sqlite'),
      },
      { registry },
    );
    result.model.dispose();
    expect((await readMetricsRows(join(smoke.dir, 'warm')))[0]!['stdb/episodes']).toBe(18 + 4);
    const args = smoke.args('bad');
    await expect(trainCcapo({ ...args, groupSize: 1 })).rejects.toThrow(/groupSize/);
    await expect(trainCcapo({ ...args, stepPenalty: 0.1 })).rejects.toThrow(/stepPenalty/);
  });

  it('refuses a missing or foreign warm start before writing the run, so the corrected command runs', async () => {
    const args = { ...smoke.args('bad-warm'), groupSize: 2, iterations: 1 };
    const runDir = args.runDir!;
    const foreign = join(smoke.dir, 'foreign.sqlite');
    await writeFile(foreign, 'not a database');
    await expect(
      trainCcapo({ ...args, stdbWarmStart: join(smoke.dir, 'nowhere.sqlite') }, { registry }),
    ).rejects.toThrow(/stdbWarmStart: .*nowhere\.sqlite/);
    await expect(trainCcapo({ ...args, stdbWarmStart: foreign }, { registry })).rejects.toThrow(
      /stdbWarmStart: .*foreign\.sqlite: not a turngym\.stdb/,
    );
    expect(existsSync(runDir)).toBe(false);
    const result = await trainCcapo({ ...args, stdbWarmStart: join(smoke.dir, 'whole', 'stdb.sqlite') }, { registry });
    result.model.dispose();
    expect(result.iterations).toBe(1);
  });

  it('resumes a run whose warm start has since been deleted: the checkpoint holds the store', async () => {
    // Warm-started from a copy that the user removes mid-run (the earlier run's directory cleaned up).
    const warm = join(smoke.dir, 'warm-copy.sqlite');
    await copyFile(join(smoke.dir, 'whole', 'stdb.sqlite'), warm);
    const args = { ...smoke.args('warm-gone'), groupSize: 2, stdbWarmStart: warm };
    (await trainCcapo({ ...args, iterations: 1 }, { registry })).model.dispose();
    await rm(warm);
    const resumed = await trainCcapo({ ...args, iterations: 2 }, { registry });
    resumed.model.dispose();
    expect(resumed.iterations).toBe(2);
    const rows = await readMetricsRows(join(smoke.dir, 'warm-gone'));
    expect(rows.map((row) => row['stdb/episodes'])).toEqual([18 + 4, 18 + 8]);
  });

  it('refuses a warm start from a run on another env, before writing the run', async () => {
    const check = ccapoAlgorithm().check!;
    const warm = join(smoke.dir, 'whole', 'stdb.sqlite'); // written by runs on test/digit-v1
    const args = (envId: string) =>
      ({ ...smoke.args('other-env'), envId, stdbWarmStart: warm }) as unknown as CcapoArgs;
    expect(() => check(args('test/digit-v1'))).not.toThrow();
    expect(() => check(args('test/digit-v2'))).toThrow(/stdbWarmStart: .*test\/digit-v1, not of test\/digit-v2/);
    expect(existsSync(join(smoke.dir, 'other-env'))).toBe(false);
  });

  it('refuses the run’s own store as its warm start before touching it, and a damaged warm start', async () => {
    // An earlier run's store copied into a new run directory, then named as the warm start.
    const args = { ...smoke.args('own-warm'), groupSize: 2, iterations: 1 };
    const runDir = args.runDir!;
    await mkdir(runDir, { recursive: true });
    const own = join(runDir, 'stdb.sqlite');
    await copyFile(join(smoke.dir, 'whole', 'stdb.sqlite'), own);
    await expect(trainCcapo({ ...args, stdbWarmStart: own }, { registry })).rejects.toThrow(
      /stdbWarmStart: .*the run's own history store/,
    );
    expect(existsSync(join(runDir, 'run.json'))).toBe(false);
    const copied = Stdb.open(own, { readonly: true });
    expect(copied.globals().episodes).toBe(18);
    copied.close();

    // A store whose last page is garbage: its schema reads, copying it in would fail mid-run.
    const damaged = join(smoke.dir, 'damaged.sqlite');
    const bytes = await readFile(join(smoke.dir, 'whole', 'stdb.sqlite'));
    bytes.fill(0xab, bytes.length - bytes.readUInt16BE(16));
    await writeFile(damaged, bytes);
    const fresh = { ...smoke.args('damaged-warm'), groupSize: 2, iterations: 1 };
    await expect(trainCcapo({ ...fresh, stdbWarmStart: damaged }, { registry })).rejects.toThrow(
      /stdbWarmStart: .*damaged\.sqlite/,
    );
    expect(existsSync(fresh.runDir!)).toBe(false);
  });
});
