import { linkSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { readEpisodeRecords } from '@turngym/core';
import { temporaryDirectory, testRegistry, tinySuite } from './__fixtures__/test-envs';
import type { BenchResult } from './bench-result';
import { formatResultsTable } from './format-results-table';
import { buildLeaderboard } from './leaderboard-model';
import { renderHtml } from './render-html';
import { renderMarkdown } from './render-markdown';
import { buildViewerRun } from './render-viewer';
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

  it('fails on a malformed records file before it removes or writes anything', () => {
    const site = join(out, 'records-site');
    const write = (): unknown => writeLeaderboard({ inputs: [join(out, 'results')], outDir: site, suites: [suite] });
    write();
    const pages = ['index.html', 'viewer.html', 'viewer-data/tiny-v1--scripted.js', 'viewer-data/tiny-v1--random.js'];
    const before = pages.map((name) => readFileSync(join(site, name), 'utf8'));
    const records = join(out, 'runs', 'tiny-v1--random', 'records.jsonl');
    const saved = readFileSync(records, 'utf8');
    try {
      writeFileSync(records, saved.replace('\n', '\n{"broken": \n'));
      expect(write).toThrow(`${records}:2 is not JSON`);
      expect(pages.map((name) => readFileSync(join(site, name), 'utf8'))).toEqual(before);
    } finally {
      writeFileSync(records, saved);
    }
    // A file where the viewer's data directory goes is the user's too.
    rmSync(join(site, 'viewer-data'), { recursive: true });
    writeFileSync(join(site, 'viewer-data'), 'my notes');
    expect(write).toThrow(`${join(site, 'viewer-data')} was not written by turngym leaderboard`);
    expect(readFileSync(join(site, 'viewer-data'), 'utf8')).toBe('my notes');
  });

  it('passes over a folder named like a result file, and refuses a folder with no result files at all', () => {
    const inputs = join(out, 'mixed-inputs');
    mkdirSync(join(inputs, 'old.json'), { recursive: true });
    linkSync(
      join(
        out,
        'results',
        readdirSync(join(out, 'results')).find((name) => name.endsWith('.json'))!,
      ),
      join(inputs, 'run.json'),
    );
    expect(readLeaderboardEntries([inputs], [suite]).map((entry) => entry.file)).toEqual([join(inputs, 'run.json')]);
    // A folder that holds no result file (a typo'd path, a run that never finished): said, not an empty page.
    const empty = join(out, 'empty-inputs');
    mkdirSync(join(empty, 'nested.json'), { recursive: true });
    const site = join(out, 'site-empty');
    expect(() => writeLeaderboard({ inputs: [empty], outDir: site, suites: [suite] })).toThrow(
      `${empty}: no result or submission files (*.json) here`,
    );
    expect(readdirSync(out)).not.toContain('site-empty');
  });

  it('reads a submission saved with a byte order mark', () => {
    const file = submission({ ...(results.scripted as BenchResult), runId: 'bom', label: 'BOM agent' });
    writeFileSync(file, `\uFEFF${readFileSync(file, 'utf8')}`);
    expect(readLeaderboardEntry(file, [suite]).result.label).toBe('BOM agent');
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

  it("never reads a submission's records from this machine", () => {
    // Its result's records path is the submitter's; here it points at a local run of the same id.
    const theirs = structuredClone(results.scripted as BenchResult);
    theirs.records = join(out, 'runs', 'tiny-v1--random', 'records.jsonl');
    const entry = readLeaderboardEntry(submission(theirs), [suite]);
    expect(entry.recordsFile).toBeNull();
    expect(readLeaderboardEntry(join(out, 'results', 'tiny-v1--scripted.json'), [suite]).recordsFile).toBe(
      join(out, 'runs', 'tiny-v1--scripted', 'records.jsonl'),
    );
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
    // Hand-edited headline figures, their intervals widened to contain them: not what the envs' episodes give.
    const boosted = structuredClone(results.random as BenchResult);
    boosted.overall.success = { mean: 0.99, low: 0.98, high: 1 };
    expect(() => readLeaderboardEntry(submission(boosted), [suite])).toThrow(
      /result\.overall\.success\.mean is 0\.99, but the mean over envs of their success means is /,
    );
    const boostedReward = structuredClone(scripted);
    boostedReward.overall.reward = { mean: 99, low: 0, high: 100 };
    expect(() => readLeaderboardEntry(submission(boostedReward), [suite])).toThrow(
      /result\.overall\.reward\.mean is 99/,
    );
    const boostedEnv = structuredClone(results.random as BenchResult);
    (boostedEnv.envs[0]!.metrics as { success: { mean: number; low: number; high: number } }).success = {
      ...boostedEnv.envs[0]!.metrics!.success,
      mean: 0.6,
      low: 0,
      high: 1,
    };
    expect(() => readLeaderboardEntry(submission(boostedEnv), [suite])).toThrow(
      /metrics\.success\.mean 0\.6 is not a whole number of successes out of 4 scored episodes/,
    );
    // The sortable per-episode columns follow from the envs too: fewer tokens or turns than the episodes took, or
    // an interval of rates outside [0, 1], is a hand edit.
    const thrifty = structuredClone(scripted);
    thrifty.overall.tokens.perEpisode = -1e9;
    expect(() => readLeaderboardEntry(submission(thrifty), [suite])).toThrow(
      /result\.overall\.tokens\.perEpisode is -1000000000, but the envs' scored episodes give /,
    );
    const quick = structuredClone(scripted);
    quick.overall.turns = 0.5;
    expect(() => readLeaderboardEntry(submission(quick), [suite])).toThrow(
      /result\.overall\.turns is 0\.5, but the envs' scored episodes give /,
    );
    const negative = structuredClone(scripted);
    const turns = negative.envs[0]!.metrics!.turns;
    negative.envs[0]!.metrics!.turns = { ...turns, mean: -4, low: -4, min: -4 };
    expect(() => readLeaderboardEntry(submission(negative), [suite])).toThrow(
      /result\.envs\[0\] \(turngym\/example-v1\)\.metrics\.turns: its min must be >= 0/,
    );
    const wide = structuredClone(scripted);
    wide.overall.success = { ...wide.overall.success!, low: -3, high: 5 };
    expect(() => readLeaderboardEntry(submission(wide), [suite])).toThrow(
      /result\.overall\.success: the interval \[-3, 5\] must lie in \[0, 1\]/,
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
      /"schema" must be "turngym\.bench-result\/v1" \(a result\) or "turngym\.leaderboard-submission\/v1" \(a submission\); got "something\/v9"/,
    );
    // Not "got undefined": what is wrong with the file, in words.
    const { schema: _schema, ...unversioned } = scripted;
    writeFileSync(unknown, JSON.stringify(unversioned));
    expect(() => readLeaderboardEntry(unknown)).toThrow(/\(a submission\); it has no "schema" field$/);
    writeFileSync(unknown, JSON.stringify([scripted]));
    expect(() => readLeaderboardEntry(unknown)).toThrow(
      /\(a submission\); the file holds an array, not a JSON object \(one result or submission per file\)$/,
    );
  });

  // A submission is anyone's file: its label, agent spec, submitter and URL are text, never markup.
  it("keeps a submission's own text inert in the HTML page and in the markdown table", () => {
    const hostile = structuredClone(results.scripted as BenchResult);
    hostile.runId = 'hostile';
    hostile.label = 'evil\r| 1 | fake row | 100% [100–100] |';
    hostile.agent = { ...hostile.agent, spec: '<a><img src=x onerror="window.__pwned=1">' };
    const inputs = join(out, 'hostile');
    mkdirSync(inputs, { recursive: true });
    const file = join(inputs, 'hostile.json');
    writeFileSync(
      file,
      JSON.stringify({
        schema: SUBMISSION_SCHEMA_ID,
        submittedBy: '<img src=y onerror="window.__pwned=2">',
        url: 'https://example.org/a)<img src=z>',
        result: hostile,
      }),
    );
    const site = join(out, 'hostile-site');
    const written = writeLeaderboard({ inputs: [file], outDir: site, suites: [suite] });
    const html = readFileSync(written.files.html, 'utf8');
    expect(html).not.toMatch(/<img/i);
    expect(html).toContain('&lt;a&gt;&lt;img src=x onerror=&quot;window.__pwned=1&quot;&gt;');
    const markdown = readFileSync(written.files.markdown, 'utf8');
    // One table row, its text escaped: no line break, raw tag or early end of the link.
    expect(markdown.split('\n').filter((line) => /^\| \d+ \|/.test(line))).toEqual([
      expect.stringMatching(
        /^\| 1 \| \[evil \\\| 1 \\\| fake row \\\| 100% \\\[100–100\\\] \\\|\]\(https:\/\/example\.org\/a%29%3Cimg%20src=z%3E\) \(\\<img src=y onerror="window\.__pwned=2"\\>\) \| /,
      ),
    ]);
    expect(markdown).not.toContain('\r');
    // A suite this machine does not know gets a board under its id: a heading that stays one line of text.
    const odd = { ...hostile, runId: 'odd', suite: { ...hostile.suite, id: 'odd\n<img src=s onerror=x>' } };
    writeFileSync(file, JSON.stringify(odd));
    const oddMarkdown = renderMarkdown(buildLeaderboard([readLeaderboardEntry(file, [suite])], [suite]));
    expect(oddMarkdown).toContain('\n## odd \\<img src=s onerror=x\\>\n');
  });

  // A right-to-left override in a submitter's text ran on over the page's own words: "skipped (not installed)"
  // and the figures of the row read reversed.
  it("keeps a right-to-left override in a submission's text from reversing the page's own words", () => {
    const rtl = structuredClone(results.scripted as BenchResult);
    rtl.runId = 'rtl';
    rtl.label = '\u202Eevil agent';
    rtl.skipped = [{ envId: 'turngym/other-v1', reason: 'not installed' }];
    const file = join(out, 'rtl.json');
    writeFileSync(
      file,
      JSON.stringify({
        schema: SUBMISSION_SCHEMA_ID,
        submittedBy: '\u202Emallory',
        url: 'https://example.org/\u202E',
        result: rtl,
      }),
    );
    const boards = buildLeaderboard([readLeaderboardEntry(file, [suite])], [suite]);
    const html = renderHtml(boards);
    expect(html).toContain(
      '<li><bdi>\u202Eevil agent</bdi>: <bdi>turngym/other-v1</bdi> skipped (<bdi>not installed</bdi>).</li>',
    );
    expect(html).toContain('by <bdi>\u202Emallory</bdi> · <a href="https://example.org/\u202E">link</a>');
    const markdown = renderMarkdown(boards);
    expect(markdown).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
    expect(markdown).toContain('| 1 | [evil agent](https://example.org/%E2%80%AE) (mallory) | ');
  });

  // Models write emoji; a cut between the two halves of one would put a lone surrogate (shown as �) on the page.
  it('clips long viewer text between characters, never inside an emoji', () => {
    const board = buildLeaderboard(readLeaderboardEntries([join(out, 'results')], [suite]), [suite])[0]!;
    const row = board.rows.find((candidate) => candidate.label === 'scripted')!;
    const records = readEpisodeRecords(row.recordsFile!);
    const long = `${'x'.repeat(19_999)}😀 and more`;
    (records[0]!.steps[0] as { observation: unknown }).observation = long;
    const observation = buildViewerRun(row, records).episodes[0]!.steps[0]!.observation;
    expect(observation).toBe(`${'x'.repeat(19_999)}\n… (11 more characters in the records)`);
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

  // An agent whose every episode of one env errored has an overall rate over the other envs only: ranked as
  // complete, it would stand above agents that were scored on every env.
  it('ranks a row with an env where every episode errored as partial, and says so', () => {
    const scripted = results.scripted as BenchResult;
    const unscored = structuredClone(scripted);
    unscored.runId = 'all-errored';
    unscored.label = 'errored agent';
    const faulty = unscored.envs[1]!;
    unscored.envs[1] = {
      ...faulty,
      scored: 0,
      errored: faulty.episodes,
      errors: faulty.seeds.map((seed) => ({ seed, code: 'LLM_CALL', message: 'HTTP 500', retryable: true })),
      metrics: null,
    };
    const kept = unscored.envs[0]!.metrics!;
    unscored.overall = {
      ...unscored.overall,
      scored: unscored.envs[0]!.scored,
      errored: faulty.episodes,
      success: { mean: kept.success.mean, low: kept.success.low, high: kept.success.high },
      reward: { mean: kept.reward.mean, low: kept.reward.low, high: kept.reward.high },
    };
    const boards = buildLeaderboard(readLeaderboardEntries([join(out, 'results'), submission(unscored)], [suite]), [
      suite,
    ]);
    const rows = boards[0]?.rows ?? [];
    expect(rows.map((row) => [row.rank, row.label, row.unscoredEnvs])).toEqual([
      [1, 'scripted', []],
      [2, 'random', []],
      [3, 'errored agent', ['test/faulty-v1']],
    ]);
    const markdown = renderMarkdown(boards);
    expect(markdown).toMatch(/\| 3 \| errored agent \(Ada\) \*\(partial\)\* \|/);
    // The terminal table `turngym bench` prints says it too.
    expect(formatResultsTable([unscored])).toMatch(/\nmean over envs\s+100% \[100–100\] \(1 of 2 envs\)\n/);
    expect(markdown).toContain('- errored agent: partial, every episode of test/faulty-v1 errored');
    // The env's own cell says why it has no rate, in both pages, as the terminal table does.
    expect(markdown).toMatch(/\| 3 \| errored agent \(Ada\) \*\(partial\)\* \| [^|]+ \| [^|]+ \| — \(3 errored\) \|/);
    const row = renderHtml(boards).match(/<tr data-run="all-errored">.*?<\/tr>/)?.[0] ?? '';
    expect(row).toMatch(/<td data-value=""><span class="not-run">3 errored<\/span><\/td>/);
    expect(renderHtml(boards)).toMatch(
      /<div class="env-row" data-run="all-errored">.*?<span class="value"><span class="not-run">no score · 3 errored<\/span>/,
    );
  });

  it('notes per env how many episodes the agent stopped with a full context (scored as failures)', () => {
    const stopped = structuredClone(results.scripted as BenchResult);
    stopped.runId = 'short-context';
    stopped.label = 'short context';
    const env = stopped.envs[0]!;
    env.agentStops = [
      { seed: env.seeds[0]!, reason: 'context-length', message: 'HTTP 400: the prompt has 1144 tokens' },
      { seed: env.seeds[1]!, reason: 'context-length', message: 'HTTP 400: the prompt has 1201 tokens' },
    ];
    const boards = buildLeaderboard(readLeaderboardEntries([submission(stopped)], [suite]), [suite]);
    expect(renderMarkdown(boards)).toContain(
      `- short context: episodes the agent stopped (context full), scored as failures: ${env.envId} 2.`,
    );
  });

  // Two agents with the same scores are not first and second: the label is all that would order them.
  it('gives rows that tie on success and reward the same rank', () => {
    const copy = structuredClone(results.scripted as BenchResult);
    copy.runId = 'copy';
    copy.label = 'a copy of scripted';
    const boards = buildLeaderboard(readLeaderboardEntries([join(out, 'results'), submission(copy)], [suite]), [suite]);
    expect(boards[0]?.rows.map((row) => [row.rank, row.label])).toEqual([
      [1, 'a copy of scripted'],
      [1, 'scripted'],
      [3, 'random'],
    ]);
    expect(renderMarkdown(boards)).toMatch(/\n\| 1 \| a copy of scripted \(Ada\) \|[^\n]*\n\| 1 \| scripted \|/);
  });

  // The same result sent twice, or a bench's own result beside the submission made of it, is one run: it was two
  // or three rows, ranked side by side as if three agents had scored alike.
  it('shows a run once when it comes in several files, keeping the copy whose records are here', () => {
    const scripted = results.scripted as BenchResult;
    const first = submission(scripted);
    const again = submission(scripted, { description: 'sent again' });
    const boards = buildLeaderboard(readLeaderboardEntries([first, join(out, 'results'), again], [suite]), [suite]);
    expect(boards[0]?.rows.map((row) => [row.rank, row.label, row.submittedBy])).toEqual([
      [1, 'scripted', null],
      [2, 'random', null],
    ]);
    const row = boards[0]?.rows[0];
    expect(row?.recordsFile).toBe(join(out, 'runs', 'tiny-v1--scripted', 'records.jsonl'));
    expect(row?.duplicates).toEqual([basename(first), basename(again)]);
    expect(renderMarkdown(boards)).toContain(
      `- scripted: the same run is also in ${basename(first)}, ${basename(again)}; shown once.`,
    );
    expect(renderHtml(boards)).toContain(`; shown once.</li>`);
    // A copy with a new run id is another row (the tie test above): only the very same run is folded.
  });

  // Results of a suite not known here are not checked against it; two that share its id but not its hash played
  // different episodes and were ranked in one table.
  it('never ranks results of an unknown suite with different hashes together', () => {
    const theirs = structuredClone(results.scripted as BenchResult);
    theirs.suite = { ...theirs.suite, id: 'their-v1', name: 'their' };
    const edited = structuredClone(theirs);
    edited.suite.sha256 = 'f'.repeat(64);
    edited.runId = 'edited';
    const boards = buildLeaderboard(readLeaderboardEntries([submission(theirs), submission(edited)], [suite]), [suite]);
    expect(boards.map((board) => [board.suiteId, board.rows.length])).toEqual([
      [`their-v1 (sha256 ${theirs.suite.sha256.slice(0, 12)}…)`, 1],
      ['their-v1 (sha256 ffffffffffff…)', 1],
    ]);
    // One hash: the table keeps the suite's plain id.
    expect(buildLeaderboard(readLeaderboardEntries([submission(theirs)], [suite]), [suite])[0]?.suiteId).toBe(
      'their-v1',
    );
  });

  // The page said "2000 seeded resamples" whatever the results used; these were made with 200.
  it('states the resample count the results give, not a constant', () => {
    const boards = buildLeaderboard(readLeaderboardEntries([join(out, 'results')], [suite]), [suite]);
    const html = renderHtml(boards);
    expect(html).toContain('95% percentile bootstrap interval (200 seeded resamples of the episodes;');
    expect(html).not.toContain('2000 seeded');
    const more = structuredClone(results.scripted as BenchResult);
    more.statistics.resamples = 2000;
    more.runId = 'more-resamples';
    const mixed = buildLeaderboard(readLeaderboardEntries([join(out, 'results'), submission(more)], [suite]), [suite]);
    expect(renderHtml(mixed)).toContain('(2000 or 200 seeded resamples of the episodes, as each result states;');
  });

  // Two benches sharing an --out each re-render the pages as they end. Rewritten in place, a page was empty for a
  // moment: the other bench's ownership check read it and refused it as "not written by turngym leaderboard"
  // (and a browser could load half a page). Replaced whole, a reader holding the old file keeps the old page.
  it('replaces each page whole, never rewriting it in place', () => {
    const site = join(out, 'whole-site');
    const held = join(out, 'held');
    mkdirSync(held, { recursive: true });
    const first = writeLeaderboard({ inputs: [join(out, 'results')], outDir: site, suites: [suite], title: 'First' });
    const pages = [first.files.markdown, first.files.html];
    const before = pages.map((file, index) => {
      linkSync(file, join(held, String(index)));
      return readFileSync(file, 'utf8');
    });
    writeLeaderboard({ inputs: [join(out, 'results')], outDir: site, suites: [suite], title: 'Second' });
    pages.forEach((file, index) => {
      expect(readFileSync(join(held, String(index)), 'utf8')).toBe(before[index]);
      expect(readFileSync(file, 'utf8')).toContain('Second');
    });
    expect(readdirSync(site).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });
});
