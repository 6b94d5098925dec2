import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { temporaryDirectory, testRegistry, tinySuite } from './__fixtures__/test-envs';
import type { BenchResult } from './bench-result';
import { buildLeaderboard } from './leaderboard-model';
import { runSuite } from './run-suite';
import { readLeaderboardEntries, readLeaderboardEntry, SUBMISSION_SCHEMA_ID } from './submission';
import { resolveSuiteAgent } from './suite-agent';
import { writeLeaderboard } from './write-leaderboard';

const suite = tinySuite([
  { envId: 'turngym/example-v1', seeds: { start: 0, count: 4 } },
  { envId: 'test/faulty-v1', seeds: [10, 11, 12] },
]);

describe('leaderboard', () => {
  let out: string;
  let results: Record<string, BenchResult>;
  beforeAll(async () => {
    out = temporaryDirectory();
    results = {};
    for (const agent of ['random', 'scripted']) {
      const run = await runSuite({
        suite,
        agent: resolveSuiteAgent(agent),
        registry: testRegistry(),
        outDir: out,
        resamples: 200,
      });
      results[agent] = run.result;
    }
  });
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  function submission(result: BenchResult, extra: Record<string, unknown> = {}): string {
    const file = join(out, `submission-${Object.keys(extra).length}-${result.runId}.json`);
    writeFileSync(file, JSON.stringify({ schema: SUBMISSION_SCHEMA_ID, submittedBy: 'Ada', result, ...extra }));
    return file;
  }

  it('ranks each suite by the mean success over envs and renders a markdown table', () => {
    const written = writeLeaderboard({
      inputs: [join(out, 'results')],
      outDir: out,
      suites: [suite],
      generatedAt: new Date('2026-01-02T03:04:05Z'),
    });
    expect(written.boards.map((board) => board.rows.map((row) => [row.rank, row.label]))).toEqual([
      [
        [1, 'scripted'],
        [2, 'random'],
      ],
    ]);
    const markdown = readFileSync(written.files.markdown, 'utf8');
    expect(markdown).toContain('Generated 2026-01-02T03:04:05Z');
    expect(markdown).toContain(
      '| # | Agent | Success (mean over envs) | example-v1 | test/faulty-v1 | Reward | Turns | Tokens/ep | Episodes | Errored | Wall |',
    );
    expect(markdown).toMatch(
      /^\| 1 \| scripted \| 100% \[100–100\] \| 100% \[100–100\] \| 100% \[100–100\] \| 1\.00 \| 4\.0 \| 0 \| 7 \| 0 \| .+ \|$/m,
    );
    expect(markdown).toMatch(/^\| 2 \| random \| 0% \[0–0\] \| 0% \[0–0\] \| 0% \[0–0\] \| 0\.00 \| /m);
    expect(markdown).toContain('Env versions: `turngym/example-v1` ');
    expect(written.files.viewerData.map((file) => file.split('/').pop())).toEqual([
      'tiny-v1--scripted.js',
      'tiny-v1--random.js',
    ]);
  });

  it("rewrites its own pages but never overwrites a user's index.html, leaderboard.md or viewer data", () => {
    const site = join(out, 'site');
    const write = (): unknown => writeLeaderboard({ inputs: [join(out, 'results')], outDir: site, suites: [suite] });
    write();
    for (const name of ['index.html', 'leaderboard.md', 'viewer-data/mine.js']) {
      write(); // over its own pages, from the call before
      const path = join(site, name);
      const before = readFileSync(join(site, 'index.html'), 'utf8');
      mkdirSync(join(site, 'viewer-data'), { recursive: true });
      writeFileSync(path, 'my own page');
      expect(write).toThrow(`${path} was not written by turngym leaderboard`);
      expect(readFileSync(path, 'utf8')).toBe('my own page');
      if (name !== 'index.html') expect(readFileSync(join(site, 'index.html'), 'utf8')).toBe(before);
      rmSync(path);
    }
    // A page of an earlier version, without the generator tag (the committed sample), is still its own.
    const sample = join(__dirname, '..', '..', '..', 'docs', 'leaderboard', 'index.html');
    expect(readFileSync(sample, 'utf8')).not.toContain('name="generator"');
    writeFileSync(join(site, 'index.html'), readFileSync(sample, 'utf8'));
    write();
    expect(readFileSync(join(site, 'index.html'), 'utf8')).toContain('name="generator"');
  });

  it('accepts documented submissions, with their submitter, beside local results', () => {
    const file = submission(
      { ...(results.scripted as BenchResult), runId: 'theirs', label: 'Their agent' },
      {
        description: 'A model of theirs',
        url: 'https://example.org/paper',
        recordsUrl: 'https://example.org/records.jsonl',
      },
    );
    const entry = readLeaderboardEntry(file, [suite]);
    expect(entry.submission).toEqual({
      submittedBy: 'Ada',
      description: 'A model of theirs',
      url: 'https://example.org/paper',
      recordsUrl: 'https://example.org/records.jsonl',
    });
    expect(entry.recordsFile).toBeNull(); // their records are not here; the viewer links to the URL instead
    const boards = buildLeaderboard(readLeaderboardEntries([join(out, 'results'), file], [suite]), [suite]);
    expect(boards[0]?.rows.map((row) => `${row.label}:${row.submittedBy ?? '-'}`)).toEqual([
      'scripted:-',
      'Their agent:Ada',
      'random:-',
    ]); // a tie is broken by name;
  });

  it('rejects a submission that fails its schema, does not add up, or did not play the suite', () => {
    const scripted = results.scripted as BenchResult;
    expect(() => readLeaderboardEntry(submission(scripted, { submittedBy: '' }), [suite])).toThrow(
      /submission\.submittedBy must NOT have fewer than 1 characters/,
    );
    expect(() => readLeaderboardEntry(submission(scripted, { url: 'javascript:alert(1)' }), [suite])).toThrow(
      /submission\.url must match pattern/,
    );
    const inflated = structuredClone(scripted);
    (inflated.envs[0] as { scored: number }).scored += 1;
    expect(() => readLeaderboardEntry(submission(inflated), [suite])).toThrow(/scored \+ errored must equal episodes/);
    const narrowed = structuredClone(scripted);
    narrowed.overall.success = { mean: 0.9, low: 0.95, high: 1 };
    expect(() => readLeaderboardEntry(submission(narrowed), [suite])).toThrow(
      /result\.overall\.success: the interval \[0\.95, 1\] does not contain the mean 0\.9/,
    );
    const otherSeeds = structuredClone(scripted);
    (otherSeeds.envs[1] as { seeds: number[] }).seeds = [10, 11, 13];
    expect(() => readLeaderboardEntry(submission(otherSeeds), [suite])).toThrow(
      /test\/faulty-v1: its seeds are not suite tiny-v1's/,
    );
    const missingField = structuredClone(scripted) as Partial<BenchResult>;
    delete missingField.statistics;
    expect(() => readLeaderboardEntry(submission(missingField as BenchResult), [suite])).toThrow(
      /result\.statistics is required/,
    );
    const unknown = join(out, 'unknown.json');
    writeFileSync(unknown, JSON.stringify({ schema: 'something/v9' }));
    expect(() => readLeaderboardEntry(unknown)).toThrow(
      /"schema" must be "turngym\.bench-result\/v1" \(a result\) or "turngym\.leaderboard-submission\/v1"/,
    );
  });

  it('ranks partial rows after complete ones and names what they did not run', () => {
    const partial = structuredClone(results.scripted as BenchResult);
    partial.runId = 'partial';
    partial.label = 'partial agent';
    partial.envs = partial.envs.slice(0, 1);
    partial.skipped = [{ envId: 'test/faulty-v1', reason: 'not installed (npm i @turngym/test-faulty)' }];
    partial.overall = { ...partial.overall, envs: 1, episodes: 4, scored: 4 };
    const boards = buildLeaderboard(readLeaderboardEntries([join(out, 'results'), submission(partial)], [suite]), [
      suite,
    ]);
    const rows = boards[0]?.rows ?? [];
    expect(rows.map((row) => [row.label, row.missingEnvs])).toEqual([
      ['scripted', []],
      ['random', []],
      ['partial agent', ['test/faulty-v1']],
    ]);
  });
});
