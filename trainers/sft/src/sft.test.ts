import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from '@turngym/core';
import { isBackendAvailable, loadCheckpoint, testConfig, useBackend } from '@turngym/lm';
import { ChatTurnFormat, evaluatePolicy } from '@turngym/rl';
import type { Agent } from '@turngym/spec';
import { DigitEnv } from '../../../packages/rl/src/__fixtures__/digit-env';
import { trainSftWarmStart } from './sft';

/** The test env's expert: reads the digit from "Say 7." and says it in its own format. */
function digitExpert(): Agent<string, string> {
  let digit = '';
  return {
    name: 'scripted',
    start: async ({ observation }) => {
      digit = /Say (\d)/.exec(observation)![1]!;
    },
    act: async () => `It is ${digit}.`,
  };
}

// A smoke test with a tiny budget: the warm start clones the expert's action format well enough to solve
// held-out episodes that the untrained model does not, and writes a checkpoint that loads. (The math and wiki warm starts are benchmarks.)
describe('trainSftWarmStart', () => {
  let dir: string;
  const registry = new Registry();
  registry.register({
    id: 'test/digit-v1',
    entryPoint: () => new DigitEnv({ maxTurns: 2, fixedDigit: 7 }),
    agents: { scripted: () => digitExpert() },
  });
  beforeAll(async () => {
    await useBackend(isBackendAvailable('wasm') ? 'wasm' : 'cpu');
    dir = await mkdtemp(join(tmpdir(), 'turngym-sft-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('clones the expert into a checkpoint that solves held-out episodes', async () => {
    const out = join(dir, 'warm');
    const base = join(dir, 'base');
    // An untrained test-sized model as the starting checkpoint.
    const { LanguageModel, ByteTokenizer, saveCheckpoint } = await import('@turngym/lm');
    const untrained = LanguageModel.create(testConfig({ maxPositions: 128 }), {
      seed: 1,
      tokenizer: new ByteTokenizer(),
    });
    await saveCheckpoint(untrained, base);
    const before = await evaluatePolicy({
      policy: { model: untrained, format: new ChatTurnFormat(untrained.tokenizer) },
      makeEnv: async () => new DigitEnv({ maxTurns: 2, fixedDigit: 7 }),
      envId: 'test/digit-v1',
      seeds: Array.from({ length: 40 }, (_, i) => i),
      options: { maxActionTokens: 12 },
    });
    expect(before.successRate).toBeLessThan(0.3);
    untrained.dispose();
    const common = {
      envId: 'test/digit-v1',
      backend: 'wasm' as const,
      seed: 2,
      evalEpisodes: 40,
      maxActionTokens: 12,
      quiet: true,
    };
    const result = await trainSftWarmStart(
      { ...common, checkpoint: base, out, episodes: 32, epochs: 8, batchSize: 8, learningRate: 1e-2, evalEvery: 4 },
      { registry },
    );
    expect(result.episodes).toBe(32);
    expect(result.dropped).toBe(0);
    expect(result.actionAccuracy).toBeGreaterThan(0.8);
    expect(result.testSuccessRate).toBeGreaterThan(0.9);
    result.model.dispose();
    expect(existsSync(join(out, 'model.safetensors'))).toBe(true);
    const reloaded = await loadCheckpoint(out);
    expect(reloaded.config.hiddenSize).toBe(32);
    reloaded.dispose();
    const metrics = (await readFile(join(out, 'run', 'metrics.jsonl'), 'utf8')).trim().split('\n');
    // A row per epoch as it ends; epochs 4 and 8 (iterations 3 and 7) carry an evaluation, the last the result's.
    const rows = metrics.map((line) => JSON.parse(line) as Record<string, number>);
    expect(rows.map((row) => row.iteration)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(rows.flatMap((row) => ('eval/success_rate' in row ? [row.iteration] : []))).toEqual([3, 7]);
    expect(rows.at(-1)!['eval/success_rate']).toBe(result.testSuccessRate);
  }, 180_000);

  it('refuses bad test options before training, and a run that failed before its first epoch leaves the directory usable', async () => {
    const { LanguageModel, ByteTokenizer, saveCheckpoint } = await import('@turngym/lm');
    const base = join(dir, 'base-small');
    const untrained = LanguageModel.create(testConfig({ maxPositions: 128 }), {
      seed: 1,
      tokenizer: new ByteTokenizer(),
    });
    await saveCheckpoint(untrained, base);
    untrained.dispose();
    const strict = new Registry();
    const wrongExpert = (): Agent<string, string> => ({
      name: 'scripted',
      start: async () => {},
      act: async () => 'It is 3.',
    });
    for (const [id, expert] of [
      ['test/digit-v1', digitExpert],
      ['test/digit-wrong-v1', wrongExpert],
    ] as const) {
      strict.register({
        id,
        entryPoint: () => new DigitEnv({ maxTurns: 2, fixedDigit: 7 }),
        optionsSchema: { type: 'object', additionalProperties: false, required: [], properties: {} },
        agents: { scripted: expert },
      });
    }
    const out = join(dir, 'retry');
    const args = {
      backend: 'wasm' as const,
      checkpoint: base,
      out,
      episodes: 4,
      epochs: 1,
      evalEpisodes: 2,
      quiet: true,
    };
    // The test options were first used by the evaluation after the last epoch, after the checkpoint was written.
    await expect(
      trainSftWarmStart({ ...args, envId: 'test/digit-v1', testEnvOptions: { zzz: 1 } }, { registry: strict }),
    ).rejects.toThrow(/zzz/);
    expect(existsSync(out)).toBe(false);
    // An expert that solves nothing: no data, no epoch. The run directory holds no run afterwards, and no lock.
    await expect(trainSftWarmStart({ ...args, envId: 'test/digit-wrong-v1' }, { registry: strict })).rejects.toThrow(
      /no trajectories/,
    );
    expect(existsSync(join(out, 'run', 'run.json'))).toBe(false);
    expect(existsSync(join(out, 'run', '.lock'))).toBe(false);
    // So the corrected command runs, instead of being refused as another run.
    const result = await trainSftWarmStart({ ...args, envId: 'test/digit-v1' }, { registry: strict });
    result.model.dispose();
    expect(JSON.parse(await readFile(join(out, 'run', 'run.json'), 'utf8')).envId).toBe('test/digit-v1');
    expect(existsSync(join(out, 'run', '.lock'))).toBe(false);
  }, 120_000);

  it('names the field of a bad argument', async () => {
    await expect(
      trainSftWarmStart({ envId: 'test/digit-v1', out: join(dir, 'x'), epochs: 0 }, { registry }),
    ).rejects.toThrow(/epochs/);
    // A chance, not a percentage.
    await expect(
      trainSftWarmStart({ envId: 'test/digit-v1', out: join(dir, 'x'), disturbance: 30 }, { registry }),
    ).rejects.toThrow(/disturbance/);
  });
});
