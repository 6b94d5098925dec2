import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeFakeExperiment } from '../packages/report/src/__fixtures__/fake-runs';
import { errorLines, runBuiltCli } from './helpers/run-built-cli';

/** The data the page embeds (what its script draws). */
function embeddedData(file: string): { title: string; xAxis: string; charts: { metric: string }[]; runs: unknown[] } {
  const html = readFileSync(file, 'utf8');
  const json = /<script type="application\/json" id="report-data">([^]*?)<\/script>/.exec(html)![1]!;
  return JSON.parse(json);
}

describe('turngym report', () => {
  let root: string;
  let runs: string[];
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'turngym-cli-report-'));
    runs = writeFakeExperiment(join(root, 'runs'));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('writes one self-contained page for a directory of runs', async () => {
    const out = join(root, 'out', 'report.html');
    const result = await runBuiltCli(['report', join(root, 'runs'), '--out', out, '--title', 'Fake runs']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^written: \S*report\.html \(5 runs in 2 groups, 6 charts, rollouts of 5 runs; \d+ KiB\)\n$/,
    );
    const data = embeddedData(out);
    expect(data.title).toBe('Fake runs');
    expect(data.xAxis).toBe('global_step');
    expect(data.runs).toHaveLength(5);
  });

  it('charts only the metrics asked for, against the x axis asked for', async () => {
    const out = join(root, 'chosen.html');
    const result = await runBuiltCli([
      'report',
      ...runs.slice(2, 4), // grpo seeds 0 and 1: they log custom/odd_metric
      '--out',
      out,
      '--metric',
      'custom/odd_metric',
      '--metric',
      'charts/success_rate',
      '--x',
      'budget/generated_tokens',
      '--iterations',
      '0',
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/\(2 runs in 1 group, 2 charts, rollouts of 0 runs;/);
    const data = embeddedData(out);
    expect(data.charts.map((chart) => chart.metric)).toEqual(['custom/odd_metric', 'charts/success_rate']);
    expect(data.xAxis).toBe('budget/generated_tokens');
  });

  describe('bad input: one line on stderr naming the file (and line), exit code 2', () => {
    let broken: string;
    beforeAll(() => {
      broken = mkdtempSync(join(tmpdir(), 'turngym-cli-report-bad-'));
      // tree-grpo-s0, tree-grpo-s1 (10 metrics lines), grpo-s0 (80 trajectories: 10 iterations × 2 prompts × 4).
      const [noMetrics, badMetrics, badTrajectory] = writeFakeExperiment(broken);
      rmSync(join(noMetrics!, 'metrics.jsonl'));
      appendFileSync(join(badMetrics!, 'metrics.jsonl'), '{"iteration": 10, "global_step": 88,}\n');
      appendFileSync(join(badTrajectory!, 'trajectories.jsonl'), '[1, 2]\n');
      mkdirSync(join(broken, 'grpo-s1', 'checkpoint-less'));
    });
    afterAll(() => rmSync(broken, { recursive: true, force: true }));

    const cases: { name: string; args: () => string[]; message: () => RegExp }[] = [
      {
        name: 'a directory that does not exist',
        args: () => ['report', join(root, 'nope')],
        message: () => new RegExp(`^error: ${join(root, 'nope')}: no such directory\\.$`),
      },
      {
        name: 'a directory without runs',
        args: () => ['report', join(broken, 'grpo-s1', 'checkpoint-less')],
        message: () =>
          new RegExp(
            `^error: ${join(broken, 'grpo-s1', 'checkpoint-less')}: no run\\.json in it or in its subdirectories`,
          ),
      },
      {
        name: 'a metric no run logged',
        args: () => ['report', join(root, 'runs'), '--metric', 'x/none'],
        message: () =>
          /^error: Invalid options for report: metrics: no run logged "x\/none"; logged: eval\/success_rate, /,
      },
      {
        name: 'a run without metrics.jsonl',
        args: () => ['report', join(broken, 'tree-grpo-s0')],
        message: () => new RegExp(`^error: ${join(broken, 'tree-grpo-s0', 'metrics.jsonl')}: missing `),
      },
      {
        name: 'a malformed metrics line',
        args: () => ['report', join(broken, 'tree-grpo-s1')],
        message: () => new RegExp(`^error: ${join(broken, 'tree-grpo-s1', 'metrics.jsonl')}:11: not JSON \\(`),
      },
      {
        name: 'a malformed trajectory line',
        args: () => ['report', join(broken, 'grpo-s0')],
        message: () =>
          new RegExp(`^error: ${join(broken, 'grpo-s0', 'trajectories.jsonl')}:81: trajectory must be object`),
      },
      {
        name: 'an x axis that is not one of the three',
        args: () => ['report', root, '--x', 'wall_time'],
        message: () =>
          /^error: option '--x <axis>' argument 'wall_time' is invalid\. Allowed choices are global_step, iteration, budget\/generated_tokens\.$/,
      },
    ];

    // Sequential: the broken runs are made in beforeAll, which concurrent tests do not wait for.
    it.each(cases)('$name', async ({ args, message }) => {
      const result = await runBuiltCli(args(), { cwd: root });
      const lines = errorLines(result.stderr);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(message());
      expect(result.code).toBe(2);
    });
  });
});
