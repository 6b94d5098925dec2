import { existsSync } from 'node:fs';
import { mixSeed, SeededRng, type Registry } from '@turngym/core';
import { backendInfo, GenerationBatch, loadModel, type LanguageModel } from '@turngym/lm';
import { ChatTurnFormat, collectChains, installedEnvRegistry, type RolloutOptions, type Trajectory } from '@turngym/rl';

/** The committed math warm start, when the benchmark runs from the repository root; else an untrained tiny-1m. */
const WARM_START = 'benchmarks/learning/models/math-warm-start';
const ENV_ID = 'turngym/math-thought-calc-v1';
const ENV_OPTIONS = { difficulties: [1], kinds: ['arithmetic'] };
/** The math table's rollout caps (benchmarks/learning, experiments.ts). */
const CAPS = { maxActionTokens: 32, maxRolloutTokens: 160, instructions: false, temperature: 1, topP: 1 } as const;
const fmt = (n: number, digits = 0): string =>
  n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

/** One measured schedule: its rollouts, wall time and decoder passes. */
interface ScheduleRun {
  readonly trajectories: Trajectory[];
  readonly seconds: number;
  readonly passes: number;
}

/**
 * The lockstep rounds' decoder passes, from the rollouts' action lengths: each round, the rollouts still acting
 * go `maxBatch` at a time, and a batch takes one pass per token of its longest action (the prompts' pass draws
 * the first token, the last token drawn is never run).
 */
export function turnPasses(actionTokens: readonly (readonly number[])[], maxBatch: number): number {
  const rounds = Math.max(0, ...actionTokens.map((turns) => turns.length));
  let passes = 0;
  for (let round = 0; round < rounds; round++) {
    const acting = actionTokens.filter((turns) => turns.length > round);
    for (let from = 0; from < acting.length; from += maxBatch) {
      passes += Math.max(...acting.slice(from, from + maxBatch).map((turns) => turns[round]!));
    }
  }
  return passes;
}

/**
 * Continuous batching's decoder passes, from the same action lengths: at most `maxBatch` actions in the batch,
 * a row's next action joining (in the order the rows finished) as soon as its previous one ended; one pass per
 * token of each action, as `GenerationBatch` runs them. The envs answer between passes and cost none.
 */
export function continuousPasses(actionTokens: readonly (readonly number[])[], maxBatch: number): number {
  const next = actionTokens.map(() => 0);
  const queue = actionTokens.flatMap((turns, row) => (turns.length > 0 ? [row] : []));
  const inBatch = new Map<number, number>();
  let passes = 0;
  while (queue.length > 0 || inBatch.size > 0) {
    while (queue.length > 0 && inBatch.size < maxBatch) {
      const row = queue.shift()!;
      inBatch.set(row, actionTokens[row]![next[row]!]!);
    }
    passes += 1;
    for (const [row, left] of [...inBatch]) {
      if (left > 1) {
        inBatch.set(row, left - 1);
        continue;
      }
      inBatch.delete(row);
      next[row] = next[row]! + 1;
      if (next[row]! < actionTokens[row]!.length) queue.push(row);
    }
  }
  return passes;
}

/** Counts the decoder passes every `GenerationBatch` runs while `run` runs (the engine makes its own batch). */
async function countingPasses<T>(run: () => Promise<T>): Promise<{ result: T; passes: number }> {
  const step = GenerationBatch.prototype.step;
  let passes = 0;
  GenerationBatch.prototype.step = function (this: GenerationBatch) {
    const before = this.passes;
    const finished = step.call(this);
    passes += this.passes - before;
    return finished;
  };
  try {
    return { result: await run(), passes };
  } finally {
    GenerationBatch.prototype.step = step;
  }
}

