import { loadavg } from 'node:os';
import { mixSeed, SeededRng, Wrapper } from '@turngym/core';
import { backendInfo, loadModel, Trainer, type LanguageModel } from '@turngym/lm';
import {
  ChatTurnFormat,
  collectChains,
  collectTrees,
  groupAdvantages,
  ownToolCalls,
  hasActionTokens,
  installedEnvRegistry,
  lossMask,
  ppoUpdate,
  treeAdvantageSamples,
  type EnvFactory,
  type RolloutOptions,
  type RolloutPolicy,
  type Trajectory,
  type UpdateSample,
} from '@turngym/rl';
import type { Action, Env, ResetArgs, ResetResult, StepResult } from '@turngym/spec';

/**
 * Rollouts and training for the GRPO family (issue 9): what one training iteration of tiny-1m on wasm
 * spends, chains (GRPO, G = 4) against trees (Tree-GRPO, M = 2, N = 2, L = 1) on the same prompts.
 * - Throughput: generated tokens/s and env steps/s of `collectChains` / `collectTrees`, and where the
 *   rollout time goes (env calls, timed by wrapping every env the factory makes, forks included; the rest
 *   is generation and bookkeeping).
 * - Budget: rollouts per 1k generated tokens and per tool call, trees against chains (ALGORITHMS.md §1:
 *   "rollouts per budget unit"; the paper reports ~1.5×), with the mean episode length in turns that the
 *   ratio depends on, and the same ratio if branches did not share their prefix.
 * - Training: `ppoUpdate` tokens/s on the collected rollouts and the split of one iteration.
 * Chains and trees each train their own copy of the model (two runs side by side), so neither samples
 * from a policy the other's update moved.
 */

const PROMPTS = 8;
const GROUP_SIZE = 4;
const SHAPE = { trees: 2, branches: 2, rounds: 1 } as const;
const ADAPTER = 'policy';
/** Sequences per gradient step (the trainers' default). */
const MINIBATCH = 8;
/**
 * tfjs keeps every intermediate of a forward pass until it ends, so the attention maps alone take
 * rows·heads·T²·layers floats, times several copies, and wasm's heap stops at 4 GB ("memory access out of
 * bounds" and the backend is lost). Measured here: ppoUpdate's reference scoring, all rows in one forward,
 * held 32 rows × 512 tokens and 48 × 394, and crashed at 16 × 911; a minibatch of 4 × 900 fit, 8 × 900 crashed.
 * The limits are on rows × (longest row)², for the one-batch scoring and for one minibatch; a larger update
 * is skipped and reported rather than taking the whole run down.
 */
const ONE_BATCH_LIMIT = 8.5e6;
const MINIBATCH_LIMIT = 4e6;

export interface RolloutThroughputOptions {
  /** Iterations (same prompts for chains and trees) repeat per env until this much time has passed; at least one. */
  readonly durationMs: number;
  /** Warm-started checkpoints to act with instead of an untrained tiny-1m (e.g. `runs/math/sft`). */
  readonly checkpoints?: { readonly math?: string; readonly wiki?: string };
}

interface EnvCase {
  /** Which warm-started checkpoint (`checkpoints`) acts on this case. */
  readonly key: 'math' | 'wiki';
  /** The row label in the tables. */
  readonly label: string;
  readonly envId: string;
  readonly envOptions: Record<string, unknown>;
  /** Seeds this case's prompt draws. */
  readonly promptSeed: number;
  /** The untrained model's rollout caps, where they differ from the short default. */
  readonly untrainedCaps?: Partial<RolloutOptions>;
}

