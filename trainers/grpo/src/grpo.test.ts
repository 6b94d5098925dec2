import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from '@turngym/core';
import { ByteTokenizer, LanguageModel, saveCheckpoint, testConfig, useBackend, isBackendAvailable } from '@turngym/lm';
import { readTrajectories } from '@turngym/rl';
import { DigitEnv } from '../../../packages/rl/src/__fixtures__/digit-env';
import { trainGrpo, type GrpoArgs } from './grpo';

// A smoke test with a tiny budget (CleanRL's practice): the loop runs end to end, writes what it promises,
// and a stopped run resumes exactly where it stopped. Learning itself is shown by the benchmark runs.
describe('trainGrpo', () => {
  let dir: string;
  let checkpoint: string;
  // A test env whose rewards vary under an untrained policy (0, 0.2 or 1), so groups are not tied.
  const registry = new Registry();
  registry.register({ id: 'test/digit-v1', entryPoint: () => new DigitEnv({ maxTurns: 3, partialCredit: true }) });

  beforeAll(async () => {
    await useBackend(isBackendAvailable('wasm') ? 'wasm' : 'cpu');
    dir = await mkdtemp(join(tmpdir(), 'turngym-grpo-'));
    checkpoint = join(dir, 'base');
    const model = LanguageModel.create(testConfig({ maxPositions: 256 }), { seed: 3, tokenizer: new ByteTokenizer() });
    await saveCheckpoint(model, checkpoint);
    model.dispose();
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const args = (runDir: string, overrides: Partial<GrpoArgs> = {}): Partial<GrpoArgs> => ({
    envId: 'test/digit-v1',
    checkpoint,
    backend: isBackendAvailable('wasm') ? 'wasm' : 'cpu',
    runDir,
    seed: 5,
    iterations: 3,
    promptsPerIteration: 2,
    groupSize: 3,
    maxActionTokens: 6,
    maxRolloutTokens: 18,
    minibatchSize: 3,
    evalEvery: 2,
    evalEpisodes: 3,
    trajectoriesEvery: 1,
    quiet: true,
    ...overrides,
  });

  async function metrics(runDir: string): Promise<Record<string, number>[]> {
    const text = await readFile(join(runDir, 'metrics.jsonl'), 'utf8');
    return text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, number>);
  }

  it('logs CleanRL metrics per iteration, evaluates, saves trajectories and a checkpoint', async () => {
    const runDir = join(dir, 'run-a');
    const result = await trainGrpo(args(runDir), { registry });
    result.model.dispose();
    expect(result.iterations).toBe(3);
    const rows = await metrics(runDir);
    expect(rows.map((row) => row.iteration)).toEqual([0, 1, 2]);
    for (const row of rows) {
      for (const name of ['charts/episodic_return', 'charts/SPS', 'budget/generated_tokens', 'time/rollout_s'])
        expect(Number.isFinite(row[name])).toBe(true);
    }
    expect(rows.some((row) => Number.isFinite(row['losses/policy_loss']))).toBe(true);
    // Evaluation at iteration 1 (every 2) and at the end.
    expect(rows.map((row) => 'eval/success_rate' in row)).toEqual([false, true, true]);
    expect(rows.at(-1)!['budget/generated_tokens']).toBe(result.generatedTokens);
    const trajectories = await readTrajectories(join(runDir, 'trajectories.jsonl'));
    expect(trajectories).toHaveLength(3 * 2 * 3);
    expect(trajectories[0]!.id.startsWith('it0/')).toBe(true);
  });

  it('resumes a stopped run where it stopped: the same metrics as a run that never stopped', async () => {
    const whole = join(dir, 'run-whole');
    (await trainGrpo(args(whole), { registry })).model.dispose();
    const split = join(dir, 'run-split');
    (await trainGrpo(args(split, { iterations: 2 }), { registry })).model.dispose();
    const resumed = await trainGrpo(args(split), { registry });
    resumed.model.dispose();
    const [a, b] = [await metrics(whole), await metrics(split)];
    expect(b.map((row) => row.iteration)).toEqual([0, 1, 2]);
    // The policy moved in each iteration, so equality below needs the adapter and Adam state restored.
    expect(a.every((row) => Number.isFinite(row['losses/policy_loss']))).toBe(true);
    const comparable = (row: Record<string, number>) =>
      Object.fromEntries(
        Object.entries(row).filter(
          ([name]) => !name.startsWith('time/') && !name.includes('per_second') && name !== 'charts/SPS',
        ),
      );
    expect(b.map(comparable)).toEqual(a.map(comparable));
  });

  it('continues a copy of a run in another directory as the run itself (the learning runner extends budgets so)', async () => {
    const first = join(dir, 'run-first');
    (await trainGrpo(args(first, { iterations: 2 }), { registry })).model.dispose();
    const copy = join(dir, 'run-copy');
    await cp(first, copy, { recursive: true });
    (await trainGrpo(args(copy), { registry })).model.dispose();
    const whole = join(dir, 'run-whole-2');
    (await trainGrpo(args(whole), { registry })).model.dispose();
    const comparable = (row: Record<string, number>) =>
      Object.fromEntries(
        Object.entries(row).filter(
          ([name]) => !name.startsWith('time/') && !name.includes('per_second') && name !== 'charts/SPS',
        ),
      );
    expect((await metrics(copy)).map(comparable)).toEqual((await metrics(whole)).map(comparable));
  });

  it('stops at the token budget', async () => {
    const runDir = join(dir, 'run-budget');
    const result = await trainGrpo(args(runDir, { iterations: 10, tokenBudget: 1 }), { registry });
    result.model.dispose();
    expect(result.iterations).toBe(1);
    expect((await metrics(runDir)).at(-1)!['eval/success_rate']).toBeDefined();
  });

  it('rejects bad arguments naming the field', async () => {
    await expect(trainGrpo({ ...args(join(dir, 'bad')), groupSize: 1 })).rejects.toThrow(/groupSize/);
    await expect(trainGrpo({ ...args(join(dir, 'bad')), ratio: 'tokens' as never })).rejects.toThrow(/ratio/);
  });
});
