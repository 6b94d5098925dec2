import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { readEpisodeRecords } from '@turngym/core';
import { spawn } from 'node:child_process';
import { assertCliBuilt, CLI, errorLines, REPO_ROOT, runBuiltCli } from './helpers/run-built-cli';

// An env whose infrastructure fails (EnvFaultError, like a crashed browser) on the seeds its options name.
const FIXTURE = join(__dirname, 'fixtures', 'faulty-env');
const ID = 'fixture/faulty-v1';

function run(args: readonly string[], faults: { faultySeeds: number[]; faultAt?: 'reset' | 'step' }) {
  return runBuiltCli([
    '--plugin',
    FIXTURE,
    'run',
    ID,
    '--agent',
    'random',
    ...args,
    '--options',
    JSON.stringify(faults),
  ]);
}

describe('turngym run when episodes fail for an infrastructure reason', () => {
  let directory: string;
  beforeAll(() => {
    directory = mkdtempSync(join(tmpdir(), 'turngym-cli-run-faults-'));
  });
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  it('records a failed episode as incomplete with its error, goes on, and prints the errored count', async () => {
    const out = join(directory, 'step-faults.jsonl');
    const result = await run(['--episodes', '5', '--out', out], { faultySeeds: [1, 3] });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^episodes\s+3$/m);
    expect(result.stdout).toMatch(/^errored\s+2\b/m);
    expect(result.stderr).toContain('warning: seed 1 errored (ENV_FAULT): the browser crashed on seed 1');
    const records = readEpisodeRecords(out).sort((a, b) => (a.seed as number) - (b.seed as number));
    expect(records.map((record) => [record.seed, record.complete])).toEqual([
      [0, true],
      [1, false],
      [2, true],
      [3, false],
      [4, true],
    ]);
    expect(records[1]).toMatchObject({
      initialObservation: 'Say done.',
      error: { code: 'ENV_FAULT', message: 'the browser crashed on seed 1', retryable: true },
    });
    expect(records[0]?.error).toBeUndefined();
  });

  it('an episode whose reset failed gets a record with no steps; --json lists the errored episodes', async () => {
    const out = join(directory, 'reset-faults.jsonl');
    const result = await run(['--episodes', '3', '--out', out, '--json'], { faultySeeds: [1], faultAt: 'reset' });
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as { summary: { episodes: number }; errored: number; errors: unknown[] };
    expect(report.summary.episodes).toBe(2);
    expect(report.errored).toBe(1);
    const error = { code: 'ENV_FAULT', message: 'the page for seed 1 did not load', retryable: true };
    expect(report.errors).toEqual([{ seed: 1, ...error }]);
    const failed = readEpisodeRecords(out).filter((record) => !record.complete);
    expect(failed).toEqual([expect.objectContaining({ envId: ID, seed: 1, steps: [], complete: false, error })]);
  });

  it('exits 1 when every episode errored: nothing was measured, and the rate says n/a, not 0', async () => {
    const result = await run(['--episodes', '2'], { faultySeeds: [0, 1] });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^episodes\s+0$/m);
    expect(result.stdout).toMatch(/^success rate\s+n\/a /m);
    const json = await run(['--episodes', '2', '--json'], { faultySeeds: [0, 1] });
    expect(json.code).toBe(1);
    expect((JSON.parse(json.stdout) as { summary: { successRate: unknown } }).summary.successRate).toBeNull();
  });

  it('stops after --max-consecutive-errors failures in a row, keeping the records so far', async () => {
    const out = join(directory, 'streak.jsonl');
    const result = await run(['--episodes', '10', '--max-consecutive-errors', '3', '--out', out], {
      faultySeeds: [1, 3, 4, 5, 6, 7, 8, 9],
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error: 3 episodes in a row failed \(last: the browser crashed on seed 5\)/m);
    // Seeds 0–5 ran (1 failed alone, then 3, 4, 5 in a row); 6–9 never started.
    expect(readEpisodeRecords(out).map((record) => record.seed)).toEqual([0, 1, 2, 3, 4, 5]);
  });
});