const CASES: readonly EnvCase[] = [
  {
    key: 'math',
    label: 'math-thought-v1',
    envId: 'turngym/math-thought-v1',
    envOptions: { difficulties: [1], kinds: ['arithmetic'] },
    promptSeed: 1,
  },
  {
    key: 'wiki',
    label: 'wiki-qa-compact-v1',
    envId: 'turngym/wiki-qa-compact-v1',
    envOptions: { questionTypes: ['bridge', 'comparison'], minHops: 2, maxHops: 3 },
    promptSeed: 2,
  },
  {
    // The tree's saving grows with episode length (`expectedRatio`): the same env with twice the rollout cap,
    // so the untrained model's episodes run ~8 turns instead of ~4 — about the length of the paper's agents.
    key: 'math',
    label: 'math-thought-v1, long episodes',
    envId: 'turngym/math-thought-v1',
    envOptions: { difficulties: [1], kinds: ['arithmetic'] },
    promptSeed: 3,
    untrainedCaps: { maxRolloutTokens: 128 },
  },
];

/**
 * Wall time during which at least one env call is in flight. Envs step concurrently, so summing each
 * call's duration would count overlapping calls twice; the union of the intervals cannot.
 */
class EnvClock {
  private inFlight = 0;
  private since = 0;
  busyMs = 0;
  steps = 0;

  async time<T>(call: () => Promise<T>): Promise<T> {
    if (this.inFlight++ === 0) this.since = performance.now();
    try {
      return await call();
    } finally {
      if (--this.inFlight === 0) this.busyMs += performance.now() - this.since;
    }
  }

  reset(): void {
    this.busyMs = 0;
    this.steps = 0;
  }
}

/** Times every call into the env (forks come back timed too). */
class TimedEnv extends Wrapper<string, Action> {
  constructor(
    env: Env<string, Action>,
    private readonly clock: EnvClock,
  ) {
    super(env);
  }

  override reset(args?: ResetArgs): Promise<ResetResult<string>> {
    return this.clock.time(() => this.env.reset(args));
  }

  override step(action: Action): Promise<StepResult<string>> {
    this.clock.steps += 1;
    return this.clock.time(() => this.env.step(action));
  }

  async fork(): Promise<Env<string, Action>> {
    return new TimedEnv(await this.clock.time(() => this.env.fork()), this.clock);
  }

  override close(): Promise<void> {
    return this.clock.time(() => this.env.close());
  }
}

/** Time spent inside the reference scoring and the gradient steps of `ppoUpdate`. */
interface TrainingClock {
  referenceMs: number;
  gradientMs: number;
  /** The model's own `score`, untimed (for the comparison with scoring in minibatches). */
  readonly score: LanguageModel['score'];
}

/** Wraps the model's `score` and the trainer's `step` on these instances only, to split `ppoUpdate`'s time. */
function timeTraining(model: LanguageModel, trainer: Trainer): TrainingClock {
  const score = model.score.bind(model);
  const clock: TrainingClock = { referenceMs: 0, gradientMs: 0, score };
  model.score = async (...args: Parameters<LanguageModel['score']>) => {
    const start = performance.now();
    try {
      return await score(...args);
    } finally {
      clock.referenceMs += performance.now() - start;
    }
  };
  const step = trainer.step.bind(trainer);
  trainer.step = async (...args: Parameters<Trainer['step']>) => {
    const start = performance.now();
    try {
      return await step(...args);
    } finally {
      clock.gradientMs += performance.now() - start;
    }
  };
  return clock;
}

type Method = 'chains' | 'trees';

/** Everything measured for one method on one env, summed over iterations. */
interface Tally {
  iterations: number;
  rollouts: number;
  generated: number;
  /** Action tokens along each rollout's whole path, shared prefix included: its cost without sharing. */
  pathGenerated: number;
  computed: number;
  /** Every rollout's whole sequence: what it would run through the model without a shared KV cache. */
  sequenceTokens: number;
  toolCalls: number;
  envSteps: number;
  turns: number;
  /** Initial chains only (round 0): the full episodes whose length sets the expected saving. */
  chainTurns: number;
  chains: number;
  chainGenerated: number;
  stopReasons: Map<string, number>;
  rolloutMs: number;
  /** This process's CPU time (user + system) for the same spans: what other load on the machine cannot inflate much. */
  rolloutCpuMs: number;
  envMs: number;
  trainMs: number;
  trainCpuMs: number;
  referenceMs: number;
  gradientMs: number;
  trainedSequences: number;
  trainedTokens: number;
  trainedActionTokens: number;
  zeroAdvantageUpdates: number;
  /** Updates not run because they would not fit in wasm's heap. */
  skippedUpdates: string[];
  /** The same reference scoring as ppoUpdate's, in minibatches of 8 rows instead of one batch (trees only). */
  chunkedReferenceMs: number;
  chunkedReferenceTokens: number;
  /** ppoUpdate's one-batch reference scoring of the same rows. */
  oneBatchReferenceMs: number;
}

