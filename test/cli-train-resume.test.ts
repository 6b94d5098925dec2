import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ByteTokenizer, LanguageModel, saveCheckpoint, testConfig } from '@turngym/lm';
import { assertCliBuilt, CLI, REPO_ROOT, runBuiltCli, type CliResult } from './helpers/run-built-cli';

/**
 * Starts `turngym train …` and SIGKILLs it as soon as the run directory shows its `nth` checkpoint being written (a
 * `.checkpoint-tmp-*` directory appears): the kill lands while that checkpoint is half-written. Should the poll miss
 * the write (a loaded machine), it kills once the checkpoint is in place, before the process ends.
 */
function killDuringCheckpoint(args: readonly string[], runDir: string, nth: number): Promise<CliResult> {
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
    const writes = new Set<string>();
    const saved = (): number => {
      try {
        return (
          JSON.parse(readFileSync(join(runDir, 'checkpoint', 'checkpoint.json'), 'utf8')) as { iteration: number }
        ).iteration;
      } catch {
        return -1;
      }
    };
    const poll = (): void => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const names = existsSync(runDir) ? readdirSync(runDir) : [];
      for (const name of names) if (name.startsWith('.checkpoint-tmp-')) writes.add(name);
      if (writes.size >= nth || saved() >= nth - 1) child.kill('SIGKILL');
      else setImmediate(poll);
    };
    poll();
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** What must not depend on a kill and a resume: the metrics rows less their times, the rollouts less theirs. */
function runRecord(runDir: string): { metrics: unknown[]; trajectories: unknown[]; adapter: string } {
  const timeless = (line: string): unknown =>
    JSON.parse(line, (key, value: unknown) =>
      key.startsWith('time/') ||
      key.endsWith('per_second') ||
      key === 'charts/SPS' ||
      key === 'startedAt' ||
      key === 'wallMs'
        ? undefined
        : value,
    );
  const lines = (file: string): string[] => readFileSync(join(runDir, file), 'utf8').split('\n').filter(Boolean);
  return {
    metrics: lines('metrics.jsonl').map(timeless),
    trajectories: lines('trajectories.jsonl').map(timeless),
    adapter: readFileSync(join(runDir, 'checkpoint', 'adapter', 'adapter_model.safetensors')).toString('base64'),
  };
}

// An outside checker's kill -9 in the middle of a checkpoint write, then the resume the README gives: the same
// command. A guard: the trainer kit's atomic checkpoint is what makes it pass (tested in @turngym/rl); this holds
// the command line to it.
describe('turngym train killed with SIGKILL while writing a checkpoint, then run again', () => {
  let root: string;
  let checkpoint: string;
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'turngym-cli-train-resume-'));
    checkpoint = join(root, 'base');
    const model = LanguageModel.create(testConfig({ maxPositions: 256 }), { seed: 2, tokenizer: new ByteTokenizer() });
    await saveCheckpoint(model, checkpoint);
    model.dispose();
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  const tiny = (env: string) => [
    '--env',
    env,
    '--options',
    '{"difficulties":[1],"kinds":["arithmetic"],"maxTurns":3}',
    '--backend',
    'wasm',
    '--set',
    'maxActionTokens=6',
    '--set',
    'evalEpisodes=2',
    '--set',
    'promptsPerIteration=2',
    '--iterations',
    '2',
    '--quiet',
    '--json',
  ];

  // CCAPO's rows carry its history store's counts (`stdb/edges`, `stdb/episodes`, …): equal rows mean the store was
  // the checkpoint's, not the killed process's later batches.
  it.each([
    ['grpo', 'turngym/math-thought-v1', []],
    ['ccapo', 'turngym/math-thought-calc-v1', ['--set', 'groupSize=2']],
  ])(
    '%s resumes from the last whole checkpoint and ends as a run never killed',
    async (algorithm, env, extra) => {
      const args = (runDir: string) => [
        algorithm,
        ...tiny(env),
        ...extra,
        '--checkpoint',
        checkpoint,
        '--run-dir',
        runDir,
      ];
      const clean = join(root, `${algorithm}-clean`);
      expect((await runBuiltCli(['train', ...args(clean)])).code).toBe(0);

      const killed = join(root, `${algorithm}-killed`);
      // The second checkpoint: the first is whole, the second half-written (or just renamed into place).
      const stopped = await killDuringCheckpoint(args(killed), killed, 2);
      expect(stopped.code).toBeNull(); // killed, not finished
      const resumed = await runBuiltCli(['train', ...args(killed)]);
      expect({ code: resumed.code, stderr: resumed.stderr }).toMatchObject({ code: 0 });
      expect(JSON.parse(resumed.stdout)).toMatchObject({ iterations: 2 });
      expect(runRecord(killed)).toEqual(runRecord(clean));
      // No remains of the killed write, and no lock left behind.
      expect(readdirSync(killed).filter((name) => name.startsWith('.'))).toEqual([]);
    },
    90_000,
  );
});