describe('turngym run on Ctrl-C', () => {
  it('finishes the episodes in flight, records and summarises them, says how to run the rest, exits 130', async () => {
    assertCliBuilt();
    const directory = mkdtempSync(join(tmpdir(), 'turngym-cli-run-sigint-'));
    try {
      const out = join(directory, 'records.jsonl');
      const args = ['run', 'turngym/example-v1', '--agent', 'random', '--episodes', '1000000', '--seed', '7'];
      const child = spawn(process.execPath, [CLI, ...args, '--concurrency', '3', '--out', out], {
        cwd: REPO_ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
      // Interrupted once some episodes are on disk, as a person pressing Ctrl-C mid-run.
      while (!existsSync(out) || statSync(out).size === 0) await new Promise((resolve) => setTimeout(resolve, 50));
      child.kill('SIGINT');
      expect(await exited).toBe(130);
      const played = Number(/^episodes\s+(\d+)$/m.exec(stdout)?.[1]);
      expect(played).toBeGreaterThan(0);
      expect(played).toBeLessThan(1000000);
      expect(stderr).toContain(
        `interrupted after ${played} of 1000000 episodes; the rest: --seed ${7 + played} --episodes ${1000000 - played}`,
      );
      // Exactly the first seeds ran, each recorded once and complete.
      const seeds = readEpisodeRecords(out).map((record) => record.seed as number);
      expect(seeds.sort((a, b) => a - b)).toEqual(Array.from({ length: played }, (_, i) => 7 + i));
      expect(stdout).toMatch(new RegExp(`seeds 7–${6 + played}$`, 'm'));
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});

describe('turngym run with a chat-model agent whose endpoint is down', () => {
  it('fails before any episode, in one line with exit code 2, writing no records', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    await new Promise((resolve) => server.close(resolve));
    const directory = mkdtempSync(join(tmpdir(), 'turngym-cli-run-endpoint-'));
    try {
      const out = join(directory, 'records.jsonl');
      const result = await runBuiltCli([
        'run',
        'turngym/example-v1',
        '--agent',
        'openai:some-model',
        '--base-url',
        `http://127.0.0.1:${port}/v1`,
        '--api-key',
        'test',
        '--episodes',
        '3',
        '--out',
        out,
      ]);
      expect(result.code).toBe(2);
      expect(errorLines(result.stderr)).toEqual([
        `error: openai:some-model: cannot reach http://127.0.0.1:${port}/v1 (ECONNREFUSED); is an OpenAI-compatible server running there? Set --base-url or TURNGYM_OPENAI_BASE_URL.`,
      ]);
      expect(result.stdout).toBe('');
      expect(existsSync(out)).toBe(false);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});

describe('turngym run --out', () => {
  let directory: string;
  beforeAll(() => {
    directory = mkdtempSync(join(tmpdir(), 'turngym-cli-run-out-'));
  });
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  it('refuses an existing file that is not an episode file, and leaves it as it was', async () => {
    for (const content of ['name,score\nada,3\n', '{"some": "other json"}\n']) {
      const out = join(directory, 'not-records.jsonl');
      writeFileSync(out, content);
      const result = await run(['--episodes', '2', '--out', out], { faultySeeds: [] });
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/^error: \S+not-records\.jsonl exists and is not a TurnGym episode file/m);
      expect(readFileSync(out, 'utf8')).toBe(content);
    }
  });

  it('refuses a path it cannot write before any episode runs (exit 2, naming it)', async () => {
    // A link to a directory that does not exist: unwritable even for root, on every system.
    const out = join(directory, 'dangling.jsonl');
    symlinkSync(join(directory, 'no-such-dir', 'records.jsonl'), out);
    const result = await run(['--episodes', '2', '--out', out], { faultySeeds: [] });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: --out \S+dangling\.jsonl: cannot write there \(ENOENT: no such file/m);
    expect(result.stdout).toBe('');
    expect(existsSync(join(directory, 'no-such-dir'))).toBe(false);
  });

  it('a write refused mid-run (a file-size limit, as a full disk) names the file, the seeds kept and the rest', async () => {
    assertCliBuilt();
    const out = join(directory, 'limited.jsonl');
    const args = ['--plugin', FIXTURE, 'run', ID, '--agent', 'random', '--options', '{"faultySeeds":[]}'];
    // `ulimit -f 4`: files of at most 4 KiB, about six records of this env; the write past it fails with EFBIG.
    const limited = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn(
        'bash',
        ['-c', 'ulimit -f 4 && exec "$0" "$@"', process.execPath, CLI, ...args, '--episodes', '30', '--out', out],
        { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
    expect(limited.code).toBe(1);
    const kept = readEpisodeRecords(out).map((record) => record.seed as number);
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThan(30);
    const n = kept.length;
    expect(errorLines(limited.stderr)).toEqual([
      `error: writing the episode records to ${out} failed (EFBIG: file too large, write); ${n} of 30 episodes are ` +
        `recorded there (seeds 0–${n - 1}), and the file is whole up to them (a part-written record is cut off when ` +
        'it is next opened); once the cause is fixed (a full disk, a file-size limit), run the rest with ' +
        `--seed ${n} --episodes ${30 - n} and the same --out.`,
    ]);
    // What it says to run completes the file: every seed once.
    const rest = await runBuiltCli([...args, '--seed', String(n), '--episodes', String(30 - n), '--out', out]);
    expect(rest.code).toBe(0);
    expect(readEpisodeRecords(out).map((record) => record.seed)).toEqual(Array.from({ length: 30 }, (_, i) => i));
  }, 60_000);

  it('appends to an existing episode file', async () => {
    const out = join(directory, 'records.jsonl');
    const earlier = {
      schema: 'turngym.episode/v1',
      episodeId: 'earlier',
      envId: ID,
      envVersion: null,
      seed: 7,
      resetOptions: null,
      agent: null,
      startedAt: new Date(0).toISOString(),
      instructions: null,
      initialObservation: 'Say done.',
      steps: [],
      turns: 0,
      totalReward: 0,
      success: false,
      terminated: false,
      truncated: false,
      complete: false,
      cost: { toolCalls: 0, llmTokens: 0, wallMs: 0 },
      forkOf: null,
    };
    writeFileSync(out, `${JSON.stringify(earlier)}\n`);
    expect((await run(['--episodes', '2', '--out', out], { faultySeeds: [] })).code).toBe(0);
    expect(readEpisodeRecords(out).map((record) => record.seed)).toEqual([7, 0, 1]);
  });
});

describe('turngym bench on Ctrl-C or SIGTERM', () => {
  // bench exited 130/143 without a word: nothing said that the ended episodes were kept and how to go on.
  it('says which run stopped, how far it got, and that the same command resumes it', async () => {
    assertCliBuilt();
    const directory = mkdtempSync(join(tmpdir(), 'turngym-cli-bench-sigint-'));
    try {
      const suite = join(directory, 'suite.json');
      writeFileSync(
        suite,
        JSON.stringify({
          id: 'long-v1',
          description: 'More episodes than a test waits for.',
          entries: [
            { envId: 'turngym/example-v1', package: '@turngym/env-example', seeds: { start: 0, count: 100000 } },
          ],
        }),
      );
      const out = join(directory, 'out');
      const journal = join(out, 'runs', 'sig', 'episodes.jsonl');
      const args = [CLI, 'bench', suite, '--agent', 'random', '--run-id', 'sig', '--out', out, '--concurrency', '2'];
      const interrupted = async (signal: NodeJS.Signals, ready: (stderr: string) => boolean) => {
        const child = spawn(process.execPath, args, { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
        let stderr = '';
        child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
        const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
        while (!ready(stderr)) await new Promise((resolve) => setTimeout(resolve, 50));
        child.kill(signal);
        return { code: await exited, stderr };
      };

      const first = await interrupted('SIGINT', () => existsSync(journal) && statSync(journal).size > 0);
      expect(first.code).toBe(130);
      // The first Ctrl-C lets the episodes in flight finish (and be journaled) rather than drop them.
      expect(first.stderr).toContain('SIGINT: finishing the episodes in flight; Ctrl-C again quits now');
      const done = readFileSync(journal, 'utf8').trim().split('\n').length;
      expect(first.stderr).toContain(
        `interrupted (SIGINT): run sig (${done} of 100000 episodes done, in ${join(out, 'runs', 'sig')}); ` +
          'run the same command again to resume (--fresh starts over)',
      );

      const second = await interrupted('SIGTERM', (stderr) => stderr.includes('resuming sig'));
      expect(second.code).toBe(143);
      expect(second.stderr).toContain(`resuming sig: ${done} of 100000 episodes already done`);
      expect(second.stderr).toMatch(
        /interrupted \(SIGTERM\): run sig \(\d+ of 100000 episodes done, in .*\); run the same/,
      );
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  }, 60_000);
});
