import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ByteTokenizer, LanguageModel, saveCheckpoint, testConfig } from '@turngym/lm';
import { errorLines, runBuiltCli } from './helpers/run-built-cli';

// `turngym train` end to end through the built CLI on a registered env, with a test-sized checkpoint and a
// tiny budget; then `turngym report` on the run. Learning itself is shown by benchmarks/learning.
describe('turngym train', () => {
  let root: string;
  let checkpoint: string;
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'turngym-cli-train-'));
    checkpoint = join(root, 'base');
    const model = LanguageModel.create(testConfig({ maxPositions: 256 }), { seed: 2, tokenizer: new ByteTokenizer() });
    await saveCheckpoint(model, checkpoint);
    model.dispose();
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  const common = (runDir: string) => [
    '--env',
    'turngym/math-thought-v1',
    '--options',
    '{"difficulties":[1],"kinds":["arithmetic"],"maxTurns":2}',
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
    'maxActionTokens=6',
    '--set',
    'evalEpisodes=2',
    '--quiet',
    '--json',
  ];

  it.each(['grpo', 'tree-grpo'])(
    'trains with %s, then reports the run',
    async (algorithm) => {
      const runDir = join(root, algorithm);
      const trained = await runBuiltCli(['train', algorithm, ...common(runDir)]);
      expect(errorLines(trained.stderr)).toEqual([]);
      expect(trained.code).toBe(0);
      const summary = JSON.parse(trained.stdout) as { iterations: number; generatedTokens: number };
      expect(summary.iterations).toBe(2);
      expect(summary.generatedTokens).toBeGreaterThan(0);
      const info = JSON.parse(readFileSync(join(runDir, 'run.json'), 'utf8')) as { algorithm: string };
      expect(info.algorithm).toBe(algorithm);
      expect(existsSync(join(runDir, 'checkpoint', 'checkpoint.json'))).toBe(true);
      const out = join(root, `${algorithm}.html`);
      const reported = await runBuiltCli(['report', runDir, '--out', out]);
      expect(reported.code).toBe(0);
      expect(readFileSync(out, 'utf8')).toContain('charts/episodic_return');
    },
    120_000,
  );

  it('trains alphazero on the seller commander (no language model), then reports the run', async () => {
    const runDir = join(root, 'alphazero');
    const trained = await runBuiltCli([
      'train',
      'alphazero',
      '--env',
      'turngym/seller-commander-v1',
      '--run-dir',
      runDir,
      '--iterations',
      '2',
      '--set',
      'episodesPerIteration=2',
      '--set',
      'evalEpisodes=2',
      '--quiet',
      '--json',
    ]);
    expect(errorLines(trained.stderr)).toEqual([]);
    expect(trained.code).toBe(0);
    const summary = JSON.parse(trained.stdout) as { iterations: number; globalStep: number };
    expect(summary.iterations).toBe(2);
    expect(summary.globalStep).toBeGreaterThan(0);
    expect(existsSync(join(runDir, 'checkpoint', 'stores', 'network', 'network.safetensors'))).toBe(true);
    const reported = await runBuiltCli(['report', runDir, '--out', join(root, 'alphazero.html')]);
    expect(reported.code).toBe(0);
  }, 120_000);

  it('names the argument a bad value is for, and an unknown algorithm, with exit 2', async () => {
    const bad = await runBuiltCli(['train', 'grpo', ...common(join(root, 'bad')), '--set', 'groupSize=1']);
    expect(bad.code).toBe(2);
    expect(errorLines(bad.stderr).join('\n')).toMatch(/groupSize/);
    const unknown = await runBuiltCli(['train', 'ppo', ...common(join(root, 'bad2'))]);
    expect(unknown.code).toBe(2);
    expect(errorLines(unknown.stderr).join('\n')).toMatch(/Unknown algorithm "ppo"/);
  });
});
