import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ByteTokenizer, LanguageModel, saveCheckpoint, testConfig } from '@turngym/lm';
import { errorLines, runBuiltCli } from './helpers/run-built-cli';

// `turngym train ccapo|gigpo` and `turngym stdb` end to end through the built CLI on the math env's calculator
// variant, with a test-sized checkpoint and a tiny budget.
describe('turngym train ccapo|gigpo and turngym stdb', () => {
  let root: string;
  let checkpoint: string;
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'turngym-cli-ccapo-'));
    checkpoint = join(root, 'base');
    const model = LanguageModel.create(testConfig({ maxPositions: 256 }), { seed: 2, tokenizer: new ByteTokenizer() });
    await saveCheckpoint(model, checkpoint);
    model.dispose();
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  const train = (algorithm: string, runDir: string) =>
    runBuiltCli([
      'train',
      algorithm,
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
  const metrics = (runDir: string) =>
    readFileSync(join(runDir, 'metrics.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, number>);

  it('trains CCAPO, and the store it wrote can be inspected: stats, top edges, an anchor', async () => {
    const runDir = join(root, 'ccapo');
    const trained = await train('ccapo', runDir);
    expect(errorLines(trained.stderr)).toEqual([]);
    expect(trained.code).toBe(0);
    expect((JSON.parse(trained.stdout) as { iterations: number }).iterations).toBe(2);
    expect(metrics(runDir).map((row) => row['stdb/episodes'])).toEqual([4, 8]);

    const db = join(runDir, 'stdb.sqlite');
    const stats = await runBuiltCli(['stdb', 'stats', db, '--json']);
    expect(stats.code).toBe(0);
    expect(JSON.parse(stats.stdout)).toMatchObject({ episodes: 8 });
    const top = await runBuiltCli(['stdb', 'top-edges', db, '--limit', '3']);
    expect(top.code).toBe(0);
    expect(top.stdout.split('\n')[0]).toMatch(/^anchor\s+fingerprint\s+N_total\s+N_succ\s+d_goal\s+I\s+C\s+D\s+Q/);
    // Every episode starts at the anchor ^|^ (the start, no previous action).
    const anchor = await runBuiltCli(['stdb', 'anchor', '^|^', db, '--json']);
    expect(anchor.code).toBe(0);
    const edges = JSON.parse(anchor.stdout) as { anchor: string; total: number }[];
    expect(edges.reduce((sum, edge) => sum + edge.total, 0)).toBe(8);
    const missing = await runBuiltCli(['stdb', 'stats', join(root, 'none.sqlite')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/no history store/);
  }, 120_000);

  it('trains GiGPO and logs the share of singleton step groups', async () => {
    const runDir = join(root, 'gigpo');
    const trained = await train('gigpo', runDir);
    expect(errorLines(trained.stderr)).toEqual([]);
    expect(trained.code).toBe(0);
    for (const row of metrics(runDir)) expect(row['gigpo/singleton_group_share']).toBeGreaterThanOrEqual(0);
  }, 120_000);
});