function emptyTally(): Tally {
  return {
    iterations: 0,
    rollouts: 0,
    generated: 0,
    pathGenerated: 0,
    computed: 0,
    sequenceTokens: 0,
    toolCalls: 0,
    envSteps: 0,
    turns: 0,
    chainTurns: 0,
    chains: 0,
    chainGenerated: 0,
    stopReasons: new Map(),
    rolloutMs: 0,
    rolloutCpuMs: 0,
    envMs: 0,
    trainMs: 0,
    trainCpuMs: 0,
    referenceMs: 0,
    gradientMs: 0,
    trainedSequences: 0,
    trainedTokens: 0,
    trainedActionTokens: 0,
    zeroAdvantageUpdates: 0,
    skippedUpdates: [],
    chunkedReferenceMs: 0,
    chunkedReferenceTokens: 0,
    oneBatchReferenceMs: 0,
  };
}

function actionTokens(trajectory: Trajectory): number {
  return trajectory.segments.reduce((sum, segment) => sum + (segment.kind === 'action' ? segment.tokenCount : 0), 0);
}

function countRollouts(tally: Tally, trajectories: readonly Trajectory[]): void {
  for (const trajectory of trajectories) {
    tally.rollouts += 1;
    tally.generated += trajectory.generatedTokens;
    tally.pathGenerated += actionTokens(trajectory);
    tally.computed += trajectory.computedTokens;
    tally.sequenceTokens += trajectory.tokens.length;
    tally.toolCalls += ownToolCalls(trajectory);
    tally.turns += trajectory.steps.length;
    if ((trajectory.tree?.round ?? 0) === 0) {
      tally.chains += 1;
      tally.chainTurns += trajectory.steps.length;
      tally.chainGenerated += trajectory.generatedTokens;
    }
    tally.stopReasons.set(trajectory.stopReason, (tally.stopReasons.get(trajectory.stopReason) ?? 0) + 1);
  }
}

/** GRPO's samples: group z-scores of the chains of each prompt (an errored rollout leaves its group). */
function chainSamples(trajectories: readonly Trajectory[]): UpdateSample[] {
  const samples: UpdateSample[] = [];
  for (let group = 0; group < PROMPTS; group++) {
    const members = trajectories.filter((t) => t.group === group && t.stopReason !== 'error');
    if (members.length < 2) continue;
    const advantages = groupAdvantages(members.map((member) => member.totalReward));
    members.forEach((trajectory, index) => samples.push({ trajectory, advantage: advantages[index]! }));
  }
  return samples;
}

interface Run {
  readonly model: LanguageModel;
  readonly trainer: Trainer;
  readonly policy: RolloutPolicy;
  readonly training: TrainingClock;
  readonly tally: Tally;
}

async function openRun(checkpoint: string): Promise<Run> {
  const model = await loadModel(checkpoint, { backend: 'wasm', seed: 1 });
  model.addAdapter(ADAPTER, { rank: 16, alpha: 32, seed: 1 });
  // The tree-grpo trainer's defaults: LoRA rank 16, Adam 2e-3, gradient clip 1.
  const trainer = new Trainer(model, { adapter: ADAPTER, learningRate: 2e-3, maxGradNorm: 1 });
  return {
    model,
    trainer,
    policy: { model, format: new ChatTurnFormat(model.tokenizer) },
    training: timeTraining(model, trainer),
    tally: emptyTally(),
  };
}

