import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from '@turngym/core';
import { ByteTokenizer, isBackendAvailable, LanguageModel, saveCheckpoint, testConfig, useBackend } from '@turngym/lm';
import type { TrainerArgs } from '../trainer-kit/trainer-args';
import { DigitEnv } from './digit-env';

/**
 * What the runner's and the trainers' smoke tests share (CleanRL's practice: a tiny budget, the loop end to
 * end): a test env whose rewards vary under an untrained policy (0, 0.2 or 1, so groups are not tied), a
 * tiny untrained checkpoint, and arguments small enough for seconds per run.
 */
export function digitRegistry(): Registry {
  const registry = new Registry();
  registry.register({ id: 'test/digit-v1', entryPoint: () => new DigitEnv({ maxTurns: 3, partialCredit: true }) });
  return registry;
}

export const SMOKE_BACKEND = isBackendAvailable('wasm') ? 'wasm' : 'cpu';

/** Selects the backend and writes a tiny untrained checkpoint to `path`. */
export async function tinyCheckpoint(path: string): Promise<string> {
  await useBackend(SMOKE_BACKEND);
  const model = LanguageModel.create(testConfig({ maxPositions: 256 }), { seed: 3, tokenizer: new ByteTokenizer() });
  await saveCheckpoint(model, path);
  model.dispose();
  return path;
}

/** Three iterations of two prompts, evaluated at iteration 1 and at the end, every rollout saved. */
export function smokeArgs(checkpoint: string, runDir: string): Partial<TrainerArgs> {
  return {
    envId: 'test/digit-v1',
    checkpoint,
    backend: SMOKE_BACKEND,
    runDir,
    seed: 5,
    iterations: 3,
    promptsPerIteration: 2,
    maxActionTokens: 6,
    maxRolloutTokens: 18,
    minibatchSize: 3,
    evalEvery: 2,
    evalEpisodes: 3,
    trajectoriesEvery: 1,
    quiet: true,
  };
}

/** The rows of a run's metrics.jsonl. */
export async function readMetricsRows(runDir: string): Promise<Record<string, number>[]> {
  const text = await readFile(join(runDir, 'metrics.jsonl'), 'utf8');
  return text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, number>);
}

export interface SmokeSetup {
  /** The test file's temporary directory (set once `beforeAll` ran). */
  readonly dir: string;
  /** The tiny checkpoint in it. */
  readonly checkpoint: string;
  /** `smokeArgs` for a run in `<dir>/<name>`. */
  args(name: string): Partial<TrainerArgs>;
}

/** Registers the `beforeAll`/`afterAll` of a smoke test file: a temporary directory with a tiny checkpoint. */
export function smokeSetup(prefix: string): SmokeSetup {
  const setup = {
    dir: '',
    checkpoint: '',
    args: (name: string) => smokeArgs(setup.checkpoint, join(setup.dir, name)),
  };
  beforeAll(async () => {
    setup.dir = await mkdtemp(join(tmpdir(), prefix));
    setup.checkpoint = await tinyCheckpoint(join(setup.dir, 'base'));
  });
  afterAll(() => rm(setup.dir, { recursive: true, force: true }));
  return setup;
}
