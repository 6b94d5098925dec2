import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { RunDirectory } from './run-directory';
import { RUN_LOCK_FILE } from './run-lock';
import { loadStoresCheckpoint, saveStoresCheckpoint } from './training-checkpoint';

const INFO = { algorithm: 'grpo', envId: 'turngym/example-v1', seed: 1, args: { iterations: 2 } };

describe('run directory lock', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'run-lock-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses a run another live process on this machine is writing, and takes over once it is gone', async () => {
    const first = await RunDirectory.create(join(dir, 'run'), INFO);
    await first.appendMetrics({ iteration: 0, global_step: 1 });
    // Another process holds the run: what a second `turngym train` with the same --run-dir would meet.
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
    await new Promise((resolve) => other.once('spawn', resolve));
    const lock = join(dir, 'run', RUN_LOCK_FILE);
    writeFileSync(lock, JSON.stringify({ pid: other.pid, host: hostname(), since: '2026-11-27T12:00:00.000Z' }));
    // A fresh module registry stands for a second program: this one already holds the run.
    await jest.isolateModulesAsync(async () => {
      const isolated = (await import('./run-directory')) as typeof import('./run-directory');
      await expect(isolated.RunDirectory.openOrCreate(join(dir, 'run'), INFO)).rejects.toMatchObject({
        code: 'RUN_DIRECTORY',
        message: expect.stringMatching(new RegExp(`in use by another process \\(pid ${other.pid}, since`)),
      });
      // The run was not touched: its metrics are as the first process left them.
      expect(readFileSync(join(dir, 'run', 'metrics.jsonl'), 'utf8')).toBe('{"iteration":0,"global_step":1}\n');
      other.kill('SIGKILL');
      await new Promise((resolve) => other.once('exit', resolve));
      const resumed = await isolated.RunDirectory.openOrCreate(join(dir, 'run'), INFO);
      expect(resumed.lastIteration).toBe(0);
      expect(JSON.parse(readFileSync(lock, 'utf8'))).toMatchObject({ pid: process.pid, host: hostname() });
    });
  });

  // Another host (or container) on a shared volume: its pid says nothing here, so the lock is held until removed.
  it('refuses a lock written on another machine, naming it and the file to remove to take it over', async () => {
    await RunDirectory.create(join(dir, 'carried'), INFO);
    const lock = join(dir, 'carried', RUN_LOCK_FILE);
    const foreign = JSON.stringify({ pid: process.pid === 1 ? 2 : 1, host: 'gpu-node-7', since: 'then' });
    writeFileSync(lock, foreign);
    await jest.isolateModulesAsync(async () => {
      const isolated = (await import('./run-directory')) as typeof import('./run-directory');
      await expect(isolated.RunDirectory.openOrCreate(join(dir, 'carried'), INFO)).rejects.toMatchObject({
        code: 'RUN_DIRECTORY',
        message: expect.stringMatching(
          new RegExp(`is held by pid \\d+ on host gpu-node-7 .*remove ${lock} to take it over`),
        ),
      });
      expect(readFileSync(lock, 'utf8')).toBe(foreign);
      rmSync(lock);
      (await isolated.RunDirectory.openOrCreate(join(dir, 'carried'), INFO)).close();
    });
  });

  it('never replaces a stale lock another process is already taking over (it holds that lock’s marker)', async () => {
    await RunDirectory.create(join(dir, 'contested'), INFO);
    const lock = join(dir, 'contested', RUN_LOCK_FILE);
    const gone = spawn(process.execPath, ['-e', '0']);
    await new Promise((done) => gone.once('exit', done));
    const stale = JSON.stringify({ pid: gone.pid, host: hostname(), since: '2026-11-27T12:00:00.000Z' });
    writeFileSync(lock, stale);
    // A rival judged the same lock stale first and holds its takeover marker.
    writeFileSync(join(dir, 'contested', `${RUN_LOCK_FILE}.takeover-${gone.pid}-20261127T120000000Z`), 'rival');
    await jest.isolateModulesAsync(async () => {
      const isolated = (await import('./run-directory')) as typeof import('./run-directory');
      await expect(isolated.RunDirectory.openOrCreate(join(dir, 'contested'), INFO)).rejects.toMatchObject({
        code: 'RUN_DIRECTORY',
        // A taker killed between its marker and the new lock leaves the run stuck: the message names the way out.
        message: expect.stringContaining(
          `${RUN_LOCK_FILE}.takeover-${gone.pid}-20261127T120000000Z says another process is taking it over: remove it`,
        ),
      });
    });
    expect(readFileSync(lock, 'utf8')).toBe(stale);
  });

  it('refuses a lock it cannot read rather than take it for stale, and lets go of a directory it refused to resume', async () => {
    await RunDirectory.create(join(dir, 'odd'), INFO);
    const lock = join(dir, 'odd', RUN_LOCK_FILE);
    writeFileSync(lock, '');
    await jest.isolateModulesAsync(async () => {
      const isolated = (await import('./run-directory')) as typeof import('./run-directory');
      await expect(isolated.RunDirectory.openOrCreate(join(dir, 'odd'), INFO)).rejects.toMatchObject({
        code: 'RUN_DIRECTORY',
        message: expect.stringMatching(/holds a lock \(.*\.lock\) that cannot be read/),
      });
    });
    expect(readFileSync(lock, 'utf8')).toBe('');
    rmSync(lock);
    await jest.isolateModulesAsync(async () => {
      const isolated = (await import('./run-directory')) as typeof import('./run-directory');
      // Another run's arguments: refused, and the directory is not left locked by the refusal.
      await expect(
        isolated.RunDirectory.openOrCreate(join(dir, 'odd'), { ...INFO, args: { iterations: 9 } }),
      ).rejects.toMatchObject({ code: 'RUN_DIRECTORY', message: expect.stringMatching(/holds another run/) });
      expect(existsSync(lock)).toBe(false);
    });
  });

  it('close() lets go of the run at once, so another program can resume it while this one goes on; twice is once', async () => {
    const path = join(dir, 'closed');
    const lock = join(path, RUN_LOCK_FILE);
    const run = await RunDirectory.create(path, INFO);
    await run.appendMetrics({ iteration: 0, global_step: 1 });
    expect(existsSync(lock)).toBe(true);
    run.close();
    run.close();
    expect(existsSync(lock)).toBe(false);
    // Closed means no longer this object's to write: another process may hold the run now.
    await expect(run.appendMetrics({ iteration: 1, global_step: 2 })).rejects.toMatchObject({
      code: 'RUN_DIRECTORY',
      message: expect.stringMatching(/is closed/),
    });
    await expect(run.rollBack({ metrics: 0, trajectories: 0 })).rejects.toThrow(/is closed/);
    // Nor is a checkpoint saved or loaded through it (a load would clear another process's save in progress).
    mkdirSync(join(path, '.checkpoint-tmp-other'));
    await expect(saveStoresCheckpoint(run, { iteration: 0, stores: {} })).rejects.toThrow(/is closed/);
    await expect(loadStoresCheckpoint(run, {})).rejects.toThrow(/is closed/);
    expect(existsSync(join(path, '.checkpoint-tmp-other'))).toBe(true);
    rmSync(join(path, '.checkpoint-tmp-other'), { recursive: true });
    expect(readFileSync(join(path, 'metrics.jsonl'), 'utf8')).toBe('{"iteration":0,"global_step":1}\n');
    // Another program (a fresh module registry) resumes it while this process lives on.
    await jest.isolateModulesAsync(async () => {
      const isolated = (await import('./run-directory')) as typeof import('./run-directory');
      const resumed = await isolated.RunDirectory.openOrCreate(path, INFO);
      expect(resumed.lastIteration).toBe(0);
      expect(JSON.parse(readFileSync(lock, 'utf8'))).toMatchObject({ pid: process.pid });
      resumed.close();
    });
    expect(existsSync(lock)).toBe(false);
  });

  it('close() on a file system gone read-only warns that the lock stays rather than throwing over the error that ended the run', async () => {
    const run = await RunDirectory.create(join(dir, 'run'), INFO);
    const lock = join(dir, 'run', RUN_LOCK_FILE);
    // The module object itself (an `import * as` namespace is a copy): the lock's release calls through it.
    const fs = jest.requireActual<typeof import('node:fs')>('node:fs');
    const removeFile = fs.rmSync;
    // What a remount read-only under a running trainer does to the release (seen as `EROFS … unlink '.lock'`).
    const remove = jest.spyOn(fs, 'rmSync').mockImplementation((path, options) => {
      if (String(path) === lock)
        throw Object.assign(new Error(`EROFS: read-only file system, unlink '${lock}'`), {
          code: 'EROFS',
          syscall: 'unlink',
          path: lock,
        });
      removeFile(path, options);
    });
    const warnings: string[] = [];
    const warn = jest.spyOn(process, 'emitWarning').mockImplementation((message, options) => {
      warnings.push(`${(options as { code: string }).code}: ${String(message)}`);
    });
    // A trainer's shape: the run ends with an error, and the run is closed on the way out.
    const train = async (): Promise<void> => {
      try {
        throw new Error('EROFS: read-only file system, open metrics.jsonl');
      } finally {
        run.close();
      }
    };
    try {
      await expect(train()).rejects.toThrow('open metrics.jsonl');
    } finally {
      remove.mockRestore();
      warn.mockRestore();
    }
    expect(warnings).toEqual([
      expect.stringMatching(/^TURNGYM_RUN_LOCK_LEFT: .*\.lock could not be removed \(EROFS.*takes it over/),
    ]);
    // The run is closed all the same: no more writes through it, and another program may take the lock over.
    await expect(run.appendMetrics({ iteration: 0, global_step: 1 })).rejects.toThrow(/closed/);
    expect(existsSync(lock)).toBe(true);
  });

  it('refuses a second writer of a run this program has open, and lets go with the one that holds it', async () => {
    const path = join(dir, 'twice');
    const lock = join(path, RUN_LOCK_FILE);
    const first = await RunDirectory.create(path, INFO);
    await expect(RunDirectory.openOrCreate(path, INFO)).rejects.toThrow(/is already open for writing in this process/);
    // A refused resume of the same program gives back its own claim only.
    await expect(RunDirectory.openOrCreate(path, { ...INFO, seed: 9 })).rejects.toThrow(/already open/);
    expect(existsSync(lock)).toBe(true);
    await first.appendMetrics({ iteration: 0, global_step: 1 });
    first.close();
    expect(existsSync(lock)).toBe(false);
    // A run opened only to be read holds no lock, and closing it releases none.
    const reader = await RunDirectory.open(path);
    const writer = await RunDirectory.openOrCreate(path, INFO);
    reader.close();
    expect(existsSync(lock)).toBe(true);
    writer.close();
    expect(existsSync(lock)).toBe(false);
  });

  it('sweeps the takeover markers of takers that are gone (one per kill of a resumed run), and only those', async () => {
    const path = join(dir, 'swept');
    (await RunDirectory.create(path, INFO)).close();
    const gone = spawn(process.execPath, ['-e', '0']);
    await new Promise((done) => gone.once('exit', done));
    const alive = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
    await new Promise((resolve) => alive.once('spawn', resolve));
    const marker = (name: string, pid: number, host = hostname()) =>
      writeFileSync(join(path, `${RUN_LOCK_FILE}.takeover-${name}`), JSON.stringify({ pid, host, since: 'then' }));
    marker('1-dead', gone.pid!);
    marker('2-live', alive.pid!);
    marker('3-elsewhere', gone.pid!, 'gpu-node-7');
    writeFileSync(join(path, `${RUN_LOCK_FILE}.takeover-4-unreadable`), 'rival');
    try {
      await jest.isolateModulesAsync(async () => {
        const isolated = (await import('./run-directory')) as typeof import('./run-directory');
        (await isolated.RunDirectory.openOrCreate(path, INFO)).close();
      });
    } finally {
      alive.kill('SIGKILL');
    }
    expect(
      readdirSync(path)
        .filter((name) => name.startsWith(`${RUN_LOCK_FILE}.`))
        .sort(),
    ).toEqual([
      `${RUN_LOCK_FILE}.takeover-2-live`,
      `${RUN_LOCK_FILE}.takeover-3-elsewhere`,
      `${RUN_LOCK_FILE}.takeover-4-unreadable`,
    ]);
  });
});
