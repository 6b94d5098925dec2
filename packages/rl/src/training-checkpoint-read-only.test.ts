import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JsonStatisticsStore } from './json-statistics-store';
import { RunDirectory } from './run-directory';
import { loadStoresCheckpoint, saveStoresCheckpoint } from './training-checkpoint';

const INFO = { algorithm: 'alphazero', envId: 'turngym/example-v1', seed: 1, args: {} };

/** What the file system says of a directory made read-only (`chmod -R a-w`), to a user who is not root. */
const denied = (syscall: string, path: string) =>
  Object.assign(new Error(`EACCES: permission denied, ${syscall} '${path}'`), { code: 'EACCES', syscall, path });

// The module objects training-checkpoint.ts calls through: permissions do not bind root, who runs these tests in
// containers, so the refusal a user meets is given by the file system's own error.
const fs = require('node:fs') as typeof import('node:fs');
const fsPromises = require('node:fs/promises') as typeof import('node:fs/promises');

describe('a checkpoint that cannot be replaced (made read-only)', () => {
  let dir: string;
  beforeEach(() => (dir = join(mkdtempSync(join(tmpdir(), 'turngym-read-only-')), 'run')));
  afterEach(() => {
    jest.restoreAllMocks();
    rmSync(join(dir, '..'), { recursive: true, force: true });
  });

  const checkpointIteration = () =>
    (JSON.parse(readFileSync(join(dir, 'checkpoint', 'checkpoint.json'), 'utf8')) as { iteration: number }).iteration;

  async function savedRun(): Promise<{ run: RunDirectory; store: JsonStatisticsStore<number> }> {
    const run = await RunDirectory.create(dir, INFO);
    const store = new JsonStatisticsStore<number>();
    await run.appendMetrics({ iteration: 0, global_step: 1 });
    await saveStoresCheckpoint(run, { iteration: 0, stores: { store } });
    await run.appendMetrics({ iteration: 1, global_step: 2 });
    return { run, store };
  }

  // A resumed run loaded it, trained a whole iteration, then failed on an unlink deep inside the old checkpoint.
  it('is refused when a run resumes, before an iteration is trained, naming it and what to do', async () => {
    const { run } = await savedRun();
    run.close();
    const readOnly = join(dir, 'checkpoint', 'stores');
    jest.spyOn(fs, 'accessSync').mockImplementation((path) => {
      if (String(path) === readOnly) throw denied('access', readOnly);
    });
    const resumed = await RunDirectory.openOrCreate(dir, INFO);
    const store = new JsonStatisticsStore<number>();
    await expect(loadStoresCheckpoint(resumed, { store })).rejects.toMatchObject({
      code: 'TRAINING_CHECKPOINT',
      message:
        `${readOnly} is not writable (EACCES: permission denied, access '${readOnly}'): a resumed run replaces its ` +
        `checkpoint after every iteration, so ${join(dir, 'checkpoint')} must be writable. Give them write access ` +
        '(chmod -R u+w), or copy the run somewhere writable and resume it there.',
    });
    // Nothing was cut back: the row of the iteration after the checkpoint is still there.
    expect((await resumed.readMetrics()).map((row) => row.iteration)).toEqual([0, 1]);
    resumed.close();
  });

  it('fails a save with an error naming the run and the fix, keeping the last whole checkpoint', async () => {
    const { run, store } = await savedRun();
    const previous = join(dir, 'checkpoint.previous');
    mkdirSync(join(previous, 'stores'), { recursive: true }); // a save killed before it removed the old one
    const realRm = fsPromises.rm;
    jest.spyOn(fsPromises, 'rm').mockImplementation(async (path, options) => {
      if (String(path) === previous) throw denied('unlink', join(previous, 'stores'));
      return realRm(path, options);
    });
    await expect(saveStoresCheckpoint(run, { iteration: 1, stores: { store } })).rejects.toMatchObject({
      code: 'TRAINING_CHECKPOINT',
      message: expect.stringMatching(
        /^replacing the checkpoint of .* by iteration 1's failed \(EACCES: .*\); the last whole checkpoint is kept: .* must be writable/,
      ),
    });
    expect(checkpointIteration()).toBe(0);
    expect(readdirSync(dir).filter((name) => name.startsWith('.checkpoint-tmp-'))).toEqual([]);
    run.close();
  });

  it('says a save whose old checkpoint could not be removed afterwards is saved, and what to fix', async () => {
    const { run, store } = await savedRun();
    const previous = join(dir, 'checkpoint.previous');
    const realRm = fsPromises.rm;
    let calls = 0;
    jest.spyOn(fsPromises, 'rm').mockImplementation(async (path, options) => {
      // The first removal of checkpoint.previous finds none; the one after the swap meets the read-only copy.
      if (String(path) === previous && ++calls === 2) throw denied('unlink', join(previous, 'checkpoint.json'));
      return realRm(path, options);
    });
    await expect(saveStoresCheckpoint(run, { iteration: 1, stores: { store } })).rejects.toMatchObject({
      code: 'TRAINING_CHECKPOINT',
      message: expect.stringMatching(
        /by iteration 1's failed \(EACCES: permission denied, unlink .*\); the checkpoint of iteration 1 is saved: .* must be writable/,
      ),
    });
    expect(checkpointIteration()).toBe(1);
    run.close();
  });
});
