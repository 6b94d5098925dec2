import {
  appendFileSync,
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fakeTrajectory, writeFakeExperiment, writeFakeRun } from './__fixtures__/fake-runs';
import { renderReport, writeReport } from './render-report';
import { ForeignOutputError, InvalidRunError } from './report-errors';
import {
  MAX_TURN_TEXT,
  readSelectedRollouts,
  scanTrajectoryIterations,
  spreadIterations,
  toRolloutRecord,
} from './rollout-records';
import { findRunDirectories, readRun } from './run-directory';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'turngym-report-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const READ = { rolloutIterations: 8, rolloutGroups: 8 };

async function errorOf(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected an error');
}

describe('finding runs', () => {
  it('takes a run directory itself, or finds the runs below a parent, each once', async () => {
    const dirs = writeFakeExperiment(join(root, 'runs'));
    const nested = join(root, 'runs', 'sweep', 'lr-small');
    writeFakeRun({ dir: nested, algorithm: 'grpo', seed: 5, iterations: 1, groups: 1, tree: false });
    const found = await findRunDirectories([join(root, 'runs'), dirs[0]!]);
    expect(found.map((run) => run.name)).toEqual([
      'runs/grpo-s0',
      'runs/grpo-s1',
      'runs/grpo-s2',
      'runs/sweep/lr-small',
      'runs/tree-grpo-s0',
      'runs/tree-grpo-s1',
    ]);
  });

  it('names a missing directory, a file, and a directory without runs', async () => {
    const missing = join(root, 'nope');
    expect((await errorOf(findRunDirectories([missing]))).message).toBe(`${missing}: no such directory.`);
    writeFileSync(join(root, 'file.txt'), 'x');
    expect((await errorOf(findRunDirectories([join(root, 'file.txt')]))).message).toMatch(/file\.txt: not a directory/);
    mkdirSync(join(root, 'empty'));
    const error = await errorOf(findRunDirectories([join(root, 'empty')]));
    expect(error).toBeInstanceOf(InvalidRunError);
    expect(error.message).toMatch(/empty: no run\.json in it or in its subdirectories/);
  });
});

describe('finding runs next to benchmark runs', () => {
  // `turngym bench` writes <out>/runs/<id>/run.json too, by default under runs/leaderboard.
  const benchRun = (dir: string): void => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'run.json'), JSON.stringify({ schema: 'turngym.bench-run/v1', runId: 'quick-v1--random' }));
    writeFileSync(join(dir, 'episodes.jsonl'), '');
  };

  it('passes over a bench run found while searching, and names one given alone', async () => {
    writeFakeExperiment(join(root, 'runs'));
    benchRun(join(root, 'runs', 'leaderboard', 'runs', 'quick-v1--random'));
    const found = await findRunDirectories([join(root, 'runs')]);
    expect(found.length).toBeGreaterThan(0);
    expect(found.map((run) => run.name).filter((name) => name.includes('leaderboard'))).toEqual([]);
    await expect(findRunDirectories([join(root, 'runs', 'leaderboard')])).rejects.toThrow(
      `${join(root, 'runs', 'leaderboard')}: holds benchmark runs of turngym bench (runs/quick-v1--random), no training run: turngym leaderboard renders those.`,
    );
    const single = join(root, 'runs', 'leaderboard', 'runs', 'quick-v1--random');
    await expect(findRunDirectories([single])).rejects.toThrow(
      `${single}: is a benchmark run of turngym bench, not a training run: turngym leaderboard renders those.`,
    );
  });
});