/** One training iteration: rollouts on `seeds`, then the PPO update on them. */
async function iterate(
  method: Method,
  run: Run,
  envCase: EnvCase,
  makeEnv: EnvFactory,
  clock: EnvClock,
  seeds: readonly number[],
  rollout: Partial<RolloutOptions>,
  iteration: number,
): Promise<void> {
  const { tally } = run;
  clock.reset();
  const started = performance.now();
  const cpuStarted = process.cpuUsage();
  let trajectories: Trajectory[];
  let samples: () => UpdateSample[];
  if (method === 'chains') {
    const chains = await collectChains({
      policy: run.policy,
      makeEnv,
      envId: envCase.envId,
      seeds,
      groupSize: GROUP_SIZE,
      options: rollout,
    });
    trajectories = chains;
    samples = () => chainSamples(chains);
  } else {
    const sampled = await collectTrees({
      policy: run.policy,
      makeEnv,
      envId: envCase.envId,
      seeds,
      shape: SHAPE,
      options: rollout,
    });
    trajectories = sampled.trajectories;
    // Tree-GRPO's samples, as the trainer builds them.
    samples = () => treeAdvantageSamples(sampled.trajectories);
  }
  tally.rolloutMs += performance.now() - started;
  tally.rolloutCpuMs += cpuMs(cpuStarted);
  progress(
    `${envCase.label} ${method} ${iteration < 0 ? 'warm-up' : `#${iteration}`}: ${trajectories.length} rollouts in ${fmt((performance.now() - started) / 1000, 1)} s (CPU ${fmt(cpuMs(cpuStarted) / 1000, 1)} s)`,
  );
  tally.envMs += clock.busyMs;
  tally.envSteps += clock.steps;
  tally.iterations += 1;
  countRollouts(tally, trajectories);

  // The trainers skip an update whose advantages are all 0; its cost does not depend on their values, so
  // it runs here regardless (an untrained model often ties every group) and the count is reported.
  const updateStarted = performance.now();
  const updateCpu = process.cpuUsage();
  const all = samples();
  if (all.every((sample) => sample.advantage === 0)) tally.zeroAdvantageUpdates += 1;
  // ppoUpdate refuses a sample with no action token; a rollout cut before acting has nothing to train.
  const usable = all.filter((sample) => hasActionTokens(sample.trajectory));
  if (usable.length === 0) return;
  const longest = Math.max(...usable.map((sample) => sample.trajectory.tokens.length));
  if (usable.length * longest ** 2 > ONE_BATCH_LIMIT || MINIBATCH * longest ** 2 > MINIBATCH_LIMIT) {
    tally.skippedUpdates.push(`${usable.length} sequences of up to ${longest} tokens`);
    progress(`${envCase.label} ${method}: update skipped (${usable.length} sequences of up to ${longest} tokens)`);
    return;
  }
  const before = { ...run.training };
  const stats = await ppoUpdate(run.trainer, usable, {
    epochs: 1,
    minibatchSize: MINIBATCH,
    ratio: 'token',
    clipEpsilon: 0.2,
    dualClip: 3,
    klCoefficient: 0.001,
    entropyCoefficient: 0.001,
    seed: mixSeed(1, iteration),
  });
  tally.trainMs += performance.now() - updateStarted;
  tally.trainCpuMs += cpuMs(updateCpu);
  progress(
    `${envCase.label} ${method} ${iteration < 0 ? 'warm-up' : `#${iteration}`}: update of ${usable.length} sequences in ${fmt((performance.now() - updateStarted) / 1000, 1)} s (CPU ${fmt(cpuMs(updateCpu) / 1000, 1)} s)`,
  );
  tally.referenceMs += run.training.referenceMs - before.referenceMs;
  tally.gradientMs += run.training.gradientMs - before.gradientMs;
  tally.trainedSequences += usable.length;
  tally.trainedTokens += usable.reduce((sum, sample) => sum + sample.trajectory.tokens.length, 0);
  tally.trainedActionTokens += stats.actionTokens;
  if (method === 'trees' && iteration === 0) {
    // ppoUpdate scores the reference on every row in one forward; the same rows in minibatch-sized chunks:
    const rows = usable.map(({ trajectory }) => ({
      tokens: trajectory.tokens,
      weights: Array.from(lossMask(trajectory)),
    }));
    const chunked = performance.now();
    for (let from = 0; from < rows.length; from += MINIBATCH) {
      await run.training.score(rows.slice(from, from + MINIBATCH), { adapter: null });
    }
    tally.chunkedReferenceMs = performance.now() - chunked;
    tally.chunkedReferenceTokens = rows.reduce((sum, row) => sum + row.tokens.length, 0);
    tally.oneBatchReferenceMs = run.training.referenceMs - before.referenceMs;
  }
}