async function sample(
  model: LanguageModel,
  registry: Registry,
  schedule: RolloutOptions['schedule'],
  prompts: number,
  group: number,
  maxBatch: number,
): Promise<ScheduleRun> {
  const started = performance.now();
  const { result, passes } = await countingPasses(() =>
    collectChains({
      policy: { model, format: new ChatTurnFormat(model.tokenizer) },
      makeEnv: () => registry.make(ENV_ID, { options: { ...ENV_OPTIONS, split: 'test' } }),
      envId: ENV_ID,
      seeds: Array.from({ length: prompts }, (_, i) => i),
      groupSize: group,
      options: { ...CAPS, maxBatch, schedule, seed: 3 },
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const actions = result.map((trajectory) => trajectory.steps.map((step) => step.actionTokens));
  return { trajectories: result, seconds, passes: schedule === 'turns' ? turnPasses(actions, maxBatch) : passes };
}

/**
 * Rollout schedules (issue 30): GRPO's math rollouts of the committed warm start sampled by lockstep rounds
 * (`schedule: 'turns'`, the baseline) and by continuous batching, on this machine's backend — wall time, decoder
 * passes (rounds: from the action lengths; continuous: counted, the joining rows' own passes included off webgpu)
 * and whether the two sampled the same rollouts.
 * Then the passes both schedules would take for wider batches, from the same action lengths resampled (a GPU's
 * rollout time is its passes: a pass costs about the same for 64 rows as for 1,024, perf.md's GPU runs).
 */
export async function rolloutSchedule(options: {
  readonly prompts?: number;
  readonly group?: number;
  readonly maxBatch?: number;
  readonly wide?: readonly (readonly [rows: number, maxBatch: number])[];
  readonly log?: (line: string) => void;
}): Promise<string[]> {
  const prompts = options.prompts ?? 16;
  const group = options.group ?? 8;
  const maxBatch = options.maxBatch ?? 64;
  const checkpoint = existsSync(WARM_START) ? WARM_START : 'tiny-1m';
  const model = await loadModel(checkpoint, { backend: 'auto', seed: 1 });
  const registry = installedEnvRegistry();
  try {
    // Untimed: the first rollouts of a process compile the backend's kernels, which would be charged to the baseline.
    await sample(model, registry, 'turns', 2, group, maxBatch);
    await sample(model, registry, 'continuous', 2, group, maxBatch);
    const turns = await sample(model, registry, 'turns', prompts, group, maxBatch);
    options.log?.(`turns: ${turns.seconds.toFixed(1)} s, ${turns.passes} passes`);
    const continuous = await sample(model, registry, 'continuous', prompts, group, maxBatch);
    options.log?.(`continuous: ${continuous.seconds.toFixed(1)} s, ${continuous.passes} passes`);
    const generated = (run: ScheduleRun) => run.trajectories.reduce((sum, t) => sum + t.generatedTokens, 0);
    const same = turns.trajectories.every(
      (trajectory, i) => JSON.stringify(trajectory.tokens) === JSON.stringify(continuous.trajectories[i]!.tokens),
    );
    const rows = prompts * group;
    const lines = [
      `${checkpoint} on ${backendInfo().name} (threads: ${backendInfo().threads ?? 'its own'}), ${ENV_ID} test tasks 0–${prompts - 1} × ${group} rollouts (${rows} rows), ` +
        `at most ${maxBatch} in a batch, the math table's caps (${CAPS.maxActionTokens} tokens an action, ` +
        `${CAPS.maxRolloutTokens} a rollout). Same sampled tokens under both schedules: ${same ? 'yes' : 'no'}.`,
      '',
      '| schedule | wall s | generated tokens/s | decoder passes | passes vs rounds | time vs rounds |',
      '|---|---:|---:|---:|---:|---:|',
      ...[
        ['rounds (`turns`, baseline)', turns],
        ['continuous batching', continuous],
      ].map(([name, run]) => {
        const r = run as ScheduleRun;
        return (
          `| ${name as string} | ${fmt(r.seconds, 1)} | ${fmt(generated(r) / r.seconds)} | ${fmt(r.passes)} | ` +
          `${fmt(r.passes / turns.passes, 2)}× | ${fmt(r.seconds / turns.seconds, 2)}× |`
        );
      }),
    ];
    // Wider batches, as a GPU would run them: rows drawn (seeded, with replacement) from these rollouts' action
    // lengths, both schedules' passes counted as above.
    const actions = turns.trajectories.map((trajectory) => trajectory.steps.map((step) => step.actionTokens));
    const rng = new SeededRng(mixSeed(7, rows));
    lines.push(
      '',
      `Decoder passes for wider batches, from these ${rows} rollouts' action lengths resampled (seeded), joining rows ` +
        "sharing each step's pass (`joinPass: 'shared'`; their own passes, the default, are not counted):",
      '',
      '| rows | in a batch | rounds | continuous | continuous vs rounds |',
      '|---:|---:|---:|---:|---:|',
    );
    for (const [wideRows, wideBatch] of options.wide ?? [
      [1024, 1024],
      [2048, 1024],
      [4096, 1024],
    ]) {
      const drawn = Array.from({ length: wideRows }, () => actions[rng.int(0, actions.length - 1)]!);
      const a = turnPasses(drawn, wideBatch);
      const b = continuousPasses(drawn, wideBatch);
      lines.push(`| ${fmt(wideRows)} | ${fmt(wideBatch)} | ${fmt(a)} | ${fmt(b)} | ${fmt(b / a, 2)}× |`);
    }
    return lines;
  } finally {
    model.dispose();
  }
}
