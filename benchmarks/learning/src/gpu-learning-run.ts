/**
 * Issue 30 item 5: the math learning table's GRPO run at a budget these CPUs cannot afford, on a GPU through
 * the webgpu backend. The GPU kit (scripts/gpu-kit/build.js) bundles this file as `learn.js`; a GPU machine
 * needs neither Node nor this repository. Everything but the budget, the backend and the evaluation schedule is
 * the math experiment's (experiments.ts: warm start, 16 prompts × G=8, learning rate 5e-4, 200 test tasks), so
 * the run sits beside the table's 50k- and 150k-token CPU runs.
 *
 *   learn.sh [--budget 1500000] [--seed 1] [--run-dir /tmp/turngym-gpu-learning] [--checkpoint <dir>]
 *     [--backend webgpu] [--eval-every 5] [--eval-episodes 200] [--max-seconds <s>]
 *     [--prompts 16] [--max-batch 64] [--minibatch 8] [--minibatch-tokens 2048] [--learning-rate 5e-4]
 *     [--rollout-schedule turns|continuous]
 *
 * The batch flags default to the table's settings. On a GPU a wider batch is what buys tokens: generation is a
 * chain of small kernels and a read back per token, so 1,024 rows in lockstep cost about what 64 do, and one
 * optimiser step on a minibatch of 64 about what one on 8 does. A run that changes them says so in its first line.
 * `--rollout-schedule continuous` samples by continuous batching (a rollout's next action joins the batch as soon
 * as its env answered: fewer decoder passes, each running the joining rows' observations; not yet timed on a GPU).
 *
 * `--max-seconds` stops after the iteration in flight (the trainer's abort signal: its checkpoint is written, so
 * the same command resumes the run), for a machine lent by the minute. A row per iteration is printed as the
 * trainer appends it to `<run-dir>/metrics.jsonl`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { InvalidOptionsError, Registry, TurnGymError } from '@turngym/core';
import { register as registerMath } from '@turngym/env-math-thought';
import { backendInfo, type BackendName } from '@turngym/lm';
import { trainerArgsSchema } from '@turngym/rl';
import { trainGrpo } from '@turngym/trainer-grpo';
import { EXPERIMENTS } from './experiments';
import { flag } from './cli-flag';

function positive(name: string, fallback: string): number {
  const value = Number(flag(name) ?? fallback);
  if (!Number.isFinite(value) || value <= 0)
    throw new InvalidOptionsError('learn.sh', [`--${name} must be a positive number`]);
  return value;
}

/** The committed warm start: beside the bundle in the kit, else in this repository. */
function defaultCheckpoint(): string {
  const inKit = join(__dirname, 'math-warm-start');
  return existsSync(inKit) ? inKit : join(__dirname, '..', 'models', 'math-warm-start');
}

function metricsLines(file: string): string[] {
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
}

/**
 * Prints the metrics rows the trainer has appended since the last call; a resumed run's earlier rows are not
 * printed again (they would read as iterations run in seconds, with today's GPU memory).
 */
function rowPrinter(file: string, started: number): () => void {
  // By content, not by count: a resume cuts the rows past its checkpoint off and writes them again (other times).
  const printed = new Set(metricsLines(file));
  return () => {
    for (const line of metricsLines(file)) {
      if (printed.has(line)) continue;
      let row: Record<string, number>;
      try {
        row = JSON.parse(line) as Record<string, number>;
      } catch {
        continue; // still being appended: printed once whole
      }
      printed.add(line);
      const evaluation = 'eval/success_rate' in row ? `, test success ${row['eval/success_rate']!.toFixed(3)}` : '';
      // The GPU memory tfjs-webgpu keeps for reuse: bounded (webgpu-buffer-pool.ts), else a long run fills the GPU.
      const pool = backendInfo().pool;
      const memory = pool
        ? `; GPU buffers ${(pool.usedBytes / 2 ** 20).toFixed(0)} MiB in use, ${(pool.freeBytes / 2 ** 20).toFixed(0)} MiB pooled (limit ${(pool.limitBytes / 2 ** 20).toFixed(0)}), ${pool.evictedBuffers} freed`
        : '';
      console.log(
        `iteration ${row.iteration}: ${row.global_step} tokens, ${((performance.now() - started) / 1000).toFixed(0)} s${evaluation}${memory}`,
      );
    }
  };
}

