import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ByteTokenizer, LanguageModel, saveCheckpoint, testConfig } from '@turngym/lm';
import { assertCliBuilt, CLI, REPO_ROOT, type CliResult } from './helpers/run-built-cli';

/**
 * Starts `turngym train …` (far more iterations than it can finish here), waits until `ready` exists (the run
 * has got going), sends `signal`, and resolves with what the command did. Not a timing test: the signal
 * arrives after an event the run made, and a run this long cannot end by itself first.
 */
function trainUntil(args: readonly string[], ready: string, signal: NodeJS.Signals): Promise<CliResult> {
  assertCliBuilt();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'train', ...args], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const poll = setInterval(() => {
      if (existsSync(ready) && readFileSync(ready, 'utf8').includes('\n')) {
        clearInterval(poll);
        child.kill(signal);
      }
    }, 50);
    child.on('error', reject);
    child.on('close', (code) => {
      clearInterval(poll);
      resolve({ code, stdout, stderr });
    });
  });
}

function metricRows(runDir: string): number {
  return readFileSync(join(runDir, 'metrics.jsonl'), 'utf8').split('\n').filter(Boolean).length;
}

// A container stop or a job scheduler sends SIGTERM, a terminal SIGINT: `turngym train` takes both alike, ends
// with the shell's code for the signal (a stopped run is not a finished one) and says how to resume.
describe('turngym train on SIGINT and SIGTERM', () => {
  let root: string;
  let checkpoint: string;
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'turngym-cli-train-signals-'));
    checkpoint = join(root, 'base');
    const model = LanguageModel.create(testConfig({ maxPositions: 256 }), { seed: 2, tokenizer: new ByteTokenizer() });
    await saveCheckpoint(model, checkpoint);
    model.dispose();
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  const math = [
    '--env',
    'turngym/math-thought-v1',
    '--options',
    '{"difficulties":[1],"kinds":["arithmetic"],"maxTurns":3}',
    '--backend',
    'wasm',
    '--set',
    'maxActionTokens=6',
    '--set',
    'evalEpisodes=2',
    '--quiet',
    '--json',
  ];

  it('grpo on SIGTERM: finishes the iteration in flight, saves it, releases the lock, says how to resume, exits 143', async () => {
    const runDir = join(root, 'grpo');
    const args = ['grpo', ...math, '--checkpoint', checkpoint, '--run-dir', runDir, '--iterations', '10000'];
    const stopped = await trainUntil(
      [...args, '--set', 'promptsPerIteration=2'],
      join(runDir, 'metrics.jsonl'),
      'SIGTERM',
    );
    expect({ code: stopped.code, stderr: stopped.stderr }).toMatchObject({ code: 143 });
    const done = metricRows(runDir);
    expect(JSON.parse(stopped.stdout)).toMatchObject({ iterations: done });
    expect(stopped.stderr).toContain('SIGTERM: finishing the iteration in flight and saving its checkpoint');
    expect(stopped.stderr).toContain(
      `interrupted (SIGTERM): ${done} iteration${done === 1 ? '' : 's'} done, checkpoint in ${runDir}; ` +
        'run the same command again to resume',
    );
    const saved = JSON.parse(readFileSync(join(runDir, 'checkpoint', 'checkpoint.json'), 'utf8')) as {
      iteration: number;
    };
    expect(saved.iteration).toBe(done - 1);
    expect(existsSync(join(runDir, '.lock'))).toBe(false);
  }, 180_000);

  it('alphazero on Ctrl-C (SIGINT): stops after the iteration in flight, exits 130 with the resume line', async () => {
    const runDir = join(root, 'alphazero');
    const args = ['alphazero', '--env', 'turngym/seller-commander-v1', '--run-dir', runDir, '--iterations', '10000'];
    const stopped = await trainUntil(
      [...args, '--set', 'episodesPerIteration=2', '--set', 'evalEpisodes=2', '--quiet', '--json'],
      join(runDir, 'metrics.jsonl'),
      'SIGINT',
    );
    expect({ code: stopped.code, stderr: stopped.stderr }).toMatchObject({ code: 130 });
    const done = metricRows(runDir);
    expect(JSON.parse(stopped.stdout)).toMatchObject({ iterations: done });
    expect(stopped.stderr).toContain(`interrupted (SIGINT): ${done} iteration`);
    expect(stopped.stderr).toContain('run the same command again to resume');
    expect(existsSync(join(runDir, '.lock'))).toBe(false);
  }, 180_000);

  // The other trainers share grpo's path (the trainer kit's loop, then the same summary): each one's Ctrl-C.
  it.each([
    ['tree-grpo', 'turngym/math-thought-v1', []],
    ['plan-act', 'turngym/math-thought-v1', ['--set', 'policies=independent']],
    ['ccapo', 'turngym/math-thought-calc-v1', ['--set', 'groupSize=2']],
    ['gigpo', 'turngym/math-thought-calc-v1', ['--set', 'groupSize=2']],
    ['self-ac', 'turngym/math-thought-calc-v1', []],
  ])(
    '%s on Ctrl-C (SIGINT): exits 130 after saving the iteration in flight',
    async (algorithm, env, extra) => {
      const runDir = join(root, algorithm);
      const args = [algorithm, ...math, '--env', env, '--checkpoint', checkpoint, '--run-dir', runDir];
      const settings = ['--iterations', '10000', '--set', 'promptsPerIteration=2', ...extra];
      const stopped = await trainUntil([...args, ...settings], join(runDir, 'metrics.jsonl'), 'SIGINT');
      expect({ code: stopped.code, stderr: stopped.stderr }).toMatchObject({ code: 130 });
      const done = metricRows(runDir);
      expect(JSON.parse(stopped.stdout)).toMatchObject({ iterations: done });
      expect(stopped.stderr).toContain(`interrupted (SIGINT): ${done} iteration`);
      expect(existsSync(join(runDir, '.lock'))).toBe(false);
    },
    180_000,
  );

  it('sft on SIGTERM: quits at once, releases its run lock, says a warm start is not resumed, exits 143', async () => {
    const out = join(root, 'sft');
    const runDir = join(out, 'run');
    const long = join(root, 'base-1k');
    const model = LanguageModel.create(testConfig({ maxPositions: 1024 }), { seed: 2, tokenizer: new ByteTokenizer() });
    await saveCheckpoint(model, long);
    model.dispose();
    const args = [
      'sft',
      '--env',
      'turngym/math-thought-v1',
      '--checkpoint',
      long,
      '--out',
      out,
      '--iterations',
      '10000',
    ];
    const settings = ['--backend', 'wasm', '--set', 'episodes=2', '--set', 'evalEpisodes=0', '--quiet', '--json'];
    const stopped = await trainUntil([...args, ...settings], join(runDir, 'metrics.jsonl'), 'SIGTERM');
    expect({ code: stopped.code, stderr: stopped.stderr }).toMatchObject({ code: 143 });
    expect(stopped.stderr).toContain(`interrupted (SIGTERM): ${out} holds the last finished epoch's checkpoint`);
    expect(existsSync(join(runDir, '.lock'))).toBe(false);
  }, 180_000);
});
