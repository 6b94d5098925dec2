import {
  aggregateSeeds,
  groupRuns,
  interpolate,
  learningCurves,
  metricNames,
  metricSeries,
  thinSeries,
  type RunSeries,
} from './learning-curves';
import { parseMetricLine, type MetricRow } from './metrics-file';
import { finalValue, summarizeGroups } from './summary-table';

function row(iteration: number, values: Record<string, number>): MetricRow {
  return {
    iteration,
    global_step: 10 * (iteration + 1),
    values: { iteration, global_step: 10 * (iteration + 1), ...values },
  };
}

function run(algorithm: string, seed: number, rows: MetricRow[], label?: string): RunSeries {
  return { info: { algorithm, envId: 'turngym/example-v1', seed, ...(label ? { label } : {}) }, metrics: rows };
}

describe('groupRuns', () => {
  it('groups by (algorithm, envId, label), sorted, with runs by seed', () => {
    const runs = [run('grpo', 2, []), run('tree-grpo', 0, []), run('grpo', 0, []), run('grpo', 1, [], 'lr=3e-4')];
    const groups = groupRuns(runs);
    expect(groups.map((group) => [group.name, group.runs.map((member) => member.info.seed)])).toEqual([
      ['grpo · turngym/example-v1', [0, 2]],
      ['grpo · turngym/example-v1 · lr=3e-4', [1]],
      ['tree-grpo · turngym/example-v1', [0]],
    ]);
  });
});

describe('mean ± std across seeds', () => {
  it('is the mean and the sample std (n − 1) where seeds share x', () => {
    const band = aggregateSeeds([
      [
        [10, 1],
        [20, 4],
      ],
      [
        [10, 2],
        [20, 6],
      ],
      [
        [10, 3],
        [20, 8],
      ],
    ]);
    expect(band).toEqual([
      { x: 10, mean: 2, std: 1, n: 3 },
      { x: 20, mean: 6, std: 2, n: 3 },
    ]);
  });

  it('interpolates seeds logged at other x values, only over the range every seed covers', () => {
    // Seed A at budget 0 and 100; seed B at 50 and 150. At 50: A reads 5 (halfway 0 → 10), B reads 20.
    // Outside 50 … 100 only one seed is there: its value alone would make a cliff at either end.
    const band = aggregateSeeds([
      [
        [0, 0],
        [100, 10],
      ],
      [
        [50, 20],
        [150, 40],
      ],
    ]);
    expect(band.map((point) => [point.x, point.mean, point.n])).toEqual([
      [50, 12.5, 2],
      [100, 20, 2], // A: 10, B: 30 (halfway 20 → 40)
    ]);
    expect(band[0]!.std).toBeCloseTo(Math.sqrt(((5 - 12.5) ** 2 + (20 - 12.5) ** 2) / 1), 12);
  });

  it('has no band where the seeds never overlap, and one seed is its own curve with std 0', () => {
    const early: [number, number][] = [
      [0, 1],
      [10, 2],
    ];
    expect(aggregateSeeds([early, [[20, 5]]])).toEqual([]);
    expect(aggregateSeeds([early])).toEqual([
      { x: 0, mean: 1, std: 0, n: 1 },
      { x: 10, mean: 2, std: 0, n: 1 },
    ]);
  });

  it('resamples onto an even grid when the seeds have more x values than the chart can show', () => {
    const series = Array.from({ length: 1000 }, (_, index): [number, number] => [index, 2 * index]);
    const band = aggregateSeeds([series], 11);
    expect(band.map((point) => point.x)).toEqual(
      [0, 99.9, 199.8, 299.7, 399.6, 499.5, 599.4, 699.3, 799.2, 899.1, 999].map((x) => expect.closeTo(x, 9)),
    );
    expect(band[1]!.mean).toBeCloseTo(199.8, 9);
  });

  it('interpolates linearly inside a series and is undefined outside it', () => {
    const series: [number, number][] = [
      [0, 0],
      [10, 100],
      [20, 0],
    ];
    expect(interpolate(series, 5)).toBe(50);
    expect(interpolate(series, 15)).toBe(50);
    expect(interpolate(series, 20)).toBe(0);
    expect(interpolate(series, 21)).toBeUndefined();
    expect(interpolate(series, -1)).toBeUndefined();
  });

  it('thins a long seed line to the cap, keeping both ends', () => {
    const series = Array.from({ length: 1000 }, (_, index): [number, number] => [index, index]);
    const thin = thinSeries(series, 10);
    expect(thin).toHaveLength(10);
    expect(thin[0]).toEqual([0, 0]);
    expect(thin[9]).toEqual([999, 999]);
  });

  it('keeps every spike and dip of a long seed line when it thins it', () => {
    // A 10^5-step loss with a one-step spike and a one-step collapse: an even stride dropped both.
    const series = Array.from({ length: 100_000 }, (_, index): [number, number] => [index, 1 + (index % 7) / 100]);
    series[51_234] = [51_234, 40];
    series[80_001] = [80_001, -3];
    const thin = thinSeries(series, 300);
    expect(thin.length).toBeLessThanOrEqual(300);
    expect(thin).toContainEqual([51_234, 40]);
    expect(thin).toContainEqual([80_001, -3]);
    expect(thin[0]).toEqual([0, 1]);
    expect(thin[thin.length - 1]).toEqual(series[99_999]);
    const xs = thin.map(([x]) => x);
    expect(xs).toEqual([...xs].sort((a, b) => a - b));
    expect(new Set(xs).size).toBe(xs.length);
  });
});

