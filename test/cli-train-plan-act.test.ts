import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ByteTokenizer, LanguageModel, saveCheckpoint, testConfig } from '@turngym/lm';
import { errorLines, runBuiltCli } from './helpers/run-built-cli';

// `turngym train plan-act` end to end through the built CLI on the math env, with a test-sized checkpoint
// and a tiny budget (its own file: cli-train.test.ts is shared by the other trainers).
describe('turngym train plan-act', () => {
  let root: string;
  let checkpoint: string;
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'turngym-cli-plan-act-'));
    checkpoint = join(root, 'base');
    const model = LanguageModel.create(testConfig({ maxPositions: 256 }), { seed: 2, tokenizer: new ByteTokenizer() });
    await saveCheckpoint(model, checkpoint);
    model.dispose();
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('trains a planner and an actor with an adapter each, records the role of every turn, and reports the run', async () => {
    const runDir = join(root, 'run');
    const trained = await runBuiltCli([
      'train',
      'plan-act',
      '--env',
      'turngym/math-thought-v1',
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
      'policies=independent',
      '--set',
      'promptsPerIteration=2',
      '--set',
      'maxActionTokens=6',
      '--set',
      'evalEpisodes=2',
      '--set',
      'trajectoriesEvery=1',
      '--quiet',
      '--json',
    ]);
    expect(errorLines(trained.stderr)).toEqual([]);
    expect(trained.code).toBe(0);
    const summary = JSON.parse(trained.stdout) as { iterations: number; generatedTokens: number };
    expect(summary.iterations).toBe(2);
    expect(summary.generatedTokens).toBeGreaterThan(0);
    const info = JSON.parse(readFileSync(join(runDir, 'run.json'), 'utf8')) as { algorithm: string };
    expect(info.algorithm).toBe('plan-act');
    expect(existsSync(join(runDir, 'checkpoint', 'checkpoint.json'))).toBe(true);
    const trajectories = readFileSync(join(runDir, 'trajectories.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { steps: { role?: string }[] });
    const roles = new Set(trajectories.flatMap((t) => t.steps.map((step) => step.role)));
    expect([...roles].sort()).toEqual(['actor', 'planner']);
    const reported = await runBuiltCli(['report', runDir, '--out', join(root, 'plan-act.html')]);
    expect(reported.code).toBe(0);
  }, 120_000);
});