interface CaseResult {
  readonly envCase: EnvCase;
  readonly checkpoint: string;
  readonly rollout: Partial<RolloutOptions>;
  readonly chains: Tally;
  readonly trees: Tally;
}

async function measureCase(envCase: EnvCase, checkpoint: string | undefined, durationMs: number): Promise<CaseResult> {
  const registry = installedEnvRegistry();
  const clock = new EnvClock();
  const makeEnv: EnvFactory = () =>
    clock.time(async () => {
      const env = (await registry.make(envCase.envId, { options: envCase.envOptions })) as Env<string, Action>;
      return new TimedEnv(env, clock);
    });
  // An untrained model almost never samples the end of its turn (2 of 264 byte tokens), so its actions run
  // to the cap, and its malformed actions draw long error messages: short caps and cut observations keep the
  // section within its time, and the sequences within what ppoUpdate's one-batch reference scoring holds in
  // wasm memory. A warm-started model ends its own turns and reads whole observations: the SFT runs' caps.
  const caps: Partial<RolloutOptions> = checkpoint
    ? { maxActionTokens: 48, maxRolloutTokens: 192 }
    : { maxActionTokens: 16, maxRolloutTokens: 64, maxObservationTokens: 24, ...envCase.untrainedCaps };
  const rolloutOptions = (iteration: number): Partial<RolloutOptions> => ({
    ...caps,
    instructions: false,
    adapter: ADAPTER,
    // π_old is the sampling logprob, which is log π only at temperature 1 without top-p.
    temperature: 1,
    topP: 1,
    seed: mixSeed(1, iteration),
  });
  // Warm-up on a throwaway copy (wasm kernels, JIT, Adam's first step), at the measured size: wasm's heap
  // grows to what the largest batch needs, and that growth (one prefill of 32 rows took 0.8–1.6 s the first
  // time, 0.35 s after) went to whichever method ran first when the warm-up had one prompt. The measured copies
  // start from the same weights.
  const warmUp = await openRun(checkpoint ?? 'tiny-1m');
  const warmUpSeeds = Array.from({ length: PROMPTS }, (_, index) => 1 + index);
  try {
    for (const method of ['chains', 'trees'] as const) {
      await iterate(method, warmUp, envCase, makeEnv, clock, warmUpSeeds, rolloutOptions(-1), -1);
    }
  } finally {
    warmUp.trainer.dispose();
    warmUp.model.dispose();
  }
  const runs = { chains: await openRun(checkpoint ?? 'tiny-1m'), trees: await openRun(checkpoint ?? 'tiny-1m') };
  const rng = new SeededRng(mixSeed(9, envCase.promptSeed));
  const started = performance.now();
  let iteration = 0;
  try {
    do {
      const seeds = Array.from({ length: PROMPTS }, () => rng.int(0, 2 ** 31 - 1));
      const rollout = rolloutOptions(iteration);
      // Same prompts and sampling seed for both, measured back to back, the first one in turn (what one leaves
      // behind in memory and caches is not always on the same side).
      for (const method of iteration % 2 === 0 ? (['chains', 'trees'] as const) : (['trees', 'chains'] as const)) {
        await iterate(method, runs[method], envCase, makeEnv, clock, seeds, rollout, iteration);
      }
      iteration += 1;
    } while (performance.now() - started < durationMs);
  } finally {
    for (const run of Object.values(runs)) {
      run.trainer.dispose();
      run.model.dispose();
    }
  }
  return {
    envCase,
    checkpoint: checkpoint ?? 'tiny-1m (untrained)',
    rollout: caps,
    chains: runs.chains.tally,
    trees: runs.trees.tally,
  };
}

