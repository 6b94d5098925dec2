import {
  appendFileSync,
  chmodSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidOptionsError } from '@turngym/core';
import { RunDirectoryError } from './rl-errors';
import { RunDirectory } from './run-directory';
import { fixtureTrajectory } from './__fixtures__/trajectory-fixture';
import { readTrajectories, type Trajectory } from './trajectory';

const INFO = { algorithm: 'grpo', envId: 'turngym/math-thought-v1', seed: 3, label: 'baseline', args: { lr: 1e-4 } };

function trajectory(id: string): Trajectory {
  return fixtureTrajectory({
    episodeId: id,
    envId: INFO.envId,
    seed: 3,
    group: 0,
    tokens: [1, 2, 3],
    segments: [
      { kind: 'prompt', tokenCount: 1 },
      { kind: 'action', tokenCount: 2 },
    ],
    logprobs: [0, -0.5, -0.25],
    totalReward: 1,
    success: true,
    generatedTokens: 2,
    computedTokens: 3,
  });
}

describe('RunDirectory', () => {
  let root: string;
  let dir: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'turngym-run-'));
    dir = join(root, 'runs', 'a');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('records run.json and refuses to start a second run in the same directory', async () => {
    const run = await RunDirectory.create(dir, { ...INFO, startedAt: '2026-11-22T10:00:00.000Z' });
    expect(JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8'))).toEqual({
      ...INFO,
      startedAt: '2026-11-22T10:00:00.000Z',
    });
    expect(run.info.seed).toBe(3);
    await expect(RunDirectory.create(dir, INFO)).rejects.toThrow(RunDirectoryError);
    await expect(RunDirectory.create(dir, INFO)).rejects.toThrow(/already holds a run/);
    await expect(RunDirectory.create(join(root, 'b'), { ...INFO, seed: 1.5 })).rejects.toThrow(InvalidOptionsError);
  });

  it('refuses a directory it cannot write with a RunDirectoryError naming it, not a bare file-system error', async () => {
    // A path under a file (a typo'd --run-dir), and, where permissions bind (not as root), a read-only folder.
    writeFileSync(join(root, 'file'), '');
    await expect(RunDirectory.create(join(root, 'file', 'run'), INFO)).rejects.toMatchObject({
      code: 'RUN_DIRECTORY',
      message: expect.stringMatching(/file\/run: cannot hold a run: .*\/file is a file, not a directory/),
    });
    // The --run-dir itself a file: said so, not taken for read-only storage (mkdir's EEXIST).
    await expect(RunDirectory.openOrCreate(join(root, 'file'), INFO)).rejects.toMatchObject({
      code: 'RUN_DIRECTORY',
      message: `${join(root, 'file')}: cannot hold a run: ${join(root, 'file')} is a file, not a directory. Choose a directory for the run.`,
    });
    const run = await RunDirectory.create(dir, INFO);
    run.close();
    chmodSync(dir, 0o555);
    try {
      if (process.getuid?.() !== 0) {
        await expect(RunDirectory.openOrCreate(dir, INFO)).rejects.toMatchObject({
          code: 'RUN_DIRECTORY',
          message: expect.stringMatching(/is not writable: EACCES/),
        });
      }
    } finally {
      chmodSync(dir, 0o755);
    }
  });

  it('appends one metrics row per iteration, iteration and global_step first, and reads them back', async () => {
    const run = await RunDirectory.create(dir, INFO);
    await run.appendMetrics({ 'losses/policy_loss': 0.5, global_step: 8, iteration: 0 });
    await run.appendMetrics({ iteration: 1, global_step: 16, 'losses/policy_loss': 0.25 });
    expect(readFileSync(run.metricsPath, 'utf8').split('\n')[0]).toBe(
      '{"iteration":0,"global_step":8,"losses/policy_loss":0.5}',
    );
    expect(await run.readMetrics()).toEqual([
      { iteration: 0, global_step: 8, 'losses/policy_loss': 0.5 },
      { iteration: 1, global_step: 16, 'losses/policy_loss': 0.25 },
    ]);
    expect(run.lastIteration).toBe(1);
    await expect(run.appendMetrics({ iteration: 1, global_step: 24 })).rejects.toThrow(/iterations must increase/);
    expect(await (await RunDirectory.open(dir)).readMetrics()).toHaveLength(2);
  });

  it.each([
    ['NaN', NaN],
    ['Infinity', Infinity],
    ['-Infinity', -Infinity],
  ])('rejects a metric of %s, naming it', async (shown, value) => {
    const run = await RunDirectory.create(dir, INFO);
    const row = { iteration: 0, global_step: 1, 'charts/episodic_return': 1, 'losses/approx_kl': value };
    await expect(run.appendMetrics(row)).rejects.toThrow(RangeError);
    await expect(run.appendMetrics(row)).rejects.toThrow(`metric "losses/approx_kl" is ${shown}`);
    await expect(run.appendMetrics({ iteration: -1, global_step: 0 })).rejects.toThrow(/"iteration"/);
    expect(await run.readMetrics()).toEqual([]);
  });

  it('leaves a torn last line out when reading, and refuses to append after it', async () => {
    const run = await RunDirectory.create(dir, INFO);
    await run.appendMetrics({ iteration: 0, global_step: 1 });
    appendFileSync(run.metricsPath, '{"iteration":1,"glo');
    run.close();
    const reopened = await RunDirectory.openOrCreate(dir, INFO);
    expect(await reopened.readMetrics()).toEqual([{ iteration: 0, global_step: 1 }]);
    await expect(reopened.appendMetrics({ iteration: 1, global_step: 2 })).rejects.toThrow(/torn line/);
    await reopened.rollBack({ metrics: readFileSync(run.metricsPath, 'utf8').indexOf('\n') + 1, trajectories: 0 });
    await reopened.appendMetrics({ iteration: 1, global_step: 2 });
    expect((await reopened.readMetrics()).map((row) => row.iteration)).toEqual([0, 1]);
  });

  it('an append that fails on a full disk names the file and refuses further appends until the torn line is cut back', async () => {
    const run = await RunDirectory.create(dir, INFO);
    await run.appendMetrics({ iteration: 0, global_step: 1 });
    // What a full disk does to an append: part of the line reaches the file, then the write fails (no path said).
    const enospc = Object.assign(new Error('ENOSPC: no space left on device, write'), {
      code: 'ENOSPC',
      syscall: 'write',
    });
    // The module object run-directory.ts calls through (an `import * as` copy would not be it).
    const fsPromises = require('node:fs/promises') as typeof import('node:fs/promises');
    const spy = jest.spyOn(fsPromises, 'appendFile').mockImplementationOnce(async (path, data) => {
      appendFileSync(path as string, String(data).slice(0, 10));
      throw enospc;
    });
    try {
      await expect(run.appendMetrics({ iteration: 1, global_step: 2 })).rejects.toMatchObject({
        code: 'RUN_DIRECTORY',
        message: expect.stringContaining(`appending to ${run.metricsPath} failed (ENOSPC: no space left on device`),
      });
    } finally {
      spy.mockRestore();
    }
    // Space freed, the caller goes on: the next row would glue onto the part and corrupt the file mid-way.
    await expect(run.appendMetrics({ iteration: 1, global_step: 2 })).rejects.toThrow(/torn line/);
    await expect(run.appendTrajectories([trajectory('a')])).rejects.toThrow(/torn line/);
    expect(await run.readMetrics()).toEqual([{ iteration: 0, global_step: 1 }]);
    await run.rollBack({ metrics: readFileSync(run.metricsPath, 'utf8').indexOf('\n') + 1, trajectories: 0 });
    await run.appendMetrics({ iteration: 1, global_step: 2 });
    expect((await run.readMetrics()).map((row) => row.iteration)).toEqual([0, 1]);
  });

  it('an append that fails on a file system gone read-only says so, not "a full disk"', async () => {
    const run = await RunDirectory.create(dir, INFO);
    // What a remount read-only under a running trainer does to the next append.
    const erofs = Object.assign(new Error(`EROFS: read-only file system, open '${run.metricsPath}'`), {
      code: 'EROFS',
      syscall: 'open',
    });
    const fsPromises = require('node:fs/promises') as typeof import('node:fs/promises');
    const spy = jest.spyOn(fsPromises, 'appendFile').mockRejectedValueOnce(erofs);
    let message = '';
    try {
      await run.appendMetrics({ iteration: 0, global_step: 1 }).catch((error: Error) => (message = error.message));
    } finally {
      spy.mockRestore();
    }
    expect(message).toContain(`appending to ${run.metricsPath} failed (EROFS`);
    expect(message).toMatch(/once the cause is fixed \(the file system is read-only: make it writable/);
    expect(message).not.toContain('full disk');
  });

  it('refuses to roll back to more rows than the files hold', async () => {
    const run = await RunDirectory.create(dir, INFO);
    await run.appendMetrics({ iteration: 0, global_step: 1 });
    await expect(run.rollBack({ metrics: 1000, trajectories: 0 })).rejects.toThrow(/rows it holds are gone/);
  });

  it('appends trajectories as JSONL', async () => {
    const run = await RunDirectory.create(dir, INFO);
    await run.appendTrajectories([trajectory('a'), trajectory('b')]);
    await run.appendTrajectories([trajectory('c')]);
    expect((await readTrajectories(run.trajectoriesPath)).map((t) => t.episodeId)).toEqual(['a', 'b', 'c']);
  });

  it('openOrCreate creates a new run, reopens the same one, and refuses another, naming what differs', async () => {
    const created = await RunDirectory.openOrCreate(dir, INFO);
    await created.appendMetrics({ iteration: 0, global_step: 1 });
    created.close();
    const reopened = await RunDirectory.openOrCreate(dir, { ...INFO, args: { lr: 1e-4 } });
    reopened.close();
    expect(reopened.info.startedAt).toBe(created.info.startedAt);
    expect(reopened.lastIteration).toBe(0);
    await expect(RunDirectory.openOrCreate(dir, { ...INFO, seed: 4, args: { lr: 1e-3 } })).rejects.toThrow(
      'seed: stored 3, now 4; args.lr: stored 0.0001, now 0.001',
    );
    await expect(RunDirectory.openOrCreate(dir, { ...INFO, args: { lr: 1e-4, iterations: 200 } })).rejects.toThrow(
      /args\.iterations: stored absent, now 200/,
    );
    const extended = await RunDirectory.openOrCreate(
      dir,
      { ...INFO, args: { lr: 1e-4, iterations: 200 } },
      { ignoreArgs: ['iterations'] },
    );
    expect(extended.info.args).toEqual({ lr: 1e-4 });
    extended.close();
    await expect(RunDirectory.open(join(root, 'missing'))).rejects.toThrow(/holds no run/);
  });

  it('openOrCreate counts an arg a stored run lacks as its default (a run from before the arg existed)', async () => {
    (await RunDirectory.openOrCreate(dir, INFO)).close();
    const defaults = { ratio: 'token' };
    const resumed = await RunDirectory.openOrCreate(dir, { ...INFO, args: { lr: 1e-4, ratio: 'token' } }, { defaults });
    expect(resumed.info.args).toEqual({ lr: 1e-4 });
    resumed.close();
    await expect(
      RunDirectory.openOrCreate(dir, { ...INFO, args: { lr: 1e-4, ratio: 'sequence' } }, { defaults }),
    ).rejects.toThrow('args.ratio: stored "token", now "sequence"');
  });

  // Two `train()` calls of one script on one runDir: the lock lets a process claim its own run again, and the
  // second one's resume deleted the first's checkpoint in progress ("saving the checkpoint … failed (ENOENT …);
  // … free disk space"), or, started together, both wrote run.json and one died of a bare ENOENT.
  it('refuses a second writer of a run this process has open, by any path, started together or later', async () => {
    const together = await Promise.allSettled([
      RunDirectory.openOrCreate(dir, INFO),
      RunDirectory.openOrCreate(dir, INFO),
    ]);
    expect(together.map((result) => result.status).sort()).toEqual(['fulfilled', 'rejected']);
    const refused = together.find((result) => result.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason).toMatchObject({
      code: 'RUN_DIRECTORY',
      message: expect.stringContaining(`${dir}: is already open for writing in this process`),
    });
    const first = (together.find((result) => result.status === 'fulfilled') as PromiseFulfilledResult<RunDirectory>)
      .value;
    await first.appendMetrics({ iteration: 0, global_step: 1 });
    const alias = join(root, 'alias');
    symlinkSync(dir, alias);
    for (const path of [dir, alias, join(dir, '..', 'a')]) {
      await expect(RunDirectory.openOrCreate(path, INFO)).rejects.toThrow(
        /is already open for writing in this process/,
      );
    }
    await expect(RunDirectory.create(join(root, 'runs', 'b'), INFO)).resolves.toBeDefined(); // another run is fine
    // The refusals touched nothing, and once the first is closed the run opens again (a resume within the program).
    expect(readFileSync(join(dir, 'metrics.jsonl'), 'utf8')).toBe('{"iteration":0,"global_step":1}\n');
    first.close();
    const resumed = await RunDirectory.openOrCreate(alias, INFO);
    expect(resumed.lastIteration).toBe(0);
    resumed.close();
  });

  it('refuses a directory holding a run whose run.json is gone, saying what to do, and touches nothing', async () => {
    (await RunDirectory.create(dir, INFO)).close();
    writeFileSync(join(dir, 'metrics.jsonl'), '{"iteration":0,"global_step":1}\n');
    rmSync(join(dir, 'run.json'));
    for (const open of [() => RunDirectory.openOrCreate(dir, INFO), () => RunDirectory.create(dir, INFO)]) {
      await expect(open()).rejects.toMatchObject({
        code: 'RUN_DIRECTORY',
        message: `${dir}: holds a run's metrics.jsonl but no run.json, so it can neither be resumed nor started over without losing it: restore run.json, or choose another directory, or remove this one to start over.`,
      });
    }
    expect(readdirSync(dir).sort()).toEqual(['metrics.jsonl']);
  });

  // `open` holds no lock: a resume through it (as its comment once offered) went past the lock and past the
  // refusal of a second writer in this process.
  it('writes nothing through a run opened to read, and says how to open it to write', async () => {
    const run = await RunDirectory.create(dir, INFO);
    await run.appendMetrics({ iteration: 0, global_step: 1 });
    const reader = await RunDirectory.open(dir);
    expect(await reader.readMetrics()).toEqual([{ iteration: 0, global_step: 1 }]);
    const refusal = {
      code: 'RUN_DIRECTORY',
      message: `${dir}: was opened to read (RunDirectory.open), which holds no lock: another process may be writing it. Open it with RunDirectory.openOrCreate to write to it (to resume it).`,
    };
    await expect(reader.appendMetrics({ iteration: 1, global_step: 2 })).rejects.toMatchObject(refusal);
    await expect(reader.appendTrajectories([trajectory('a')])).rejects.toMatchObject(refusal);
    await expect(reader.rollBack({ metrics: 0, trajectories: 0 })).rejects.toMatchObject(refusal);
    expect(readFileSync(join(dir, 'metrics.jsonl'), 'utf8')).toBe('{"iteration":0,"global_step":1}\n');
    run.close();
  });
});
