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