function cpuMs(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
}

/** Progress on stderr: the section takes minutes. */
function progress(text: string): void {
  process.stderr.write(`  ${text}\n`);
}

const fmt = (n: number, digits = 0): string =>
  Number.isFinite(n)
    ? n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })
    : 'n/a';
const pct = (part: number, whole: number): string => `${fmt((100 * part) / whole)}%`;
const ratio = (value: number, baseline: number): string =>
  Number.isFinite(value / baseline) ? `${fmt(value / baseline, 2)}×` : 'n/a';

function stops(tally: Tally): string {
  return [...tally.stopReasons.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([reason, count]) => `${reason} ${count}`)
    .join(', ');
}

/**
 * Expected rollouts per generated token, trees over chains, when episodes last T turns and tokens spread
 * evenly over turns: a branch from a uniformly drawn node of {root} ∪ non-leaf nodes shares (T − 1)/(2T)
 * of a chain on average, so M·(1 + N·L) rollouts cost M + M·N·L·(1 − shared) chains.
 */
function expectedRatio(turns: number): number {
  const shared = (turns - 1) / (2 * turns);
  const rollouts = SHAPE.trees * (1 + SHAPE.branches * SHAPE.rounds);
  const cost = SHAPE.trees + SHAPE.trees * SHAPE.branches * SHAPE.rounds * (1 - shared);
  return rollouts / cost;
}

