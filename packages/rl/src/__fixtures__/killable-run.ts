/**
 * A training process for the kill test: `node -r ./ts-register.js killable-run.ts <run dir> <iterations>
 * <kill at> [<where>]` resumes the run if it has a checkpoint, trains to <iterations>, and SIGKILLs itself
 * in iteration <kill at> (-1: never). <where> is `metrics` (the default: after the iteration's metrics row,
 * before its checkpoint) or `save` (an attached run — a second adapter with its own Adam, a statistics
 * store and an events file — killed inside the save, after every snapshot is written and before the
 * manifest). It ends by printing the iteration it started at, the adapters' final weights, and (attached)
 * the statistics and the events file, as JSON.
 */
import { readFileSync } from 'node:fs';
import { loadTrainingCheckpoint } from '../training-checkpoint';
import { RunDirectory } from '../run-directory';
import {
  adapterWeights,
  attachedCheckpoint,
  attachedSetup,
  freshLoopState,
  loopStateFromExtra,
  RUN_INFO,
  runIterations,
  tinySetup,
} from './tiny-training';

async function main(): Promise<void> {
  const [dir, iterations, killAt, where = 'metrics'] = process.argv.slice(2);
  const run = await RunDirectory.openOrCreate(dir as string, RUN_INFO);
  const setup = tinySetup();
  const attached = where === 'save' ? attachedSetup(setup, run.path) : undefined;
  const resumed = await loadTrainingCheckpoint(
    run,
    setup.model,
    setup.trainer,
    attached ? attachedCheckpoint(attached) : {},
  );
  const start = resumed ? resumed.iteration + 1 : 0;
  const die = (iteration: number): void => {
    if (iteration === Number(killAt)) process.kill(process.pid, 'SIGKILL');
  };
  await runIterations(
    run,
    setup,
    resumed ? loopStateFromExtra(resumed.extra) : freshLoopState(),
    start,
    Number(iterations),
    where === 'save' ? { duringSave: die } : { afterMetrics: die },
    attached,
  );
  const weights = Object.fromEntries(
    [...(await adapterWeights(setup.model))].map(([name, tensor]) => [name, Array.from(tensor.data)]),
  );
  const result: Record<string, unknown> = { start, weights };
  if (attached) {
    result.critic = Object.fromEntries(
      [...(await setup.model.adapter('critic').toTensors())].map(([name, tensor]) => [name, Array.from(tensor.data)]),
    );
    result.statistics = attached.statistics.toJSON();
    result.events = readFileSync(attached.eventsPath, 'utf8');
  }
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