describe('metric series and names', () => {
  it('takes the lines that have the metric, against the chosen x, the later line winning a repeated x', () => {
    const rows = [
      row(0, { 'eval/success_rate': 0.1 }),
      row(1, {}),
      row(2, { 'eval/success_rate': 0.3 }),
      row(2, { 'eval/success_rate': 0.4 }),
    ];
    expect(metricSeries(rows, 'eval/success_rate', 'iteration')).toEqual([
      [0, 0.1],
      [2, 0.4],
    ]);
    expect(metricSeries(rows, 'eval/success_rate', 'global_step')).toEqual([
      [10, 0.1],
      [30, 0.4],
    ]);
    expect(metricSeries(rows, 'eval/success_rate', 'budget/generated_tokens')).toEqual([]);
  });

  // Metric names are anyone's keys: one that is also an Object property must be a metric like any other.
  it('reads a metric named like an Object property only where a line logged it', () => {
    const rows = [
      parseMetricLine('{"iteration": 0, "global_step": 10, "toString": 0.5, "__proto__": 2}', 'metrics.jsonl:1'),
      parseMetricLine('{"iteration": 1, "global_step": 20, "__proto__": 3}', 'metrics.jsonl:2'),
    ];
    expect(metricNames([run('grpo', 0, rows)])).toEqual(['__proto__', 'toString']);
    expect(metricSeries(rows, 'toString', 'global_step')).toEqual([[10, 0.5]]);
    expect(metricSeries(rows, '__proto__', 'global_step')).toEqual([
      [10, 2],
      [20, 3],
    ]);
    expect(metricSeries(rows, 'constructor', 'global_step')).toEqual([]);
    expect(finalValue([row(0, {})], 'constructor')).toBeUndefined();
  });

  it('lists known metrics first and unknown names after, alphabetically, without the axes', () => {
    const runs = [
      run('grpo', 0, [
        row(0, { 'zeta/thing': 1, 'losses/policy_loss': 1, 'charts/SPS': 3, 'alpha/new': 2, 'eval/success_rate': 0 }),
      ]),
    ];
    expect(metricNames(runs)).toEqual([
      'eval/success_rate',
      'losses/policy_loss',
      'charts/SPS',
      'alpha/new',
      'zeta/thing',
    ]);
  });

  // The page draws from JSON, where an Infinity is `null`: one overflowing mean or span blanked the whole chart.
  it('keeps every band point of diverged seeds a number, leaving out values too large to chart', () => {
    const lines = (seed: number): MetricRow[] =>
      [0, 1, 2].map((iteration) =>
        parseMetricLine(
          JSON.stringify({
            iteration,
            global_step: 10 * (iteration + 1),
            'losses/value_loss': iteration === 1 ? 1.5e308 : seed - 1,
            'losses/policy_loss': iteration === 2 ? -1e306 : 0.25,
            // Diverged, apart: their squared deviations overflow a plain std.
            'losses/kl': iteration === 0 ? (seed === 0 ? 3e304 : -3e304) : 1e200 * (seed + 1),
          }),
          `metrics.jsonl:${iteration + 1}`,
        ),
      );
    expect(lines(0)[1]!.values).toEqual({
      iteration: 1,
      global_step: 20,
      'losses/policy_loss': 0.25,
      'losses/kl': 1e200,
    });
    expect(lines(0)[0]!.values['losses/value_loss']).toBe(-1);
    const charts = learningCurves(
      groupRuns([run('grpo', 0, lines(0)), run('grpo', 1, lines(1))]),
      ['losses/value_loss', 'losses/policy_loss', 'losses/kl'],
      'global_step',
    );
    const points = charts.flatMap((chart) => chart.groups.flatMap((group) => group.band));
    expect(points.map(({ x, mean, std }) => [x, mean, std])).toEqual([
      [10, -0.5, Math.SQRT1_2],
      [30, -0.5, Math.SQRT1_2],
      [10, 0.25, 0],
      [20, 0.25, 0],
      [10, 0, 3e304 * Math.SQRT2],
      [20, 1.5e200, 1e200 * Math.SQRT1_2],
      [30, 1.5e200, 1e200 * Math.SQRT1_2],
    ]);
    expect(JSON.stringify(points)).not.toContain('null');
  });

  it('draws a curve per group with a thin line per seed that logged the metric', () => {
    const runs = [
      run('grpo', 0, [row(0, { m: 1 }), row(1, { m: 3 })]),
      run('grpo', 1, [row(0, { m: 3 }), row(1, { m: 5 })]),
      run('sft', 0, [row(0, {})]),
    ];
    const [curves] = learningCurves(groupRuns(runs), ['m'], 'iteration');
    expect(curves!.groups).toHaveLength(1); // sft never logged m
    expect(curves!.groups[0]!.band).toEqual([
      { x: 0, mean: 2, std: Math.SQRT2, n: 2 },
      { x: 1, mean: 4, std: Math.SQRT2, n: 2 },
    ]);
    expect(curves!.groups[0]!.seeds.map((seed) => seed.seed)).toEqual([0, 1]);
  });
});

