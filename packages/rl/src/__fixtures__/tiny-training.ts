import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { SeededRng } from '@turngym/core';
import {
  ByteTokenizer,
  initializeWeights,
  LanguageModel,
  testConfig,
  tokenCrossEntropyLoss,
  Trainer,
  type NamedTensors,
  type TrainerOptions,
} from '@turngym/lm';
import type { CheckpointStore } from '../checkpoint-store';
import { FileStore } from '../file-store';
import { JsonStatisticsStore } from '../json-statistics-store';
import type { RunDirectory } from '../run-directory';
import { saveTrainingCheckpoint } from '../training-checkpoint';
import type { Trajectory } from '../trajectory';
import { fixtureTrajectory } from './trajectory-fixture';

/**
 * A stand-in for a trainer's main loop, small enough for tests: each iteration draws its batch from a
 * seeded RNG (whose state the checkpoint carries, like a real trainer's), takes one LoRA step, writes
 * two trajectories and a metrics row, then checkpoints.
 */

const TEXT = 'the cat sat on the mat. the dog sat on the log. a bird sang in the tree. '.repeat(3);
const tokenizer = new ByteTokenizer();
const TOKENS = tokenizer.encode(TEXT);
export const TRAINER_OPTIONS: Partial<TrainerOptions> = { adapter: 'policy', learningRate: 2e-2, maxGradNorm: 1 };
export const RUN_INFO = { algorithm: 'test-sft', envId: 'test/text-v0', seed: 7, args: { iterations: 8, lr: 2e-2 } };

export interface TinySetup {
  readonly model: LanguageModel;
  readonly trainer: Trainer;
}

/** The same model a fresh run and a resumed one start from: a fixed base plus a new adapter. */
export function tinySetup(): TinySetup {
  const config = testConfig();
  const model = LanguageModel.fromTensors(config, initializeWeights(config, 11, 0.2), tokenizer);
  model.addAdapter('policy', { rank: 2, alpha: 4 });
  return { model, trainer: new Trainer(model, TRAINER_OPTIONS) };
}

/** Per-key counts a search would keep: how often a key was drawn and the summed loss there. */
export type KeyStatistics = { readonly visits: number; readonly lossSum: number };

/**
 * What a multi-trainer run keeps besides the policy: a second adapter with its own Adam (`critic`), a
 * statistics store, and a file some other code appends to (a stand-in for a database), in the run directory.
 */
export interface AttachedSetup {
  readonly critic: Trainer;
  readonly statistics: JsonStatisticsStore<KeyStatistics>;
  readonly eventsPath: string;
  readonly events: FileStore;
}

export const CRITIC_OPTIONS: Partial<TrainerOptions> = { adapter: 'critic', learningRate: 1e-2, maxGradNorm: 1 };

export function attachedSetup(setup: TinySetup, runPath: string): AttachedSetup {
  setup.model.addAdapter('critic', { rank: 2, alpha: 4 });
  const eventsPath = join(runPath, 'events.log');
  return {
    critic: new Trainer(setup.model, CRITIC_OPTIONS),
    statistics: new JsonStatisticsStore<KeyStatistics>(),
    eventsPath,
    events: new FileStore(eventsPath),
  };
}

export interface LoopState {
  rng: SeededRng;
  globalStep: number;
}

export function freshLoopState(): LoopState {
  return { rng: new SeededRng(RUN_INFO.seed), globalStep: 0 };
}

export function loopStateFromExtra(extra: unknown): LoopState {
  const { rng, globalStep } = extra as { rng: number[]; globalStep: number };
  return { rng: SeededRng.fromState(rng), globalStep };
}

function trajectory(iteration: number, index: number, tokens: number[], reward: number): Trajectory {
  return fixtureTrajectory({
    episodeId: `${iteration}-${index}`,
    envId: RUN_INFO.envId,
    seed: iteration,
    group: 0,
    tokens,
    segments: [
      { kind: 'prompt', tokenCount: 4 },
      { kind: 'action', tokenCount: tokens.length - 4 },
    ],
    logprobs: tokens.map((_, position) => (position < 4 ? 0 : -1)),
    totalReward: reward,
    generatedTokens: tokens.length - 4,
    computedTokens: tokens.length,
  });
}

export interface IterationHooks {
  /** Runs after an iteration's metrics row is written and before its checkpoint (where a kill goes). */
  readonly afterMetrics?: (iteration: number) => Promise<void> | void;
  /** Runs inside a save, after the stores' snapshots are written and before the manifest (attached runs). */
  readonly duringSave?: (iteration: number) => Promise<void> | void;
}

/** Runs iterations `from` … `to - 1`, checkpointing after each. */
export async function runIterations(
  run: RunDirectory,
  setup: TinySetup,
  state: LoopState,
  from: number,
  to: number,
  hooks: IterationHooks = {},
  attached?: AttachedSetup,
): Promise<void> {
  const draw = () =>
    [0, 1].map(() => {
      const start = state.rng.int(0, TOKENS.length - 16);
      return { tokens: TOKENS.slice(start, start + 16) };
    });
  for (let iteration = from; iteration < to; iteration++) {
    const rows = draw();
    const { loss, gradNorm } = await setup.trainer.step(rows, tokenCrossEntropyLoss);
    state.globalStep += rows.length;
    if (attached) {
      const critic = await attached.critic.step(draw(), tokenCrossEntropyLoss);
      attached.statistics.update(`key-${state.rng.int(0, 2)}`, (known) => ({
        visits: (known?.visits ?? 0) + 1,
        lossSum: (known?.lossSum ?? 0) + critic.loss,
      }));
      appendFileSync(attached.eventsPath, `${iteration} ${loss} ${critic.loss}\n`);
    }
    await run.appendTrajectories(rows.map((row, index) => trajectory(iteration, index, row.tokens, -loss)));
    await run.appendMetrics({
      iteration,
      global_step: state.globalStep,
      'charts/episodic_return': -loss,
      'losses/loss': loss,
      'losses/grad_norm': gradNorm,
    });
    await hooks.afterMetrics?.(iteration);
    await saveTrainingCheckpoint(run, {
      iteration,
      model: setup.model,
      adapter: 'policy',
      trainer: setup.trainer,
      extra: { rng: [...state.rng.state()], globalStep: state.globalStep },
      ...(attached ? attachedCheckpoint(attached, () => hooks.duringSave?.(iteration)) : {}),
    });
  }
}

/**
 * The trainers and stores of an attached run as a save or a resume takes them. `duringSave` runs after the
 * last store's snapshot ("statistics" sorts after "events"): the temporary holds every file but the manifest.
 */
export function attachedCheckpoint(
  attached: AttachedSetup,
  duringSave: () => Promise<void> | void = () => undefined,
): { trainers: Record<string, Trainer>; stores: Record<string, CheckpointStore> } {
  const statistics: CheckpointStore = {
    save: async (dir) => {
      await attached.statistics.save(dir);
      await duringSave();
    },
    load: (dir) => attached.statistics.load(dir),
    reset: () => attached.statistics.reset(),
  };
  return { trainers: { critic: attached.critic }, stores: { events: attached.events, statistics } };
}

export async function adapterWeights(model: LanguageModel): Promise<NamedTensors> {
  return model.adapter('policy').toTensors();
}
