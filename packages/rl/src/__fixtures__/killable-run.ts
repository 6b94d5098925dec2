/**
 * A training process for the kill test: `node -r ./ts-register.js killable-run.ts <run dir> <iterations>
 * <kill at>` resumes the run if it has a checkpoint, trains to <iterations>, and SIGKILLs itself in
 * iteration <kill at> (after its metrics row, before its checkpoint; -1: never). It ends by printing the
 * iteration it started at and the adapter's final weights as JSON.
 */
import { loadTrainingCheckpoint } from '../training-checkpoint';
import { RunDirectory } from '../run-directory';
import {
  adapterWeights,
  freshLoopState,
  loopStateFromExtra,
  RUN_INFO,
  runIterations,
  tinySetup,
} from './tiny-training';

async function main(): Promise<void> {
  const [dir, iterations, killAt] = process.argv.slice(2);
  const run = await RunDirectory.openOrCreate(dir as string, RUN_INFO);
  const setup = tinySetup();
  const resumed = await loadTrainingCheckpoint(run, setup.model, setup.trainer);
  const start = resumed ? resumed.iteration + 1 : 0;
  await runIterations(
    run,
    setup,
    resumed ? loopStateFromExtra(resumed.extra) : freshLoopState(),
    start,
    Number(iterations),
    {
      afterMetrics: (iteration) => {
        if (iteration === Number(killAt)) process.kill(process.pid, 'SIGKILL');
      },
    },
  );
  const weights = Object.fromEntries(
    [...(await adapterWeights(setup.model))].map(([name, tensor]) => [name, Array.from(tensor.data)]),
  );
  process.stdout.write(`${JSON.stringify({ start, weights })}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
