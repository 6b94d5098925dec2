/**
 * Scores a run of the GPU kit's `learn.sh` (gpu-learning-run.ts) as the math table scores its CPU runs: the
 * run's final adapter and the warm start on the 200 test tasks, greedy (task by task, gained / lost and the sign
 * test) and sampled at temperature 1, on wasm here — so the GPU run sits in the table's own terms.
 *
 *   node benchmarks/learning/dist/score-gpu-run.js --adapter <run-dir>/checkpoint/adapter [--json <file>]
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXPERIMENTS } from './experiments';
import { gainedAndLost, SAMPLES_PER_TASK, scoreOnTestTasks, signTestP } from './test-scores';
import { flag } from './cli-flag';

async function main(): Promise<void> {
  const adapter = flag('adapter');
  if (!adapter) throw new Error('--adapter <run-dir>/checkpoint/adapter is required');
  const math = EXPERIMENTS.find((experiment) => experiment.name === 'math')!;
  const warmStart = join(__dirname, '..', 'models', 'math-warm-start');
  const start = await scoreOnTestTasks(math, warmStart);
  const end = await scoreOnTestTasks(math, warmStart, adapter);
  const startSampled = await scoreOnTestTasks(math, warmStart, null, SAMPLES_PER_TASK);
  const endSampled = await scoreOnTestTasks(math, warmStart, adapter, SAMPLES_PER_TASK);
  const { gained, lost } = gainedAndLost(start, end);
  const p = signTestP(gained, lost);
  console.log(
    `greedy ${start.successRate.toFixed(3)} → ${end.successRate.toFixed(3)}: ${gained} gained / ${lost} lost ` +
      `(sign test p = ${p.toFixed(3)}); sampled ${startSampled.successRate.toFixed(3)} → ` +
      `${endSampled.successRate.toFixed(3)} (${SAMPLES_PER_TASK} per task)`,
  );
  const out = flag('json');
  if (out) {
    const scores = { start, end, gained, lost, p, startSampled, endSampled };
    writeFileSync(out, `${JSON.stringify(scores, null, 2)}\n`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
