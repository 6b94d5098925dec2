#!/usr/bin/env node
/**
 * Runs the learning experiments (see experiments.ts) through the `turngym train` CLI, a process per run,
 * `--jobs` at a time (one per core by default): first each experiment's SFT warm start, then its RL runs.
 * A finished run (its last metrics row has an evaluation at the token budget) is skipped, and a stopped one
 * resumes from its checkpoint, so the script can be re-run after an interruption.
 *
 * A run at a larger budget continues a copy of the same algorithm and seed's run at the next smaller one:
 * nothing a run does depends on its budget (constant step size; the last iteration's extra evaluation
 * changes no state; resuming restores adapter, Adam and RNG), so the copy ends where a fresh run would,
 * for the cost of the difference.
 *
 *   node benchmarks/learning/dist/run-learning.js [--root runs] [--only math] [--jobs 2]
 */
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { readMetrics } from '@turngym/report';
import { EXPERIMENTS, runSpecs, type Experiment, type RunSpec } from './experiments';
import {
  cachedScore,
  finalSampledFile,
  finalScoreFile,
  SAMPLES_PER_TASK,
  startSampledFile,
  startScoreFile,
} from './test-scores';
import { flag } from './cli-flag';

const CLI = join(__dirname, '..', '..', '..', 'packages', 'cli', 'dist', 'bin.js');

function sets(args: Record<string, unknown>): string[] {
  return Object.entries(args).flatMap(([key, value]) => [
    '--set',
    `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`,
  ]);
}

function train(args: string[], log: string): Promise<void> {
  return new Promise((resolve, reject) => {
    process.stderr.write(`▶ turngym train ${args.slice(0, 3).join(' ')} … (log: ${log})\n`);
    const child = spawn(process.execPath, [CLI, 'train', ...args, '--quiet', '--json'], { stdio: 'pipe' });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      writeFileSync(log, output);
      if (code === 0) resolve();
      else reject(new Error(`turngym train ${args.slice(0, 3).join(' ')} exited with ${code}; see ${log}`));
    });
  });
}

function sftDir(root: string, experiment: Experiment, stage = experiment.sft.length - 1): string {
  return join(root, experiment.name, stage === experiment.sft.length - 1 ? 'sft' : `sft-${stage + 1}`);
}

/** The final warm-start checkpoint of the experiment named `name` (a stage's `from`). */
function warmStartOf(root: string, name: string): string {
  const experiment = EXPERIMENTS.find((other) => other.name === name);
  if (!experiment) throw new Error(`no experiment named ${name} to start from`);
  return sftDir(root, experiment);
}

/** The warm start's stages in turn, each from the last one's checkpoint; a stage already saved is kept. */
async function warmStart(root: string, experiment: Experiment): Promise<void> {
  for (let stage = 0; stage < experiment.sft.length; stage++) {
    const out = sftDir(root, experiment, stage);
    if (existsSync(join(out, 'model.safetensors')) && existsSync(`${out}.done`)) continue;
    const { seed = 1, from, ...args } = experiment.sft[stage]!;
    // `from: '<experiment>'` starts from that experiment's warm start under the same root.
    const checkpoint =
      typeof from === 'string' ? warmStartOf(root, from) : stage > 0 ? sftDir(root, experiment, stage - 1) : undefined;
    await train(
      [
        'sft',
        '--env',
        experiment.envId,
        '--options',
        JSON.stringify(experiment.envOptions),
        '--out',
        out,
        '--seed',
        String(seed),
        '--backend',
        'wasm',
        ...sets({
          ...(checkpoint ? { checkpoint } : {}),
          ...args,
          instructions: false,
        }),
      ],
      `${out}.log`,
    );
    // The checkpoint is rewritten after every epoch: only this marker says the stage ran to its end.
    writeFileSync(`${out}.done`, '');
  }
}

/** The run's last metrics line (a line cut short by a killed run left out), if it logged any. */
async function lastRow(spec: RunSpec): Promise<Readonly<Record<string, number>> | undefined> {
  const metrics = join(spec.dir, 'metrics.jsonl');
  return existsSync(metrics) ? (await readMetrics(metrics)).at(-1)?.values : undefined;
}

/** Whether a run whose last metrics line is `last` reached its budget and evaluated its final policy. */
function finished(
  spec: RunSpec,
  last: Readonly<Record<string, number>> | undefined,
): last is Readonly<Record<string, number>> {
  return last !== undefined && last['budget/generated_tokens']! >= spec.budget && 'eval/success_rate' in last;
}