describe('summarizeGroups', () => {
  it('takes each seed’s last evaluation and ranks groups by its mean', () => {
    const runs = [
      run('grpo', 0, [row(0, { 'eval/success_rate': 0.2 }), row(4, { 'eval/success_rate': 0.5 }), row(5, {})]),
      run('grpo', 1, [row(4, { 'eval/success_rate': 0.7 })]),
      run('grpo', 2, [row(4, {})]), // no evaluation yet
      run('tree-grpo', 0, [row(4, { 'eval/success_rate': 0.9 })]),
      run('sft', 0, [row(1, {})]),
    ];
    const rows = summarizeGroups(groupRuns(runs));
    expect(rows.map((summary) => [summary.name.split(' ')[0], summary.seeds, summary.evalSuccess])).toEqual([
      ['tree-grpo', 1, { mean: 0.9, std: 0, n: 1 }],
      ['grpo', 3, { mean: 0.6, std: expect.closeTo(Math.sqrt(0.02), 12), n: 2 }],
      ['sft', 1, null],
    ]);
    expect(rows[1]!.lastIteration).toBe(5);
    // Final global steps 60, 50, 50: mean 160/3, sample std √(100/3).
    expect(rows[1]!.globalStep).toEqual({
      mean: expect.closeTo(160 / 3, 12),
      std: expect.closeTo(Math.sqrt(100 / 3), 12),
      n: 3,
    });
  });
});
