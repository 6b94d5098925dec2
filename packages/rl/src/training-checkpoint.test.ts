import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CheckpointError, Trainer, type NamedTensors, type TrainerState } from '@turngym/lm';
import { TrainingCheckpointError } from './rl-errors';
import { RunDirectory, type MetricsRow } from './run-directory';
import { JsonStatisticsStore } from './json-statistics-store';
import {
  loadStoresCheckpoint,
  loadTrainingCheckpoint,
  saveStoresCheckpoint,
  saveTrainingCheckpoint,
} from './training-checkpoint';
import { readTrajectories } from './trajectory';
import {
  adapterWeights,
  attachedCheckpoint,
  attachedSetup,
  CRITIC_OPTIONS,
  freshLoopState,
  loopStateFromExtra,
  RUN_INFO,
  runIterations,
  tinySetup,
  TRAINER_OPTIONS,
  type TinySetup,
} from './__fixtures__/tiny-training';

class Killed extends Error {}

const kill = (at: number) => (iteration: number) => {
  if (iteration === at) throw new Killed(`killed in iteration ${iteration}`);
};

describe('training checkpoints', () => {
  let dir: string;
  const setups: TinySetup[] = [];
  const setup = (): TinySetup => {
    const made = tinySetup();
    setups.push(made);
    return made;
  };

  beforeEach(() => {
    dir = join(mkdtempSync(join(tmpdir(), 'turngym-resume-')), 'run');
  });
  afterEach(() => {
    for (const made of setups.splice(0)) {
      made.trainer.dispose();
      made.model.dispose();
    }
    rmSync(join(dir, '..'), { recursive: true, force: true });
  });

  interface KilledRun {
    readonly weights: NamedTensors;
    readonly trainerState: TrainerState;
    readonly killedRow: MetricsRow;
  }

  /** Iterations 0–4 checkpointed; iteration 5 killed after its metrics row, before its checkpoint. */
  async function killedRun(tornTail: boolean): Promise<KilledRun> {
    const run = await RunDirectory.create(dir, RUN_INFO);
    const first = setup();
    const state = freshLoopState();
    await runIterations(run, first, state, 0, 5);
    const weights = await adapterWeights(first.model);
    const trainerState = await first.trainer.exportState();
    await expect(runIterations(run, first, state, 5, 6, { afterMetrics: kill(5) })).rejects.toThrow(Killed);
    if (tornTail) {
      // The kill landed in the middle of the next writes.
      appendFileSync(run.metricsPath, '{"iteration":6,"global_st');
      appendFileSync(run.trajectoriesPath, '{"schema":"turngym.traj');
    }
    const rows = await run.readMetrics();
    expect(rows.map((row) => row.iteration)).toEqual([0, 1, 2, 3, 4, 5]);
    run.close(); // the killed process's end: its run is no longer open
    return { weights, trainerState, killedRow: rows[5]! };
  }

  it.each([
    ['a clean kill', false],
    ['a kill that tore the last lines', true],
  ])(
    'after %s, a resumed run continues at the next iteration with one metrics row per iteration',
    async (_, tornTail) => {
      const killed = await killedRun(tornTail);

      const run = await RunDirectory.openOrCreate(dir, RUN_INFO);
      const second = setup();
      const resumed = await loadTrainingCheckpoint(run, second.model, second.trainer);
      expect(resumed?.iteration).toBe(4);
      expect(await adapterWeights(second.model)).toEqual(killed.weights);
      expect(await second.trainer.exportState()).toEqual(killed.trainerState);
      expect(second.trainer.stepCount).toBe(5);
      expect((await run.readMetrics()).map((row) => row.iteration)).toEqual([0, 1, 2, 3, 4]);
      expect(readFileSync(run.metricsPath, 'utf8').endsWith('\n')).toBe(true);
      expect((await readTrajectories(run.trajectoriesPath)).map((t) => t.episodeId)).toEqual(
        [0, 1, 2, 3, 4].flatMap((iteration) => [`${iteration}-0`, `${iteration}-1`]),
      );

      await runIterations(run, second, loopStateFromExtra(resumed!.extra), 5, 7);
      const rows = await run.readMetrics();
      expect(rows.map((row) => row.iteration)).toEqual([0, 1, 2, 3, 4, 5, 6]);
      // Weights, Adam state and the batch RNG all came back: iteration 5 is the one the kill interrupted.
      expect(rows[5]).toEqual(killed.killedRow);
    },
  );

  it('a kill in the middle of a save falls back to the previous checkpoint, and the next save cleans up', async () => {
    const run = await RunDirectory.create(dir, RUN_INFO);
    const first = setup();
    const state = freshLoopState();
    await expect(runIterations(run, first, state, 0, 5, { afterMetrics: kill(4) })).rejects.toThrow(Killed);
    // The save of iteration 4 was killed between its two renames: a half-written temporary and the
    // previous checkpoint moved aside, no `checkpoint/`.
    renameSync(run.checkpointPath, join(dir, 'checkpoint.previous'));
    mkdirSync(join(dir, '.checkpoint-tmp-killed', 'adapter'), { recursive: true });
    writeFileSync(join(dir, '.checkpoint-tmp-killed', 'adapter', 'adapter_model.safetensors'), 'half');

    run.close(); // the killed process's end
    const resumedRun = await RunDirectory.openOrCreate(dir, RUN_INFO);
    const second = setup();
    const resumed = await loadTrainingCheckpoint(resumedRun, second.model, second.trainer);
    expect(resumed?.iteration).toBe(3);
    expect((await resumedRun.readMetrics()).map((row) => row.iteration)).toEqual([0, 1, 2, 3]);
    await runIterations(resumedRun, second, loopStateFromExtra(resumed!.extra), 4, 5);
    // The run's files and the lock of the process writing it (`.lock`, removed when it exits), no temporaries.
    expect(readdirSync(dir).sort()).toEqual(['.lock', 'checkpoint', 'metrics.jsonl', 'run.json', 'trajectories.jsonl']);
    expect(JSON.parse(readFileSync(join(run.checkpointPath, 'checkpoint.json'), 'utf8')).iteration).toBe(4);
  });

  it('a run killed before its first checkpoint starts over with empty files', async () => {
    const run = await RunDirectory.create(dir, RUN_INFO);
    await expect(runIterations(run, setup(), freshLoopState(), 0, 3, { afterMetrics: kill(0) })).rejects.toThrow(
      Killed,
    );
    expect(await run.readMetrics()).toHaveLength(1);
    run.close();
    const resumedRun = await RunDirectory.openOrCreate(dir, RUN_INFO);
    const second = setup();
    expect(await loadTrainingCheckpoint(resumedRun, second.model, second.trainer)).toBeNull();
    expect(await resumedRun.readMetrics()).toEqual([]);
    expect(readFileSync(resumedRun.trajectoriesPath, 'utf8')).toBe('');
    expect(resumedRun.lastIteration).toBeNull();
  });

  it('refuses a checkpoint directory without its manifest instead of starting over', async () => {
    const run = await RunDirectory.create(dir, RUN_INFO);
    await runIterations(run, setup(), freshLoopState(), 0, 1);
    rmSync(join(run.checkpointPath, 'checkpoint.json'));
    const second = setup();
    await expect(loadTrainingCheckpoint(run, second.model, second.trainer)).rejects.toThrow(/has no checkpoint\.json/);
    expect(await run.readMetrics()).toHaveLength(1);
  });

  it('refuses to start over when the metrics record later iterations but the checkpoint is gone', async () => {
    const run = await RunDirectory.create(dir, RUN_INFO);
    await runIterations(run, setup(), freshLoopState(), 0, 3);
    rmSync(run.checkpointPath, { recursive: true });
    const second = setup();
    await expect(loadTrainingCheckpoint(run, second.model, second.trainer)).rejects.toThrow(
      /records iterations 0–2, but the run has no checkpoint/,
    );
    expect(await run.readMetrics()).toHaveLength(3);
  });

  it('refuses weights that are not finite, naming the file and the tensor', async () => {
    const run = await RunDirectory.create(dir, RUN_INFO);
    await runIterations(run, setup(), freshLoopState(), 0, 1);
    const weights = join(run.checkpointPath, 'adapter', 'adapter_model.safetensors');
    const bytes = readFileSync(weights);
    // The header's length, then the header, then the data: fill the data with 0xFF (NaN in float32).
    const dataStart = 8 + Number(bytes.readBigUInt64LE(0));
    bytes.fill(0xff, dataStart);
    writeFileSync(weights, bytes);
    const second = setup();
    await expect(loadTrainingCheckpoint(run, second.model, second.trainer)).rejects.toThrow(
      /adapter_model\.safetensors: tensor ".+" holds NaN at index 0/,
    );
  });

  it('refuses a checkpoint for a trainer that trains something else', async () => {
    const run = await RunDirectory.create(dir, RUN_INFO);
    await runIterations(run, setup(), freshLoopState(), 0, 1);
    const other = setup();
    other.model.addValueHead();
    const critic = new Trainer(other.model, { ...TRAINER_OPTIONS, valueHead: true });
    try {
      await expect(loadTrainingCheckpoint(run, other.model, critic)).rejects.toThrow(CheckpointError);
      await expect(loadTrainingCheckpoint(run, other.model, critic)).rejects.toThrow(/"valueHead":false/);
      // Nothing was cut back: a failed resume leaves the run as it found it.
      expect(await run.readMetrics()).toHaveLength(1);
    } finally {
      critic.dispose();
    }
  });

  it('refuses to checkpoint behind the metrics, or state JSON cannot hold', async () => {
    const run = await RunDirectory.create(dir, RUN_INFO);
    const first = setup();
    await runIterations(run, first, freshLoopState(), 0, 2);
    await expect(saveTrainingCheckpoint(run, { iteration: 0, trainer: first.trainer })).rejects.toThrow(
      /already has iteration 1/,
    );
    await expect(
      saveTrainingCheckpoint(run, { iteration: 1, trainer: first.trainer, extra: { counters: { nodes: NaN } } }),
    ).rejects.toThrow(/extra\.counters\.nodes is NaN/);
    await expect(
      saveTrainingCheckpoint(run, { iteration: 1, trainer: first.trainer, adapter: 'critic' }),
    ).rejects.toThrow(/adapter "critic"/);
    expect(existsSync(join(dir, 'checkpoint.previous'))).toBe(false);
  });

  describe('with extra trainers and stores', () => {
    const attachedFor = (made: TinySetup) => {
      const attached = attachedSetup(made, dir);
      setups.push({ model: made.model, trainer: attached.critic });
      return attached;
    };

    it('saves them beside the policy and restores each, from a checkpoint taken before later iterations changed them', async () => {
      const run = await RunDirectory.create(dir, RUN_INFO);
      const first = setup();
      const attached = attachedFor(first);
      const state = freshLoopState();
      await runIterations(run, first, state, 0, 3, {}, attached);
      const critic = await first.model.adapter('critic').toTensors();
      const criticState = await attached.critic.exportState();
      const statistics = attached.statistics.toJSON();
      const events = readFileSync(attached.eventsPath, 'utf8');
      const manifest = JSON.parse(readFileSync(join(run.checkpointPath, 'checkpoint.json'), 'utf8'));
      expect(manifest.trainers).toEqual({ critic: { adapter: 'critic', valueHead: false, base: false } });
      expect(manifest.stores).toEqual(['events', 'statistics']);
      await expect(runIterations(run, first, state, 3, 4, { afterMetrics: kill(3) }, attached)).rejects.toThrow(Killed);
      expect(readFileSync(attached.eventsPath, 'utf8')).not.toBe(events);

      run.close(); // the killed process's end
      const second = setup();
      const restored = attachedFor(second);
      const resumed = await loadTrainingCheckpoint(
        await RunDirectory.openOrCreate(dir, RUN_INFO),
        second.model,
        second.trainer,
        attachedCheckpoint(restored),
      );
      expect(resumed?.iteration).toBe(2);
      expect(await second.model.adapter('critic').toTensors()).toEqual(critic);
      expect(await restored.critic.exportState()).toEqual(criticState);
      expect(restored.critic.stepCount).toBe(3);
      expect(restored.statistics.toJSON()).toEqual(statistics);
      expect(readFileSync(restored.eventsPath, 'utf8')).toBe(events);
    });

    it('a run killed before its first checkpoint resets its stores with its files', async () => {
      const run = await RunDirectory.create(dir, RUN_INFO);
      const first = setup();
      const attached = attachedFor(first);
      await expect(
        runIterations(run, first, freshLoopState(), 0, 2, { afterMetrics: kill(0) }, attached),
      ).rejects.toThrow(Killed);
      expect(existsSync(attached.eventsPath)).toBe(true);
      const second = setup();
      const restored = attachedFor(second);
      restored.statistics.set('stale', { visits: 1, lossSum: 0 });
      expect(await loadTrainingCheckpoint(run, second.model, second.trainer, attachedCheckpoint(restored))).toBeNull();
      expect(existsSync(restored.eventsPath)).toBe(false);
      expect(restored.statistics.size).toBe(0);
    });

    it('refuses a resume given other trainers or stores than the checkpoint holds, before loading anything', async () => {
      const run = await RunDirectory.create(dir, RUN_INFO);
      const first = setup();
      await runIterations(run, first, freshLoopState(), 0, 1, {}, attachedFor(first));
      const second = setup();
      const restored = attachedFor(second);
      const { trainers, stores } = attachedCheckpoint(restored);
      await expect(loadTrainingCheckpoint(run, second.model, second.trainer)).rejects.toThrow(TrainingCheckpointError);
      await expect(loadTrainingCheckpoint(run, second.model, second.trainer, { trainers })).rejects.toThrow(
        /holds stores \["events","statistics"\], this resume gives \[\]/,
      );
      await expect(
        loadTrainingCheckpoint(run, second.model, second.trainer, { trainers: { other: restored.critic }, stores }),
      ).rejects.toThrow(/holds trainers/);
      expect(await restored.critic.exportState()).not.toEqual(await first.trainer.exportState());
      expect(restored.critic.stepCount).toBe(0);
      expect(await run.readMetrics()).toHaveLength(1);
    });

    it('a single-trainer checkpoint keeps its layout and refuses extra trainers or stores on resume', async () => {
      const run = await RunDirectory.create(dir, RUN_INFO);
      await runIterations(run, setup(), freshLoopState(), 0, 1);
      const manifest = JSON.parse(readFileSync(join(run.checkpointPath, 'checkpoint.json'), 'utf8'));
      expect(Object.keys(manifest).sort()).toEqual(['extra', 'format', 'iteration', 'runFiles', 'savedAt', 'trained']);
      expect(readdirSync(run.checkpointPath).sort()).toEqual(['adapter', 'checkpoint.json', 'trainer']);
      const second = setup();
      const restored = attachedFor(second);
      await expect(
        loadTrainingCheckpoint(run, second.model, second.trainer, attachedCheckpoint(restored)),
      ).rejects.toThrow(/holds trainers \[\]/);
    });

    it('refuses two trainers of the same weights and names that are not plain file names', async () => {
      const run = await RunDirectory.create(dir, RUN_INFO);
      const first = setup();
      const attached = attachedFor(first);
      await runIterations(run, first, freshLoopState(), 0, 1, {}, attached);
      const twin = new Trainer(first.model, CRITIC_OPTIONS);
      setups.push({ model: first.model, trainer: twin });
      const save = (options: object) =>
        saveTrainingCheckpoint(run, { iteration: 0, trainer: first.trainer, ...options });
      await expect(save({ trainers: { critic: attached.critic, twin } })).rejects.toThrow(
        /adapter "critic" is trained by both trainers\.critic and trainers\.twin/,
      );
      const again = new Trainer(first.model, TRAINER_OPTIONS);
      setups.push({ model: first.model, trainer: again });
      await expect(save({ trainers: { again } })).rejects.toThrow(
        /adapter "policy" is trained by both the policy trainer and trainers\.again/,
      );
      await expect(save({ stores: { '../escape': attached.events } })).rejects.toThrow(TrainingCheckpointError);
      await expect(save({ stores: { '../escape': attached.events } })).rejects.toThrow(/not a plain file name/);
    });
  });

  describe('with stores alone (a trainer with no language model)', () => {
    /** A stand-in for a network + optimiser and a replay buffer: what AlphaZero saves. */
    const storesOf = () => ({
      network: new JsonStatisticsStore<number>(),
      replay: new JsonStatisticsStore<number>(),
    });
    type Stores = ReturnType<typeof storesOf>;
    const iterate = async (run: RunDirectory, stores: Stores, from: number, to: number, save = true) => {
      for (let iteration = from; iteration < to; iteration++) {
        stores.network.set('steps', iteration + 1);
        stores.replay.set(`sample-${iteration}`, iteration * 10);
        await run.appendMetrics({ iteration, global_step: iteration * 4 });
        if (save) await saveStoresCheckpoint(run, { iteration, stores, extra: { rng: [iteration, 7] } });
      }
    };

    it('saves and resumes through the same protocol, cutting the metrics back to the checkpoint', async () => {
      const run = await RunDirectory.create(dir, RUN_INFO);
      const first = storesOf();
      await iterate(run, first, 0, 2);
      const saved = { network: first.network.toJSON(), replay: first.replay.toJSON() };
      // Iteration 2 is killed after its metrics and before its checkpoint.
      await iterate(run, first, 2, 3, false);
      const manifest = JSON.parse(readFileSync(join(run.checkpointPath, 'checkpoint.json'), 'utf8'));
      expect(manifest).toMatchObject({ format: 'turngym.training-checkpoint/v1', iteration: 1, trained: null });
      expect(manifest.stores).toEqual(['network', 'replay']);
      expect(readdirSync(run.checkpointPath).sort()).toEqual(['checkpoint.json', 'stores']);

      run.close(); // the killed process's end
      const second = storesOf();
      const resumed = await loadStoresCheckpoint(await RunDirectory.openOrCreate(dir, RUN_INFO), second);
      expect(resumed).toEqual({ iteration: 1, extra: { rng: [1, 7] } });
      expect({ network: second.network.toJSON(), replay: second.replay.toJSON() }).toEqual(saved);
      expect((await (await RunDirectory.open(dir)).readMetrics()).map((row) => row.iteration)).toEqual([0, 1]);
    });

    it('a save that fails on the file system (a full disk) leaves no part-written checkpoint and names the run; the last whole one resumes', async () => {
      const run = await RunDirectory.create(dir, RUN_INFO);
      const stores = storesOf();
      await iterate(run, stores, 0, 1);
      const temporaries = () => readdirSync(dir).filter((name) => name.startsWith('.checkpoint-tmp-'));
      // What Node throws when the disk fills up in a write: no path, no run, no iteration.
      const enospc = Object.assign(new Error('ENOSPC: no space left on device, write'), {
        code: 'ENOSPC',
        errno: -28,
        syscall: 'write',
      });
      const full = {
        save: async (to: string) => {
          writeFileSync(join(to, 'part'), 'x'.repeat(100_000));
          throw enospc;
        },
        load: async () => {},
        reset: async () => {},
      };
      await run.appendMetrics({ iteration: 1, global_step: 4 });
      const failed = await saveStoresCheckpoint(run, { iteration: 1, stores: { ...stores, full } }).catch(
        (error: unknown) => error,
      );
      expect(failed).toBeInstanceOf(TrainingCheckpointError);
      expect((failed as Error).message).toContain(`saving the checkpoint of iteration 1 in ${dir} failed (ENOSPC`);
      expect((failed as Error).cause).toBe(enospc);
      expect(temporaries()).toEqual([]);
      // A store's own error stays its own; its part-written checkpoint goes too.
      const broken = { ...full, save: async () => Promise.reject(new RangeError('a store bug')) };
      await expect(saveStoresCheckpoint(run, { iteration: 1, stores: { ...stores, broken } })).rejects.toThrow(
        new RangeError('a store bug'),
      );
      expect(temporaries()).toEqual([]);
      const resumed = await loadStoresCheckpoint(run, storesOf());
      expect(resumed?.iteration).toBe(0);
      expect((await run.readMetrics()).map((row) => row.iteration)).toEqual([0]);
    });

    it('a resume removes what a killed save left (a part-written temporary) at once, not at the next save', async () => {
      const run = await RunDirectory.create(dir, RUN_INFO);
      await iterate(run, storesOf(), 0, 1);
      mkdirSync(join(dir, '.checkpoint-tmp-killed', 'stores'), { recursive: true });
      writeFileSync(join(dir, '.checkpoint-tmp-killed', 'stores', 'big'), 'x'.repeat(100_000));
      expect((await loadStoresCheckpoint(run, storesOf()))?.iteration).toBe(0);
      expect(existsSync(join(dir, '.checkpoint-tmp-killed'))).toBe(false);
    });

    it('a first save that fails says the run has no checkpoint to keep, and EFBIG names the file-size limit, not disk space', async () => {
      const run = await RunDirectory.create(dir, RUN_INFO);
      // What Node throws when a write passes `ulimit -f` (or the file system's largest file).
      const efbig = Object.assign(new Error('EFBIG: file too large, write'), { code: 'EFBIG', syscall: 'write' });
      const tooLarge = { save: async () => Promise.reject(efbig), load: async () => {}, reset: async () => {} };
      await run.appendMetrics({ iteration: 0, global_step: 4 });
      const first = await saveStoresCheckpoint(run, { iteration: 0, stores: { tooLarge } }).catch(
        (error: Error) => error,
      );
      expect(first).toBeInstanceOf(TrainingCheckpointError);
      expect(first.message).toContain('the run has no checkpoint yet (this was its first)');
      expect(first.message).toContain('run the same command to start the run over');
      expect(first.message).toContain('`ulimit -f`');
      expect(first.message).not.toMatch(/last whole checkpoint is kept|free disk space/);
      // With a checkpoint saved, a failed save keeps it, and a full disk still says to free space.
      await saveStoresCheckpoint(run, { iteration: 0, stores: { tooLarge: storesOf().network } });
      await run.appendMetrics({ iteration: 1, global_step: 8 });
      const enospc = Object.assign(new Error('ENOSPC: no space left on device, write'), {
        code: 'ENOSPC',
        syscall: 'write',
      });
      const full = { ...tooLarge, save: async () => Promise.reject(enospc) };
      const later = await saveStoresCheckpoint(run, { iteration: 1, stores: { tooLarge: full } }).catch(
        (error: Error) => error,
      );
      expect(later.message).toContain('the last whole checkpoint is kept: fix the cause (free disk space)');
      expect(later.message).toContain('run the same command to resume from it');
    });

    it('a resume removes the previous checkpoint a save killed after its swap left beside a whole one', async () => {
      const run = await RunDirectory.create(dir, RUN_INFO);
      const stores = storesOf();
      await iterate(run, stores, 0, 2);
      // Killed after rename(temporary, checkpoint), before rm(checkpoint.previous): iteration 0's checkpoint stays.
      const previous = join(dir, 'checkpoint.previous');
      mkdirSync(previous);
      writeFileSync(join(previous, 'checkpoint.json'), readFileSync(join(run.checkpointPath, 'checkpoint.json')));
      writeFileSync(join(previous, 'big'), 'x'.repeat(100_000));
      const resumed = storesOf();
      expect((await loadStoresCheckpoint(run, resumed))?.iteration).toBe(1);
      expect(resumed.network.toJSON()).toEqual(stores.network.toJSON());
      expect(existsSync(previous)).toBe(false);
      expect(existsSync(join(run.checkpointPath, 'checkpoint.json'))).toBe(true);
    });

    it('a run with no checkpoint starts over: stores reset, files emptied', async () => {
      const run = await RunDirectory.create(dir, RUN_INFO);
      await iterate(run, storesOf(), 0, 1, false);
      const stores = storesOf();
      stores.replay.set('stale', 1);
      expect(await loadStoresCheckpoint(run, stores)).toBeNull();
      expect(stores.replay.size).toBe(0);
      expect(await run.readMetrics()).toEqual([]);
    });

    it("refuses other stores, and each loader refuses the other's checkpoint, before loading anything", async () => {
      const run = await RunDirectory.create(dir, RUN_INFO);
      await iterate(run, storesOf(), 0, 1);
      const { network } = storesOf();
      await expect(loadStoresCheckpoint(run, { network })).rejects.toThrow(
        /holds stores \["network","replay"\], this resume gives \["network"\]/,
      );
      const lm = setup();
      await expect(loadTrainingCheckpoint(run, lm.model, lm.trainer)).rejects.toThrow(TrainingCheckpointError);
      await expect(loadTrainingCheckpoint(run, lm.model, lm.trainer)).rejects.toThrow(/loadStoresCheckpoint/);
      expect(lm.trainer.stepCount).toBe(0);
      expect(await run.readMetrics()).toHaveLength(1);

      const lmDir = join(dir, '..', 'lm-run');
      const lmRun = await RunDirectory.create(lmDir, RUN_INFO);
      await runIterations(lmRun, setup(), freshLoopState(), 0, 1);
      await expect(loadStoresCheckpoint(lmRun, storesOf())).rejects.toThrow(/loadTrainingCheckpoint/);
      await expect(saveStoresCheckpoint(lmRun, { iteration: -1, stores: {} })).rejects.toThrow(
        /saveStoresCheckpoint: iteration must be a non-negative integer/,
      );
    });
  });
});