async function rlRun(root: string, spec: RunSpec, shorter?: RunSpec): Promise<void> {
  if (finished(spec, await lastRow(spec))) return;
  if (shorter && !existsSync(spec.dir) && finished(shorter, await lastRow(shorter))) {
    cpSync(shorter.dir, spec.dir, { recursive: true });
  }
  const { experiment } = spec;
  await train(
    [
      spec.algorithm,
      '--env',
      experiment.envId,
      '--options',
      JSON.stringify(experiment.envOptions),
      '--checkpoint',
      sftDir(root, experiment),
      '--run-dir',
      spec.dir,
      '--seed',
      String(spec.seed),
      '--token-budget',
      String(spec.budget),
      ...sets({ ...experiment.rl, ...(spec.algorithm === 'grpo' ? experiment.grpo : experiment.treeGrpo) }),
    ],
    `${spec.dir}.log`,
  );
}

async function pool<T>(items: readonly T[], jobs: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const failures: Error[] = [];
  await Promise.all(
    Array.from({ length: Math.min(jobs, items.length) }, async () => {
      while (next < items.length) {
        const item = items[next++]!;
        await work(item).catch((error: Error) => failures.push(error));
      }
    }),
  );
  if (failures.length > 0) throw new Error(failures.map((failure) => failure.message).join('\n'));
}

async function main(): Promise<void> {
  const root = flag('root') ?? 'runs';
  const only = flag('only');
  const jobs = Number(flag('jobs') ?? availableParallelism());
  const experiments = EXPERIMENTS.filter((experiment) => !only || experiment.name === only);
  mkdirSync(root, { recursive: true });
  // Warm starts first, one after another (a warm start may start from an earlier experiment's), then every RL
  // run in one pool.
  for (const experiment of experiments) {
    for (const from of experiment.sft.map((stage) => stage.from)) {
      if (typeof from === 'string' && !existsSync(`${warmStartOf(root, from)}.done`)) {
        throw new Error(`${experiment.name}'s warm start starts from ${from}'s: run that one first`);
      }
    }
    await warmStart(root, experiment);
    const start = await cachedScore(startScoreFile(sftDir(root, experiment)), experiment, sftDir(root, experiment));
    const sampled = await cachedScore(
      startSampledFile(sftDir(root, experiment)),
      experiment,
      sftDir(root, experiment),
      {
        samples: SAMPLES_PER_TASK,
      },
    );
    process.stderr.write(
      `${experiment.name}: warm start ${start.successRate.toFixed(3)} on ${start.episodes} test tasks (the RL runs' evaluation), ` +
        `${sampled.successRate.toFixed(3)} sampled (${SAMPLES_PER_TASK} per task)\n`,
    );
  }
  // One job per algorithm and seed, its budgets in increasing order, each continuing the one before.
  const chains = new Map<string, RunSpec[]>();
  for (const spec of experiments.flatMap((experiment) => runSpecs(root, experiment))) {
    const key = `${spec.experiment.name}/${spec.algorithm}/${spec.seed}`;
    chains.set(key, [...(chains.get(key) ?? []), spec]);
  }
  // Within a seed, the tree chain first: at equal tokens it runs about twice the iterations (and evaluations)
  // of the chain one, so a pool that took the seeds' GRPO chains first would start the longest job last.
  const order = [...chains.values()].sort(
    (a, b) =>
      a[0]!.seed - b[0]!.seed || Number(b[0]!.algorithm === 'tree-grpo') - Number(a[0]!.algorithm === 'tree-grpo'),
  );
  await pool(order, jobs, async (specs) => {
    const ordered = [...specs].sort((a, b) => a.budget - b.budget);
    for (const [index, spec] of ordered.entries()) {
      await rlRun(root, spec, ordered[index - 1]);
      const last = await lastRow(spec);
      if (!finished(spec, last)) throw new Error(`${spec.dir} ended before its budget; see ${spec.dir}.log`);
      // Task-by-task outcomes of the final policy, for the comparison with the start. A larger budget's run
      // starts as a copy of this directory, score included: the tag (the last iteration) tells them apart.
      const policy = { adapter: join(spec.dir, 'checkpoint', 'adapter'), tag: `iteration ${last.iteration}` };
      const score = await cachedScore(finalScoreFile(spec.dir), spec.experiment, sftDir(root, spec.experiment), policy);
      const own = last['eval/success_rate']!;
      if (Math.abs(own - score.successRate) > 1e-9) {
        throw new Error(`${spec.dir}: re-scored ${score.successRate}, but the run's own last evaluation says ${own}`);
      }
      // What GRPO optimises: the success of sampled episodes, with the start's sampling seed.
      await cachedScore(finalSampledFile(spec.dir), spec.experiment, sftDir(root, spec.experiment), {
        ...policy,
        samples: SAMPLES_PER_TASK,
      });
    }
  });
  process.stderr.write(`done: summarize with node benchmarks/learning/dist/summarize-learning.js --root ${root}\n`);
}

main().catch((error: Error) => {
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
});