export async function rolloutThroughput(options: RolloutThroughputOptions): Promise<string[]> {
  const loadBefore = loadavg();
  const results: CaseResult[] = [];
  for (const envCase of CASES) {
    const checkpoint = options.checkpoints?.[envCase.key];
    // A warm-started model ends its own turns, so the long-episode case would repeat the short one.
    if (checkpoint && envCase.untrainedCaps) continue;
    results.push(await measureCase(envCase, checkpoint, options.durationMs));
  }
  const loadAfter = loadavg();
  const info = backendInfo();
  const label = (result: CaseResult): string => result.envCase.label;
  const methodLabel = (method: Method): string =>
    method === 'chains'
      ? `chains (G=${GROUP_SIZE})`
      : `trees (M=${SHAPE.trees}, N=${SHAPE.branches}, L=${SHAPE.rounds})`;

  const lines: string[] = [
    `${PROMPTS} prompts per iteration; chains: ${PROMPTS * GROUP_SIZE} rollouts, trees: ${PROMPTS * SHAPE.trees * (1 + SHAPE.branches * SHAPE.rounds)}. ` +
      `Backend ${info.name} ×${info.threads ?? '?'} thread(s). Rollouts sample at temperature 1 with the LoRA adapter (rank 16) the trainers train; ` +
      'chains and trees run the same prompts and sampling seeds, one after the other, each training its own copy of the model.',
    ...results.map(
      (result) =>
        `${label(result)}: ${result.checkpoint}, ${result.chains.iterations} iteration(s), maxActionTokens ${result.rollout.maxActionTokens}, ` +
        `maxRolloutTokens ${result.rollout.maxRolloutTokens}${result.rollout.maxObservationTokens ? `, observations cut at ${result.rollout.maxObservationTokens} tokens` : ''}, no instructions.`,
    ),
    `Load average (1/5/15 min) at the start: ${loadBefore.map((n) => n.toFixed(2)).join(' / ')}; at the end: ${loadAfter.map((n) => n.toFixed(2)).join(' / ')}.`,
    '',
    "**Rollout throughput** (goal: trees ≥ 1.3× the chains' rollouts per CPU-second on math and wiki; baseline: chains on the same env; per CPU-second = per second of this process's CPU time, which the other load on the machine inflates less than wall time)",
    '',
    '| env | rollouts | count | rollouts per CPU-second | vs chains | generated tokens/s | per CPU-second | vs chains (CPU) | env steps/s | vs chains (CPU) | rollout s (wall / CPU) | env share | generation + bookkeeping share |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const result of results) {
    const base = result.chains;
    for (const method of ['chains', 'trees'] as const) {
      const tally = result[method];
      const seconds = tally.rolloutMs / 1000;
      lines.push(
        `| ${label(result)} | ${methodLabel(method)} | ${tally.rollouts} | ${fmt(tally.rollouts / (tally.rolloutCpuMs / 1000), 2)} | ` +
          `${ratio(tally.rollouts / tally.rolloutCpuMs, base.rollouts / base.rolloutCpuMs)} | ${fmt(tally.generated / seconds)} | ${fmt(tally.generated / (tally.rolloutCpuMs / 1000))} | ` +
          `${ratio(tally.generated / tally.rolloutCpuMs, base.generated / base.rolloutCpuMs)} | ` +
          `${fmt(tally.envSteps / seconds)} | ${ratio(tally.envSteps / tally.rolloutCpuMs, base.envSteps / base.rolloutCpuMs)} | ` +
          `${fmt(seconds, 1)} / ${fmt(tally.rolloutCpuMs / 1000, 1)} | ${pct(tally.envMs, tally.rolloutMs)} | ${pct(tally.rolloutMs - tally.envMs, tally.rolloutMs)} |`,
      );
    }
  }

  lines.push(
    '',
    '**Budget accounting** (goal: trees ≥ 1.4× the rollouts of chains per generated token at M=2, N=2, L=1; the paper reports ~1.5×)',
    '',
    '| env | rollouts | mean turns (chains / all) | generated tokens per rollout | rollouts per 1k generated tokens | vs chains | vs its own round-0 chains | expected from turns | rollouts per tool call | vs chains | without prefix sharing: vs chains | computed tokens per rollout | without prefix sharing | ended by |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|',
  );
  for (const result of results) {
    const base = result.chains;
    const turns = base.chainTurns / base.chains;
    for (const method of ['chains', 'trees'] as const) {
      const tally = result[method];
      const perToken = (1000 * tally.rollouts) / tally.generated;
      const perToolCall = tally.rollouts / tally.toolCalls;
      lines.push(
        `| ${label(result)} | ${methodLabel(method)} | ${fmt(tally.chainTurns / tally.chains, 1)} / ${fmt(tally.turns / tally.rollouts, 1)} | ` +
          `${fmt(tally.generated / tally.rollouts, 1)} | ${fmt(perToken, 2)} | ${ratio(perToken, (1000 * base.rollouts) / base.generated)} | ` +
          `${ratio(perToken, (1000 * tally.chains) / tally.chainGenerated)} | ` +
          `${method === 'trees' ? `${fmt(expectedRatio(turns), 2)}×` : '1.00×'} | ` +
          `${tally.toolCalls > 0 ? fmt(perToolCall, 3) : 'n/a (no tool calls)'} | ${tally.toolCalls > 0 ? ratio(perToolCall, base.rollouts / base.toolCalls) : 'n/a'} | ` +
          `${ratio(tally.rollouts / tally.pathGenerated, base.rollouts / base.pathGenerated)} | ` +
          `${fmt(tally.computed / tally.rollouts)} | ${fmt(tally.sequenceTokens / tally.rollouts)} | ${stops(tally)} |`,
      );
    }
  }

  const needed = Array.from({ length: 64 }, (_, index) => index + 1).find((turns) => expectedRatio(turns) >= 1.4);
  lines.push(
    '',
    '"Vs its own round-0 chains" compares the trees with the M chains each tree started from (same sampling, so it is free of the ' +
      'difference between two sets of chains that "vs chains" carries at 8 prompts). ' +
      `Expected from turns: ${SHAPE.trees}·(1 + ${SHAPE.branches}·${SHAPE.rounds}) rollouts for ${SHAPE.trees} + ${SHAPE.trees * SHAPE.branches * SHAPE.rounds}·(1 − (T − 1)/(2T)) chains, T = the chains' mean turns ` +
      `(a branch from a uniformly drawn node of {root} ∪ non-leaf nodes shares (T − 1)/(2T) of a chain on average). ` +
      `It reaches 1.4× only from T = ${needed ?? '?'} turns and tends to 1.5× as T grows. "Without prefix sharing" counts each rollout's whole path as generated; ` +
      '"computed tokens" are those run through the model (prefill + sampled) after KV-cache sharing, against each rollout\'s whole sequence.',
  );
  lines.push(
    '',
    '**Training iteration** (ppoUpdate: 1 epoch, minibatch 8, token-level dual-clip PPO + k3 KL + entropy; reference = the same model with the adapter off)',
    '',
    '| env | rollouts | sequences | tokens (all / action) | ppoUpdate tokens/s (all / action) | gradient-step tokens/s | ppoUpdate s (wall / CPU) | generation | env | reference scoring | gradient steps | iteration s |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  );
  for (const result of results) {
    for (const method of ['chains', 'trees'] as const) {
      const tally = result[method];
      const iterationMs = tally.rolloutMs + tally.trainMs;
      const trainSeconds = tally.trainMs / 1000;
      lines.push(
        `| ${label(result)} | ${methodLabel(method)} | ${tally.trainedSequences} | ${fmt(tally.trainedTokens)} / ${fmt(tally.trainedActionTokens)} | ` +
          `${fmt(tally.trainedTokens / trainSeconds)} / ${fmt(tally.trainedActionTokens / trainSeconds)} | ${fmt(tally.trainedTokens / (tally.gradientMs / 1000))} | ` +
          `${fmt(trainSeconds, 1)} / ${fmt(tally.trainCpuMs / 1000, 1)} | ` +
          `${pct(tally.rolloutMs - tally.envMs, iterationMs)} | ${pct(tally.envMs, iterationMs)} | ${pct(tally.referenceMs, iterationMs)} | ` +
          `${pct(tally.gradientMs, iterationMs)} | ${fmt(iterationMs / 1000 / tally.iterations, 1)} |`,
      );
    }
  }
  lines.push(
    '',
    `Reference scoring of the trees batch, all rows in one forward as ppoUpdate does it, against the same rows in minibatches of ${MINIBATCH}: ` +
      results
        .map((result) => {
          const tally = result.trees;
          const oneBatch = tally.chunkedReferenceTokens / (tally.oneBatchReferenceMs / 1000);
          const chunked = tally.chunkedReferenceTokens / (tally.chunkedReferenceMs / 1000);
          return `${label(result)} ${fmt(oneBatch)} vs ${fmt(chunked)} tokens/s (${ratio(chunked, oneBatch)})`;
        })
        .join('; ') +
      '.',
  );
  const skipped = results.flatMap((result) =>
    (['chains', 'trees'] as const)
      .filter((method) => result[method].skippedUpdates.length > 0)
      .map((method) => `${label(result)} ${method}: ${result[method].skippedUpdates.join(', ')}`),
  );
  if (skipped.length > 0) {
    lines.push(
      '',
      `Updates not run (beyond what a wasm forward holds in its 4 GB heap; training columns then cover the rest): ${skipped.join('; ')}.`,
    );
  }
  const ties = results.flatMap((result) =>
    (['chains', 'trees'] as const)
      .filter((method) => result[method].zeroAdvantageUpdates > 0)
      .map(
        (method) =>
          `${label(result)} ${method}: ${result[method].zeroAdvantageUpdates} of ${result[method].iterations}`,
      ),
  );
  if (ties.length > 0) {
    lines.push(
      '',
      `Updates whose advantages were all 0 (every group tied; the trainers would skip them, measured here anyway): ${ties.join('; ')}.`,
    );
  }
  return lines;
}