async function main(): Promise<void> {
  process.env.TURNGYM_DAWN_NODE ??= join(__dirname, 'dawn.node');
  const math = EXPERIMENTS.find((experiment) => experiment.name === 'math')!;
  const runDir = flag('run-dir') ?? '/tmp/turngym-gpu-learning';
  // The table's batch settings, with the trainer's schema defaults where the experiment leaves them.
  const defaults = trainerArgsSchema.properties as Record<string, { default?: unknown }>;
  const table: Record<string, unknown> = {
    maxBatch: defaults.maxBatch!.default,
    minibatchTokens: defaults.minibatchTokens!.default,
    ...math.rl,
  };
  const args = {
    ...math.rl,
    ...math.grpo,
    envId: math.envId,
    envOptions: math.envOptions,
    checkpoint: flag('checkpoint') ?? defaultCheckpoint(),
    runDir,
    seed: positive('seed', '1'),
    tokenBudget: positive('budget', '1500000'),
    // Enough iterations for any budget: the token budget is what stops the run.
    iterations: 100_000,
    // Validated by the trainer's schema, which names the field if it is not a backend.
    backend: (flag('backend') ?? 'webgpu') as BackendName,
    evalEvery: positive('eval-every', '5'),
    evalEpisodes: positive('eval-episodes', String(math.rl.evalEpisodes)),
    promptsPerIteration: positive('prompts', String(table.promptsPerIteration)),
    maxBatch: positive('max-batch', String(table.maxBatch)),
    minibatchSize: positive('minibatch', String(table.minibatchSize)),
    minibatchTokens: positive('minibatch-tokens', String(table.minibatchTokens)),
    learningRate: positive('learning-rate', String(table.learningRate)),
    // Validated by the trainer's schema (`turns` or `continuous`), which names the field otherwise.
    rolloutSchedule: (flag('rollout-schedule') ?? 'turns') as 'turns' | 'continuous',
    quiet: true,
  };
  const changed = (
    ['promptsPerIteration', 'maxBatch', 'minibatchSize', 'minibatchTokens', 'learningRate', 'rolloutSchedule'] as const
  )
    .filter((key) => args[key] !== (table[key] ?? defaults[key]!.default))
    .map((key) => `${key} ${args[key]}`);
  const registry = new Registry();
  registerMath(registry);
  const abort = new AbortController();
  const maxSeconds = Number(flag('max-seconds') ?? '0');
  const timer = maxSeconds > 0 ? setTimeout(() => abort.abort(), maxSeconds * 1000) : undefined;
  const started = performance.now();
  const print = rowPrinter(join(runDir, 'metrics.jsonl'), started);
  const poll = setInterval(print, 2000);
  console.log(
    `GRPO on ${args.envId}, budget ${args.tokenBudget} tokens, seed ${args.seed}, run ${runDir}; ` +
      (changed.length > 0 ? `changed from the table: ${changed.join(', ')}` : `the table's settings`),
  );
  try {
    const result = await trainGrpo(args, { registry, signal: abort.signal });
    print();
    const info = backendInfo();
    console.log(
      `${result.iterations} iterations, ${result.generatedTokens} tokens in ${((performance.now() - started) / 1000).toFixed(0)} s ` +
        `on ${info.name}${info.adapter ? ` (${info.adapter.device})` : ''}; last test success ${result.testSuccessRate}`,
    );
    result.model.dispose();
  } finally {
    clearInterval(poll);
    if (timer) clearTimeout(timer);
  }
  process.exit(0);
}

main().catch((error: unknown) => {
  // Bad flags and refusals (another run in --run-dir, a resume with other arguments) in one line; a crash in full.
  const told = TurnGymError.isInstance(error);
  console.error(told ? `error: ${(error as Error).message}` : error);
  process.exit(told ? 2 : 1);
});
