import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JsonStatisticsStore } from './json-statistics-store';
import { RunDirectory } from './run-directory';
import { loadStoresCheckpoint, saveStoresCheckpoint } from './training-checkpoint';
import { readTrajectories } from './trajectory';
import { fixtureTrajectory } from './__fixtures__/trajectory-fixture';

const INFO = { algorithm: 'alphazero', envId: 'turngym/example-v1', seed: 1, args: {} };

function rollout(iteration: number) {
  return fixtureTrajectory({
    episodeId: `it${iteration}`,
    envId: INFO.envId,
    seed: iteration,
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

/** A trainer's iterations: metrics, rollouts, then the checkpoint, as every trainer writes them. */
async function iterate(run: RunDirectory, store: JsonStatisticsStore<number>, from: number, to: number) {
  for (let iteration = from; iteration < to; iteration++) {
    store.set('steps', iteration + 1);
    await run.appendMetrics({ iteration, global_step: iteration + 1 });
    await run.appendTrajectories([rollout(iteration)]);
    await saveStoresCheckpoint(run, { iteration, stores: { store } });
  }
}

const episodes = async (run: RunDirectory) => (await readTrajectories(run.trajectoriesPath)).map((t) => t.episodeId);

// trajectories.jsonl is the log of rollouts; training never reads it back. Deleted (to free space) or lost, it made
// the run unresumable ("has 0 bytes but the checkpoint … counts …: rows it holds are gone") with no way on.
describe('resuming a run whose trajectories.jsonl is gone', () => {
  let dir: string;
  beforeEach(() => (dir = join(mkdtempSync(join(tmpdir(), 'turngym-lost-trajectories-')), 'run')));
  afterEach(() => rmSync(join(dir, '..'), { recursive: true, force: true }));

  it('resumes with a fresh file, warns, notes it in the run, and keeps metrics and checkpoint', async () => {
    const first = await RunDirectory.create(dir, INFO);
    await iterate(first, new JsonStatisticsStore<number>(), 0, 3);
    first.close();
    rmSync(join(dir, 'trajectories.jsonl'));

    const warnings: string[] = [];
    const warn = jest.spyOn(process, 'emitWarning').mockImplementation((message, options) => {
      warnings.push(`${(options as { code: string }).code}: ${String(message)}`);
    });
    const run = await RunDirectory.openOrCreate(dir, INFO);
    const store = new JsonStatisticsStore<number>();
    try {
      expect((await loadStoresCheckpoint(run, { store }))?.iteration).toBe(2);
    } finally {
      warn.mockRestore();
    }
    expect(store.get('steps')).toBe(3);
    expect((await run.readMetrics()).map((row) => row.iteration)).toEqual([0, 1, 2]);
    expect(warnings).toEqual([
      expect.stringMatching(/^TURNGYM_TRAJECTORIES_RESTARTED: .*starts afresh at iteration 3/),
    ]);
    expect(await run.readNotes()).toEqual([
      expect.objectContaining({
        iteration: 3,
        note: expect.stringContaining('the rollouts of iterations 0–2 are not in it; metrics and checkpoint are whole'),
      }),
    ]);

    await iterate(run, store, 3, 4);
    expect(await episodes(run)).toEqual(['it3']);
    // Killed after the next iteration's rollouts, before its checkpoint: the checkpoint counts the new file, so the
    // resume cuts it back to what that checkpoint saw, not to the old file's length.
    await run.appendMetrics({ iteration: 4, global_step: 5 });
    await run.appendTrajectories([rollout(4), rollout(4)]);
    run.close();
    const again = await RunDirectory.openOrCreate(dir, INFO);
    expect((await loadStoresCheckpoint(again, { store: new JsonStatisticsStore<number>() }))?.iteration).toBe(3);
    expect(await episodes(again)).toEqual(['it3']);
    expect(await again.readNotes()).toHaveLength(1);
    again.close();
  });

  it('refuses a file cut short, saying how to go on without it; moved aside, the run resumes', async () => {
    const first = await RunDirectory.create(dir, INFO);
    await iterate(first, new JsonStatisticsStore<number>(), 0, 2);
    first.close();
    const path = join(dir, 'trajectories.jsonl');
    truncateSync(path, readFileSync(path, 'utf8').indexOf('\n') + 1); // keeps iteration 0's line

    const run = await RunDirectory.openOrCreate(dir, INFO);
    await expect(loadStoresCheckpoint(run, { store: new JsonStatisticsStore<number>() })).rejects.toMatchObject({
      code: 'RUN_DIRECTORY',
      message: expect.stringContaining(
        `to resume without the rows it lost, move it aside (e.g. to trajectories.jsonl.partial) and run again`,
      ),
    });
    renameSync(path, `${path}.partial`);
    expect((await loadStoresCheckpoint(run, { store: new JsonStatisticsStore<number>() }))?.iteration).toBe(1);
    expect(existsSync(`${path}.partial`)).toBe(true);
    expect(await run.readNotes()).toHaveLength(1);
    run.close();
  });
});
