import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readEpisodeRecords } from '@turngym/core';
import { faults, temporaryDirectory, testRegistry, tinySuite } from './__fixtures__/test-envs';
import { validateBenchResult, type BenchResult } from './bench-result';
import { resolveSuiteAgent } from './suite-agent';
import { runSuite, type SuiteRun } from './run-suite';
import type { JournalEntry } from './run-directory';
import type { SuiteEntry } from './suite';

const RESAMPLES = 200; // intervals are checked in bootstrap.test.ts; here only their presence

function journal(run: SuiteRun): JournalEntry[] {
  return readFileSync(join(run.runDirectory, 'episodes.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as JournalEntry);
}

/** What must not depend on how a run was interrupted: everything but times. */
function scores(result: BenchResult): unknown {
  return result.envs.map((env) => ({
    envId: env.envId,
    seeds: env.seeds,
    scored: env.scored,
    errored: env.errored,
    success: env.metrics?.success,
    reward: env.metrics?.reward,
    turns: env.metrics?.turns,
    toolCalls: env.metrics?.toolCalls,
  }));
}

describe('runSuite', () => {
  let out: string;
  beforeEach(() => {
    out = temporaryDirectory();
    faults.envFault.clear();
    faults.crash.clear();
    faults.contextFull.clear();
    faults.hold = undefined;
    faults.held = 0;
  });
  afterEach(() => rmSync(out, { recursive: true, force: true }));

  const entries: SuiteEntry[] = [
    { envId: 'turngym/example-v1', seeds: { start: 100, count: 6 } },
    { envId: 'turngym/example-v1', options: { chainLength: 5 }, seeds: [7, 8, 9] },
  ];

  it('writes one validated result per run: suite, env versions, seeds, records, metrics with intervals', async () => {
    const suite = tinySuite(entries);
    const run = await runSuite({
      suite,
      agent: resolveSuiteAgent('scripted'),
      registry: testRegistry(),
      outDir: out,
      concurrency: 3,
      resamples: RESAMPLES,
    });
    expect(run.resultPath).toBe(join(out, 'results', 'tiny-v1--scripted.json'));
    const result = validateBenchResult(JSON.parse(readFileSync(run.resultPath, 'utf8')));
    expect(result).toMatchObject({
      runId: 'tiny-v1--scripted',
      label: 'scripted',
      agent: { spec: 'scripted', name: 'scripted', kind: 'baseline', baseURL: null },
      suite: { id: 'tiny-v1', name: 'tiny', version: 1, sha256: suite.sha256 },
      records: '../runs/tiny-v1--scripted/records.jsonl',
      skipped: [],
      overall: { envs: 2, episodes: 9, scored: 9, errored: 0, success: { mean: 1, low: 1, high: 1 } },
    });
    expect(result.envs.map((env) => [env.envId, env.packageName, env.packageVersion, env.seeds])).toEqual([
      [
        'turngym/example-v1',
        '@turngym/env-example',
        expect.stringMatching(/^\d+\.\d+\.\d+/),
        [100, 101, 102, 103, 104, 105],
      ],
      ['turngym/example-v1', '@turngym/env-example', expect.stringMatching(/^\d+\.\d+\.\d+/), [7, 8, 9]],
    ]);
    // The options are recorded with the env's defaults filled in.
    expect(result.envs[1]?.options).toMatchObject({ chainLength: 5, keys: expect.any(Number) });
    // The longer chain takes more turns: the scripted expert looks up every key.
    expect(result.envs[0]?.metrics?.turns.mean).toBe(4);
    expect(result.envs[1]?.metrics?.turns.mean).toBe(6);
    const records = readEpisodeRecords(join(out, 'runs', 'tiny-v1--scripted', 'records.jsonl'));
    expect(records).toHaveLength(9);
    expect(new Set(records.map((record) => record.episodeId)).size).toBe(9);
    expect(records.every((record) => record.complete && record.success && record.agent === 'scripted')).toBe(true);
  });

  it('plays the same episodes whatever the concurrency', async () => {
    const suite = tinySuite([{ envId: 'turngym/example-v1', seeds: { start: 0, count: 8 } }]);
    const registry = testRegistry();
    const one = await runSuite({
      suite,
      agent: resolveSuiteAgent('random'),
      registry,
      outDir: join(out, 'a'),
      concurrency: 1,
      resamples: RESAMPLES,
    });
    const four = await runSuite({
      suite,
      agent: resolveSuiteAgent('random'),
      registry,
      outDir: join(out, 'b'),
      concurrency: 4,
      resamples: RESAMPLES,
    });
    expect(scores(four.result)).toEqual(scores(one.result));
  });

  it('records per-episode faults as errored, excludes them from the scores, and runs retryable ones again on resume', async () => {
    faults.envFault = new Set([101, 103]);
    const suite = tinySuite([{ envId: 'test/faulty-v1', seeds: { start: 100, count: 5 } }]);
    const registry = testRegistry();
    const first = await runSuite({
      suite,
      agent: resolveSuiteAgent('faulty'),
      registry,
      outDir: out,
      resamples: RESAMPLES,
    });
    const env = first.result.envs[0];
    expect(env).toMatchObject({ episodes: 5, scored: 3, errored: 2 });
    expect(env?.errors).toEqual([
      { seed: 101, code: 'ENV_FAULT', message: 'simulated env fault on seed 101', retryable: true },
      { seed: 103, code: 'ENV_FAULT', message: 'simulated env fault on seed 103', retryable: true },
    ]);
    expect(env?.metrics?.success.mean).toBe(1); // the 3 scored episodes; the errored ones are not failures
    // The partial records of errored episodes are kept (marked incomplete) for the viewer.
    const records = readEpisodeRecords(join(first.runDirectory, 'records.jsonl'));
    expect(records.filter((record) => !record.complete).map((record) => record.seed)).toEqual([101, 103]);

    faults.envFault = new Set([103]); // the endpoint recovered for seed 101 only
    const second = await runSuite({
      suite,
      agent: resolveSuiteAgent('faulty'),
      registry,
      outDir: out,
      resamples: RESAMPLES,
    });
    expect(second.resumed).toBe(3);
    expect(second.result.envs[0]).toMatchObject({
      scored: 4,
      errored: 1,
      errors: [expect.objectContaining({ seed: 103 })],
    });
    expect(
      journal(second)
        .map((entry) => entry.key)
        .sort(),
    ).toEqual(['0.0', '0.1', '0.2', '0.3', '0.4']);
    const after = readEpisodeRecords(join(second.runDirectory, 'records.jsonl'));
    expect(after.map((record) => record.seed).sort()).toEqual([100, 101, 102, 103, 104]);

    // --no-retry-errored keeps the errored episode as it is.
    faults.envFault.clear();
    const third = await runSuite({
      suite,
      agent: resolveSuiteAgent('faulty'),
      registry,
      outDir: out,
      retryErrored: false,
      resamples: RESAMPLES,
    });
    expect(third.result.envs[0]).toMatchObject({ scored: 4, errored: 1 });
  });

  it("scores an episode whose model context filled up as the agent's failure, not errored, and says why", async () => {
    faults.contextFull = new Set([101, 103]);
    faults.envFault = new Set([104]);
    const suite = tinySuite([{ envId: 'test/faulty-v1', seeds: { start: 100, count: 5 } }]);
    const run = await runSuite({
      suite,
      agent: resolveSuiteAgent('faulty'),
      registry: testRegistry(),
      outDir: out,
      resamples: RESAMPLES,
    });
    validateBenchResult(run.result);
    const env = run.result.envs[0];
    // Seed 104's env fault is still errored and left out; the two context-limited episodes count as failures.
    expect(env).toMatchObject({ episodes: 5, scored: 4, errored: 1 });
    expect(env?.errors.map((error) => error.seed)).toEqual([104]);
    expect(env?.metrics?.success.mean).toBe(0.5);
    expect(env?.agentStops).toEqual([
      {
        seed: 101,
        reason: 'context-length',
        message: 'openai:tiny: HTTP 400: the prompt outgrew the context on seed 101',
      },
      {
        seed: 103,
        reason: 'context-length',
        message: 'openai:tiny: HTTP 400: the prompt outgrew the context on seed 103',
      },
    ]);
    const stopped = journal(run).filter((entry) => entry.outcome?.agentStop);
    expect(stopped.map((entry) => [entry.seed, entry.status, entry.outcome?.turns, entry.outcome?.truncated])).toEqual([
      [101, 'ok', 1, true],
      [103, 'ok', 1, true],
    ]);
    // Each episode's record is its own: the stopped ones incomplete, with the reason, one turn played.
    const records = readEpisodeRecords(join(run.runDirectory, 'records.jsonl'));
    expect(records.map((record) => record.seed).sort()).toEqual([100, 101, 102, 103, 104]);
    const record101 = records.find((record) => record.seed === 101);
    expect(record101).toMatchObject({ complete: false, turns: 1, error: { code: 'LLM_CALL', retryable: false } });
    expect(record101?.error?.message).toMatch(/^agent stopped \(context-length\): .*seed 101$/);
    expect(records.find((record) => record.seed === 102)).toMatchObject({ complete: true });
  });

  it('stops, resumably, when episodes keep failing (the endpoint is down)', async () => {
    faults.envFault = new Set([0, 1, 2, 3, 4, 5, 6, 7]);
    const suite = tinySuite([{ envId: 'test/faulty-v1', seeds: { start: 0, count: 8 } }]);
    await expect(
      runSuite({
        suite,
        agent: resolveSuiteAgent('faulty'),
        registry: testRegistry(),
        outDir: out,
        maxConsecutiveErrors: 3,
        resamples: RESAMPLES,
      }),
    ).rejects.toThrow(
      /3 episodes in a row failed \(last: simulated env fault on seed 2\)\. 3 of 8 episodes are saved in .*; run the same command again to resume\./,
    );
    expect(existsSync(join(out, 'results', 'tiny-v1--faulty.json'))).toBe(false);
  });

  it('on its signal starts no further episode, journals those in flight, and resumes to the same result', async () => {
    const suite = tinySuite([{ envId: 'test/faulty-v1', seeds: { start: 0, count: 6 } }]);
    const registry = testRegistry();
    const stop = new AbortController();
    let release = (): void => {};
    faults.hold = new Promise((resolve) => (release = resolve));
    const running = runSuite({
      suite,
      agent: resolveSuiteAgent('faulty'),
      registry,
      outDir: out,
      concurrency: 2,
      resamples: RESAMPLES,
      signal: stop.signal,
    });
    // Ctrl-C while two episodes are in flight, each waiting on its first action.
    while (faults.held < 2) await new Promise((resolve) => setImmediate(resolve));
    stop.abort('SIGINT');
    faults.hold = undefined;
    release();
    const stopped = await running.then(
      () => undefined,
      (error: unknown) => error as Error & { code?: string; cause?: unknown },
    );
    expect(stopped?.code).toBe('RUN_ABORTED');
    expect(stopped?.message).toMatch(
      /stopped: 2 of 6 episodes are saved in .*; run the same command again to resume\./,
    );
    expect(stopped?.cause).toBe('SIGINT');
    const directory = join(out, 'runs', 'tiny-v1--faulty');
    const journaled = readFileSync(join(directory, 'episodes.jsonl'), 'utf8').split('\n').filter(Boolean);
    expect(journaled.map((line) => (JSON.parse(line) as JournalEntry).seed).sort()).toEqual([0, 1]);
    expect(journaled.every((line) => (JSON.parse(line) as JournalEntry).status === 'ok')).toBe(true);
    expect(readEpisodeRecords(join(directory, 'records.jsonl'))).toHaveLength(2);
    expect(existsSync(join(out, 'results', 'tiny-v1--faulty.json'))).toBe(false);

    const resumed = await runSuite({
      suite,
      agent: resolveSuiteAgent('faulty'),
      registry,
      outDir: out,
      resamples: RESAMPLES,
    });
    expect(resumed.resumed).toBe(2);
    const uninterrupted = await runSuite({
      suite,
      agent: resolveSuiteAgent('faulty'),
      registry,
      outDir: join(out, 'clean'),
      resamples: RESAMPLES,
    });
    expect(scores(resumed.result)).toEqual(scores(uninterrupted.result));
  });

  it('resumes after a crash without counting or recording any episode twice', async () => {
    const suite = tinySuite([{ envId: 'test/faulty-v1', seeds: { start: 0, count: 10 } }]);
    const registry = testRegistry();
    faults.crash = new Set([6]);
    await expect(
      runSuite({ suite, agent: resolveSuiteAgent('faulty'), registry, outDir: out, resamples: RESAMPLES }),
    ).rejects.toThrow('simulated crash on seed 6');
    const directory = join(out, 'runs', 'tiny-v1--faulty');
    const journaled = readFileSync(join(directory, 'episodes.jsonl'), 'utf8').split('\n').filter(Boolean);
    expect(journaled).toHaveLength(6);
    // What a crash mid-write leaves: a record whose journal line never came, and a torn last line.
    appendFileSync(
      join(directory, 'records.jsonl'),
      readFileSync(join(directory, 'records.jsonl'), 'utf8').split('\n')[0]?.replace('@0.0', '@0.7') + '\n',
    );
    appendFileSync(join(directory, 'episodes.jsonl'), '{"key":"0.9","envId":"test/fau');

    faults.crash.clear();
    const resumed = await runSuite({
      suite,
      agent: resolveSuiteAgent('faulty'),
      registry,
      outDir: out,
      resamples: RESAMPLES,
    });
    expect(resumed.resumed).toBe(6);
    const keys = journal(resumed).map((entry) => entry.key);
    expect(keys).toHaveLength(10);
    expect(new Set(keys).size).toBe(10);
    const records = readEpisodeRecords(join(directory, 'records.jsonl'));
    expect(records.map((record) => record.episodeId).sort()).toEqual(
      Array.from({ length: 10 }, (_, i) => `test/faulty-v1#${i}@0.${i}`).sort(),
    );
    const uninterrupted = await runSuite({
      suite,
      agent: resolveSuiteAgent('faulty'),
      registry,
      outDir: join(out, 'clean'),
      resamples: RESAMPLES,
    });
    expect(scores(resumed.result)).toEqual(scores(uninterrupted.result));
  });

  it('on a full disk says which episode could not be saved and how many are, and resumes to the same result', async () => {
    const suite = tinySuite([{ envId: 'test/faulty-v1', seeds: { start: 0, count: 8 } }]);
    const registry = testRegistry();
    const directory = join(out, 'runs', 'tiny-v1--faulty');
    // The module object the run's files are written through: the fifth journal line meets a full disk, and so does
    // every write after it (the attempt's time in the same directory), as on a real one.
    const fs = require('node:fs') as typeof import('node:fs');
    const real = fs.appendFileSync;
    let journalLines = 0;
    let full = false;
    const append = jest.spyOn(fs, 'appendFileSync').mockImplementation((path, data, options) => {
      if (String(path).startsWith(directory)) {
        if (String(path).endsWith('episodes.jsonl') && ++journalLines === 5) full = true;
        if (full) {
          real(path, String(data).slice(0, 7), options); // a part of the line, as a write that ran out of space
          throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
        }
      }
      real(path, data, options);
    });
    let failure: (Error & { code?: string }) | undefined;
    try {
      await runSuite({ suite, agent: resolveSuiteAgent('faulty'), registry, outDir: out, resamples: RESAMPLES });
    } catch (error) {
      failure = error as Error & { code?: string };
    } finally {
      append.mockRestore();
    }
    expect(failure?.code).toBe('RUN_ABORTED');
    expect(failure?.message).toBe(
      'saving episode 0.4 (test/faulty-v1, seed 4) failed (ENOSPC: no space left on device, write); 4 of 8 ' +
        `episodes are saved in ${directory}: once the cause is fixed (a full disk, a file-size limit), run the same command again to resume.`,
    );
    expect(existsSync(join(out, 'results', 'tiny-v1--faulty.json'))).toBe(false);

    // Resumed while the disk is still full: the journal's rewrite fails part-way, and leaves its files as they were
    // and no part-written temporary holding on to space.
    const realWrite = fs.writeFileSync;
    const write = jest.spyOn(fs, 'writeFileSync').mockImplementation((path, data, options) => {
      if (String(path).startsWith(directory) && String(path).endsWith('.tmp')) {
        realWrite(path, String(data).slice(0, 7), options);
        throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      }
      realWrite(path, data, options);
    });
    const journaled = readFileSync(join(directory, 'episodes.jsonl'), 'utf8');
    try {
      await expect(
        runSuite({ suite, agent: resolveSuiteAgent('faulty'), registry, outDir: out, resamples: RESAMPLES }),
      ).rejects.toThrow(
        `resuming the run in ${directory} failed (ENOSPC: no space left on device, write); its files are as they were`,
      );
    } finally {
      write.mockRestore();
    }
    expect(readFileSync(join(directory, 'episodes.jsonl'), 'utf8')).toBe(journaled);
    expect(readdirSync(directory).filter((name) => name.endsWith('.tmp'))).toEqual([]);

    const resumed = await runSuite({
      suite,
      agent: resolveSuiteAgent('faulty'),
      registry,
      outDir: out,
      resamples: RESAMPLES,
    });
    expect(resumed.resumed).toBe(4);
    const keys = journal(resumed).map((entry) => entry.key);
    expect(keys.sort()).toEqual(Array.from({ length: 8 }, (_, i) => `0.${i}`));
    expect(readEpisodeRecords(join(directory, 'records.jsonl'))).toHaveLength(8);
    const uninterrupted = await runSuite({
      suite,
      agent: resolveSuiteAgent('faulty'),
      registry,
      outDir: join(out, 'clean'),
      resamples: RESAMPLES,
    });
    expect(scores(resumed.result)).toEqual(scores(uninterrupted.result));
  });

  it('refuses a second run of a directory while another process runs it, and resumes that run once SIGKILLed', async () => {
    const count = 60;
    const child = spawn(
      process.execPath,
      [join(__dirname, '__fixtures__', 'suite-child.js'), out, String(count), '10'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    // The child says when 10 episodes are journaled and its agents are stopped mid-episode: kill it then.
    const paused = await new Promise<boolean>((resolve) => {
      let stdout = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        stdout += chunk;
        if (stdout.includes('paused 10\n')) resolve(true);
      });
      void exited.then(() => resolve(false));
    });
    const suite = tinySuite([{ envId: 'test/faulty-v1', seeds: { start: 0, count } }], 'kill-v1');
    const again = (fresh: boolean): Promise<SuiteRun> =>
      runSuite({
        suite,
        agent: resolveSuiteAgent('faulty'),
        registry: testRegistry(),
        outDir: out,
        concurrency: 2,
        fresh,
        resamples: RESAMPLES,
      });
    const directory = join(out, 'runs', 'kill-v1--faulty');
    const journalPath = join(directory, 'episodes.jsonl');
    // The same command started twice: the second would play the missing episodes again and append them twice;
    // with --fresh it would wipe the files the first is writing. Refused, the files untouched.
    const whileRunning = readFileSync(journalPath, 'utf8');
    try {
      for (const fresh of [false, true]) {
        await expect(again(fresh)).rejects.toThrow(
          `${directory} is in use by another bench run (pid ${child.pid}, since `,
        );
      }
      expect(readFileSync(journalPath, 'utf8')).toBe(whileRunning);
    } finally {
      child.kill('SIGKILL'); // also when the checks fail: the paused child would never exit
      await exited;
    }
    const before = existsSync(journalPath) ? readFileSync(journalPath, 'utf8').split('\n').filter(Boolean).length : 0;
    expect({ paused, stderr }).toEqual({ paused: true, stderr: '' });
    expect(before).toBeGreaterThanOrEqual(10);
    expect(before).toBeLessThan(count);

    // The killed process's lock is stale: taken over, and gone once the run ends.
    const run = await again(false);
    expect(existsSync(join(directory, '.lock'))).toBe(false);
    expect(run.resumed).toBeGreaterThanOrEqual(before - 1); // at most the line being written when it died
    expect(run.result.overall).toMatchObject({ episodes: count, scored: count, errored: 0 });
    const keys = journal(run).map((entry) => entry.key);
    expect(new Set(keys).size).toBe(count);
    expect(keys).toHaveLength(count);
    const ids = readEpisodeRecords(join(run.runDirectory, 'records.jsonl')).map((record) => record.episodeId);
    expect(new Set(ids).size).toBe(count);
    expect(ids).toHaveLength(count);
  });

  it('refuses to resume a run of another suite version, agent or env options unless told to start over', async () => {
    const registry = testRegistry();
    await runSuite({
      suite: tinySuite(entries),
      agent: resolveSuiteAgent('scripted'),
      registry,
      outDir: out,
      resamples: RESAMPLES,
    });
    const changed = tinySuite([{ envId: 'turngym/example-v1', seeds: { start: 100, count: 3 } }]);
    await expect(
      runSuite({ suite: changed, agent: resolveSuiteAgent('scripted'), registry, outDir: out, resamples: RESAMPLES }),
    ).rejects.toThrow(
      /holds another run \(it ran another version of suite tiny-v1\): pass --fresh to start it over, or --run-id for a new one\./,
    );
    const fresh = await runSuite({
      suite: changed,
      agent: resolveSuiteAgent('scripted'),
      registry,
      outDir: out,
      fresh: true,
      resamples: RESAMPLES,
    });
    expect(fresh.resumed).toBe(0);
    expect(fresh.result.overall.episodes).toBe(3);
    const restarted = await runSuite({
      suite: tinySuite(entries),
      agent: resolveSuiteAgent('scripted'),
      registry,
      outDir: out,
      onMismatch: 'restart',
      resamples: RESAMPLES,
    });
    expect(restarted.result.overall.episodes).toBe(9);
  });

  it('never deletes a run directory it does not recognise: a hand-edited run.json or a user file', async () => {
    const registry = testRegistry();
    const suite = tinySuite(entries);
    const run = (fresh: boolean): Promise<SuiteRun> =>
      runSuite({ suite, agent: resolveSuiteAgent('scripted'), registry, outDir: out, fresh, resamples: RESAMPLES });
    const directory = join(out, 'runs', 'tiny-v1--scripted');
    mkdirSync(directory, { recursive: true });
    writeFileSync(join(directory, 'notes.txt'), 'mine');
    for (const fresh of [false, true]) {
      await expect(run(fresh)).rejects.toThrow(`${directory} holds files a bench run does not write (notes.txt)`);
    }
    expect(readFileSync(join(directory, 'notes.txt'), 'utf8')).toBe('mine');

    rmSync(join(directory, 'notes.txt'));
    const first = await run(false);
    const manifest = join(first.runDirectory, 'run.json');
    writeFileSync(manifest, readFileSync(manifest, 'utf8').replace('{', '{,'));
    await expect(run(false)).rejects.toThrow(`${manifest} is not JSON`);
    expect(journal(first)).toHaveLength(9);
    // JSON, but not a manifest: refused in one line, not a TypeError from the comparison, nor a result refused
    // only after every missing episode has run.
    const written = JSON.parse(readFileSync(manifest, 'utf8').replace('{,', '{')) as Record<string, unknown>;
    for (const [field, value, problem] of [
      ['suite', null, 'run.json.suite must be object (got null)'],
      ['envs', [null], 'run.json.envs[0] must be object (got null)'],
      ['label', 5, 'run.json.label must be string (got 5)'],
    ] as const) {
      writeFileSync(manifest, JSON.stringify({ ...written, [field]: value }));
      await expect(run(false)).rejects.toThrow(`${manifest} is not a bench run manifest (${problem})`);
    }
    expect(journal(first)).toHaveLength(9);
    expect((await run(true)).resumed).toBe(0);
  });
});

describe('preflight', () => {
  let out: string;
  beforeEach(() => (out = temporaryDirectory()));
  afterEach(() => rmSync(out, { recursive: true, force: true }));

  const suite = tinySuite([
    { envId: 'turngym/example-v1', seeds: [1, 2] },
    { envId: 'turngym/wiki-qa-v1', package: '@turngym/env-wiki-navigator', options: { mode: 'direct' }, seeds: [1] },
  ]);

  it('skips an env that is not installed, with a note naming its package, and says so in the result', async () => {
    const run = await runSuite({
      suite,
      agent: resolveSuiteAgent('scripted'),
      registry: testRegistry(),
      outDir: out,
      resamples: RESAMPLES,
    });
    expect(run.result.skipped).toEqual([
      { envId: 'turngym/wiki-qa-v1', reason: 'not installed (npm i @turngym/env-wiki-navigator)' },
    ]);
    expect(run.result.envs.map((env) => env.envId)).toEqual(['turngym/example-v1']);
  });

  it('fails in one line before any episode: unknown agents, options the env rejects, nothing installed', async () => {
    const registry = testRegistry();
    const run = (agent: string, theSuite = suite) =>
      runSuite({ suite: theSuite, agent: resolveSuiteAgent(agent), registry, outDir: out, resamples: RESAMPLES });
    expect(() => resolveSuiteAgent('gpt 4')).toThrow(
      'Unknown agent "gpt 4": expected a baseline (random, scripted) or a chat-model spec (openai:<model>, local:<checkpoint>, scripted:<name>).',
    );
    expect(() => resolveSuiteAgent('bogus:model')).toThrow(/^Unknown chat model spec "bogus:model"\. Known forms: /);
    await expect(run('expert')).rejects.toThrow(
      'Unknown agent "expert" for turngym/example-v1: its baselines are random, scripted; or use a chat-model spec (openai:<model>, local:<checkpoint>).',
    );
    const badOptions = tinySuite([{ envId: 'turngym/example-v1', options: { chainLength: 0 }, seeds: [1] }]);
    await expect(run('scripted', badOptions)).rejects.toThrow(
      /^Suite tiny-v1: Invalid options for turngym\/example-v1: options\.chainLength must be >= 1/,
    );
    const nothing = tinySuite([{ envId: 'turngym/seller-v1', package: '@turngym/env-seller', seeds: [1] }]);
    await expect(run('scripted', nothing)).rejects.toThrow(
      "None of suite tiny-v1's envs can run (turngym/seller-v1: not installed (npm i @turngym/env-seller)).",
    );
    await expect(
      runSuite({ suite, agent: resolveSuiteAgent('scripted'), registry, outDir: out, runId: '../escape' }),
    ).rejects.toThrow('Invalid run id "../escape": use letters, digits, ".", "_" and "-" (it names files).');
    expect(existsSync(join(out, 'runs'))).toBe(false);
  });

  it('refuses a run id that differs only in case from a run already there, before touching it', async () => {
    const agent = resolveSuiteAgent('scripted');
    const registry = testRegistry();
    const first = await runSuite({ suite, agent, registry, outDir: out, runId: 'Run1', resamples: RESAMPLES });
    const before = readFileSync(join(first.runDirectory, 'episodes.jsonl'), 'utf8');
    for (const runId of ['run1', 'RUN1']) {
      await expect(
        runSuite({ suite, agent, registry, outDir: out, runId, fresh: true, resamples: RESAMPLES }),
      ).rejects.toThrow(
        `Run id "${runId}" differs only in case from the run "Run1" in ${out}: on a case-insensitive file system`,
      );
    }
    expect(readFileSync(join(first.runDirectory, 'episodes.jsonl'), 'utf8')).toBe(before);
    // The same id, same case, resumes as before.
    expect((await runSuite({ suite, agent, registry, outDir: out, runId: 'Run1', resamples: RESAMPLES })).resumed).toBe(
      before.trim().split('\n').length,
    );
  });
});
