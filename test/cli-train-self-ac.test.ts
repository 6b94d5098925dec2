import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ByteTokenizer, LanguageModel, saveCheckpoint, testConfig } from '@turngym/lm';
import { errorLines, runBuiltCli } from './helpers/run-built-cli';

// `turngym train self-ac` end to end through the built CLI on the math env's calculator variant, with a
// test-sized checkpoint and a tiny budget.
describe('turngym train self-ac', () => {
  let root: string;
  let checkpoint: string;
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'turngym-cli-self-ac-'));
    checkpoint = join(root, 'base');
    const model = LanguageModel.create(testConfig({ maxPositions: 512 }), { seed: 2, tokenizer: new ByteTokenizer() });
    await saveCheckpoint(model, checkpoint);
    model.dispose();
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('trains actor and critic and logs the critic’s losses', async () => {
    const runDir = join(root, 'run');
    const trained = await runBuiltCli([
      'train',
      'self-ac',
      '--env',
      'turngym/math-thought-calc-v1',
      '--options',
      '{"difficulties":[1],"kinds":["arithmetic"],"maxTurns":3}',
      '--checkpoint',
      checkpoint,
      '--run-dir',
      runDir,
      '--iterations',
      '2',
      '--backend',
      'wasm',
      '--set',
      'promptsPerIteration=2',
      '--set',
      'groupSize=2',
      '--set',
      'maxActionTokens=6',
      '--set',
      'evalEpisodes=2',
      '--quiet',
      '--json',
    ]);
    expect(errorLines(trained.stderr)).toEqual([]);
    expect(trained.code).toBe(0);
    expect((JSON.parse(trained.stdout) as { iterations: number }).iterations).toBe(2);
    const rows = readFileSync(join(runDir, 'metrics.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, number>);
    for (const name of ['losses/value_loss', 'losses/td_1', 'losses/td_5', 'losses/policy_loss'])
      expect(rows.every((row) => Number.isFinite(row[name]))).toBe(true);
  }, 120_000);
});