describe('reading a run', () => {
  const runDir = (): string => {
    const dir = join(root, 'run');
    writeFakeRun({ dir, algorithm: 'grpo', seed: 0, iterations: 3, groups: 1, tree: false });
    return dir;
  };

  it('needs metrics.jsonl and names it when it is missing', async () => {
    const dir = runDir();
    rmSync(join(dir, 'metrics.jsonl'));
    const error = await errorOf(readRun({ dir, name: 'run' }, READ));
    expect(error).toBeInstanceOf(InvalidRunError);
    expect(error.message).toBe(
      `${join(dir, 'metrics.jsonl')}: missing (a trainer writes one line per iteration there).`,
    );
  });

  it('names the file and line of a malformed metrics line', async () => {
    const dir = runDir();
    appendFileSync(join(dir, 'metrics.jsonl'), '\n{"iteration": 3, "global_step": \n');
    const error = await errorOf(readRun({ dir, name: 'run' }, READ));
    expect(error.message).toMatch(new RegExp(`^${join(dir, 'metrics.jsonl')}:5: not JSON \\(`));
  });

  it("reads Python's bare NaN and Infinity (json.dumps) as values left out, and still names other bad JSON", async () => {
    const dir = runDir();
    appendFileSync(
      join(dir, 'metrics.jsonl'),
      '{"iteration": 3, "global_step": 40, "losses/policy_loss": NaN, "charts/SPS": Infinity, ' +
        '"losses/value_loss": -Infinity, "charts/episodic_return": 0.5, "phase": "NaN Infinity \\" NaN"}\n',
    );
    const run = await readRun({ dir, name: 'run' }, READ);
    const last = run.metrics.at(-1)!;
    expect(last.iteration).toBe(3);
    expect(Object.keys(last.values).sort()).toEqual(['charts/episodic_return', 'global_step', 'iteration']);
    appendFileSync(join(dir, 'metrics.jsonl'), '{"iteration": NaN, "global_step": 50}\n');
    expect((await errorOf(readRun({ dir, name: 'run' }, READ))).message).toBe(
      `${join(dir, 'metrics.jsonl')}:5: "iteration" must be a number >= 0 (got null).`,
    );
    writeFileSync(join(dir, 'metrics.jsonl'), '{"iteration": 0, "global_step": NaNa}\n');
    expect((await errorOf(readRun({ dir, name: 'run' }, READ))).message).toMatch(/metrics\.jsonl:1: not JSON \(/);
  });

  it('names a metrics line without an iteration', async () => {
    const dir = runDir();
    appendFileSync(join(dir, 'metrics.jsonl'), '{"global_step": 40, "charts/SPS": 3}\n');
    expect((await errorOf(readRun({ dir, name: 'run' }, READ))).message).toBe(
      `${join(dir, 'metrics.jsonl')}:4: "iteration" must be a number >= 0 (got nothing).`,
    );
  });

  it('leaves out a torn last line (a write cut short) but not a torn line in the middle', async () => {
    const dir = runDir();
    appendFileSync(join(dir, 'metrics.jsonl'), '{"iteration": 3, "global_st');
    appendFileSync(join(dir, 'trajectories.jsonl'), '{"schema": "turngym.traj');
    const run = await readRun({ dir, name: 'run' }, READ);
    expect(run.metrics.map((row) => row.iteration)).toEqual([0, 1, 2]);
    expect([...run.rollouts!.iterations.keys()]).toEqual([0, 1, 2]);
    appendFileSync(join(dir, 'metrics.jsonl'), '\n');
    expect((await errorOf(readRun({ dir, name: 'run' }, READ))).message).toMatch(/metrics\.jsonl:4: not JSON/);
  });

  it('names the line of a trajectory that fails its schema or has no iteration in its id', async () => {
    const dir = runDir();
    const file = join(dir, 'trajectories.jsonl');
    // After 12 good lines (3 iterations × 4 chains), so line 13.
    appendFileSync(file, '{"schema": "turngym.trajectory/v1", "id": "it3/g0/r0"}\n');
    expect((await errorOf(readRun({ dir, name: 'run' }, READ))).message).toMatch(
      new RegExp(`^${file}:13: trajectory\\.envId is required`),
    );
    writeFileSync(file, `${JSON.stringify(fakeTrajectory({ id: 'g0/r0', group: 0, turns: [], reward: 0 }))}\n`);
    expect((await errorOf(readRun({ dir, name: 'run' }, READ))).message).toBe(
      `${file}:1: trajectory episodeId "g0/r0" does not start with it<iteration>/ (e.g. "it3/g0/t0/r0/b0").`,
    );
  });

  // Files saved by Windows tools: a byte order mark first and CRLF line ends (a BOM reads as "not JSON" at 1).
  it('reads run.json, metrics.jsonl and trajectories.jsonl saved with a BOM and CRLF line ends', async () => {
    const dir = runDir();
    for (const name of ['run.json', 'metrics.jsonl', 'trajectories.jsonl']) {
      const file = join(dir, name);
      writeFileSync(file, `\uFEFF${readFileSync(file, 'utf8').replace(/\n/g, '\r\n')}`);
    }
    const run = await readRun({ dir, name: 'run' }, READ);
    expect(run.info.algorithm).toBe('grpo');
    expect(run.metrics.map((row) => row.iteration)).toEqual([0, 1, 2]);
    expect([...run.rollouts!.iterations.keys()]).toEqual([0, 1, 2]);
  });

  it('names a file it cannot read (a directory in its place)', async () => {
    const dir = runDir();
    for (const name of ['metrics.jsonl', 'run.json']) {
      rmSync(join(dir, name));
      mkdirSync(join(dir, name));
      const error = await errorOf(readRun({ dir, name: 'run' }, READ));
      expect(error).toBeInstanceOf(InvalidRunError);
      expect(error.message).toBe(
        `${join(dir, name)}: cannot be read (EISDIR: illegal operation on a directory, read).`,
      );
    }
  });

  it('names a run.json that is not JSON or misses a field', async () => {
    const dir = runDir();
    writeFileSync(join(dir, 'run.json'), '{"algorithm": "grpo", "envId": "x", "seed": 1, "args": {}}');
    expect((await errorOf(readRun({ dir, name: 'run' }, READ))).message).toBe(
      `${join(dir, 'run.json')}: run.json.startedAt is required.`,
    );
  });
});

describe('which rollouts the viewer keeps', () => {
  it('spreads the iterations over the run, first and last included', () => {
    expect(spreadIterations([0, 1, 2, 3, 4, 5, 6, 7, 8, 9], 4)).toEqual([0, 3, 6, 9]);
    expect(spreadIterations([5, 1, 3], 8)).toEqual([1, 3, 5]);
    expect(spreadIterations([0, 1, 2], 1)).toEqual([2]);
    expect(spreadIterations([0, 1, 2], 0)).toEqual([]);
  });

  it('keeps the selected iterations and the first groups, and clips long text', async () => {
    const dir = join(root, 'run');
    writeFakeRun({ dir, algorithm: 'grpo', seed: 0, iterations: 6, groups: 3, tree: false });
    const long = fakeTrajectory({
      id: 'it5/g0/r9',
      group: 0,
      turns: [{ node: 'a', action: 'x'.repeat(MAX_TURN_TEXT + 10) }],
      reward: 1,
    });
    appendFileSync(join(dir, 'trajectories.jsonl'), `${JSON.stringify(long)}\n`);
    const file = join(dir, 'trajectories.jsonl');
    const selected = await readSelectedRollouts(file, { iterations: new Set([0, 5]), maxGroups: 2 });
    expect([...selected.iterations.keys()]).toEqual([0, 5]);
    expect(new Set(selected.iterations.get(5)!.map((record) => record.group))).toEqual(new Set([0, 1]));
    expect(selected.hiddenGroups.get(5)).toBe(1);
    const action = selected.iterations.get(5)!.at(-1)!.turns[0]!.action;
    expect(action).toBe(`${'x'.repeat(MAX_TURN_TEXT)}\n… (10 more characters in trajectories.jsonl)`);
  });

  // Models write emoji; a cut between the two halves of one would put a lone surrogate (shown as �) on the page.
  it('clips long text between characters, never inside an emoji', () => {
    const text = `${'x'.repeat(MAX_TURN_TEXT - 1)}😀 and more`;
    const record = toRolloutRecord(
      fakeTrajectory({ id: 'it0/g0/r0', group: 0, turns: [{ node: 'a', action: text, observation: text }], reward: 0 }),
    );
    expect(record.turns[0]!.action).toBe(
      `${'x'.repeat(MAX_TURN_TEXT - 1)}\n… (11 more characters in trajectories.jsonl)`,
    );
    expect(record.turns[0]!.observation.isWellFormed()).toBe(true);
  });

  it('chooses among the iterations that have rollouts, not those that have metrics', async () => {
    const dir = join(root, 'run');
    writeFakeRun({ dir, algorithm: 'grpo', seed: 0, iterations: 10, groups: 1, tree: false });
    // A trainer that saves rollouts every third iteration, and died after iteration 10's rollouts.
    const lines = readFileSync(join(dir, 'trajectories.jsonl'), 'utf8').trim().split('\n');
    const every3 = lines.filter((line) => Number(/"episodeId":"it(\d+)\//.exec(line)![1]) % 3 === 0);
    const late = fakeTrajectory({ id: 'it10/g0/r0', group: 0, turns: [], reward: 0 });
    writeFileSync(join(dir, 'trajectories.jsonl'), `${[...every3, JSON.stringify(late)].join('\n')}\n`);
    expect(await scanTrajectoryIterations(join(dir, 'trajectories.jsonl'))).toEqual([0, 3, 6, 9, 10]);
    const run = await readRun({ dir, name: 'run' }, { rolloutIterations: 3, rolloutGroups: 8 });
    expect([...run.rollouts!.iterations.keys()]).toEqual([0, 6, 10]);
  });
});

describe('renderReport', () => {
  it('renders a run that has not logged a metrics line yet, with its rollouts so far', async () => {
    const dir = join(root, 'fresh');
    writeFakeRun({ dir, algorithm: 'grpo', seed: 0, iterations: 2, groups: 1, tree: false });
    writeFileSync(join(dir, 'metrics.jsonl'), '');
    const html = await renderReport({ runs: [dir] });
    const data = JSON.parse(/id="report-data">([^]*?)<\/script>/.exec(html)![1]!);
    expect(data.charts).toEqual([]);
    expect(data.rollouts[0].iterations.map((iteration: { iteration: number }) => iteration.iteration)).toEqual([0, 1]);
  });

  it('refuses an x axis no run logged', async () => {
    writeFakeExperiment(root);
    await expect(renderReport({ runs: [root], xAxis: 'iteration' })).resolves.toMatch(/^<!doctype html>/);
    const dir = join(root, 'tree-grpo-s0');
    writeFileSync(join(dir, 'metrics.jsonl'), '{"iteration": 0, "global_step": 8}\n');
    expect((await errorOf(renderReport({ runs: [dir], xAxis: 'budget/generated_tokens' }))).message).toBe(
      'Invalid options for report: xAxis: no run logged "budget/generated_tokens" in its metrics.jsonl',
    );
  });

  it('refuses a metric no run logged, listing those that were', async () => {
    writeFakeExperiment(root);
    const error = await errorOf(renderReport({ runs: [root], metrics: ['charts/success_rate', 'eval/nope'] }));
    expect(error.message).toMatch(
      /^Invalid options for report: metrics: no run logged "eval\/nope"; logged: eval\/success_rate, /,
    );
  });

  it('embeds model text so that it cannot close the script element', async () => {
    writeFakeExperiment(root);
    const html = await renderReport({ runs: [root], title: 'A <b>bold</b> title' });
    expect(html).toContain('<title>A &lt;b&gt;bold&lt;/b&gt; title</title>');
    expect(html).not.toContain('<img src=x');
    expect(html.match(/<\/script>/g)).toHaveLength(2); // the data element's and the script's own
    expect(html).toContain('\\u003cimg src=x onerror=');
    expect(html).not.toMatch(/<(link|img|iframe)\b|src="http/); // nothing is fetched
  });
});

describe('writeReport', () => {
  // --out is typed by hand: a slip must not cost the user a run's metrics, a README or another page.
  it('replaces its own page but refuses, untouched, a file it did not write', async () => {
    writeFakeExperiment(join(root, 'runs'));
    const page = join(root, 'out', 'report.html');
    await writeReport(page, { runs: [join(root, 'runs')] });
    await writeReport(page, { runs: [join(root, 'runs')], title: 'Again' });
    expect(readFileSync(page, 'utf8')).toContain('<title>Again</title>');
    const metrics = join(root, 'runs', 'grpo-s0', 'metrics.jsonl');
    const readme = join(root, 'README.html');
    writeFileSync(readme, '<!doctype html>\n<title>my notes</title>');
    for (const file of [metrics, readme]) {
      const before = readFileSync(file, 'utf8');
      const error = await errorOf(writeReport(file, { runs: [join(root, 'runs')] }));
      expect(error).toBeInstanceOf(ForeignOutputError);
      expect(error.message).toBe(
        `${file} exists and was not written by turngym report; it is left alone: move it away, or choose another --out file.`,
      );
      expect(readFileSync(file, 'utf8')).toBe(before);
    }
  });

  // A browser reloading the page, or a second report run, must see the old page or the new one, never a torn one.
  it('replaces the page whole: a reader of the old page still reads all of it, and no temporary file is left', async () => {
    writeFakeExperiment(join(root, 'runs'));
    const page = join(root, 'report.html');
    await writeReport(page, { runs: [join(root, 'runs')], title: 'Old' });
    const old = readFileSync(page);
    const reader = openSync(page, 'r');
    try {
      await writeReport(page, { runs: [join(root, 'runs')], title: 'New' });
      // Written in place, the old page would be truncated under the open reader (it would read nothing).
      const seen = Buffer.alloc(old.length + 1);
      expect(readSync(reader, seen, 0, seen.length, 0)).toBe(old.length);
      expect(seen.subarray(0, old.length).equals(old)).toBe(true);
    } finally {
      closeSync(reader);
    }
    expect(readFileSync(page, 'utf8')).toContain('<title>New</title>');
    expect(readdirSync(root).sort()).toEqual(['report.html', 'runs']);
  });

  it('writes two reports to one page at once, leaving one whole page', async () => {
    writeFakeExperiment(join(root, 'runs'));
    const page = join(root, 'report.html');
    const written = await Promise.allSettled(
      ['First', 'Second'].map((title) => writeReport(page, { runs: [join(root, 'runs')], title })),
    );
    expect(written.map((result) => result.status)).toEqual(['fulfilled', 'fulfilled']);
    // Whichever finished reading its runs last wrote last: one whole page of the two.
    expect(readFileSync(page, 'utf8')).toMatch(/<title>(First|Second)<\/title>[^]*<\/html>\n$/);
    expect(readdirSync(root).sort()).toEqual(['report.html', 'runs']);
  });

  it('replaces a page written before the generator tag', async () => {
    writeFakeExperiment(join(root, 'runs'));
    const page = join(root, 'report.html');
    await writeReport(page, { runs: [join(root, 'runs')] });
    // As the versions before the tag wrote it: no generator, any inline script allowed, no base-uri/form-action.
    const legacy = readFileSync(page, 'utf8')
      .replace(/<meta name="generator"[^>]*>\n/, '')
      .replace(/script-src 'sha256-[^']+'/, "script-src 'unsafe-inline'")
      .replace("; base-uri 'none'; form-action 'none'", '');
    writeFileSync(page, legacy);
    expect(readFileSync(page, 'utf8')).not.toContain('name="generator"');
    await writeReport(page, { runs: [join(root, 'runs')], title: 'Newer' });
    expect(readFileSync(page, 'utf8')).toContain('<title>Newer</title>');
  });
});
