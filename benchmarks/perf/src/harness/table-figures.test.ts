import { betterFor, combineRuns, median, parseFigures } from './table-figures';

const run = (bare: string, wrapped: string, share: string): string[] => [
  'Some prose with 12 numbers that is not a table.',
  '',
  '| stack | steps/s | vs bare | p99 ms | mean turns |',
  '|---|---:|---:|---:|---:|',
  `| bare | ${bare} | 100% | 0.50 | 3.1 |`,
  `| wrapped | ${wrapped} | ${share} | 0.75 | 3.1 |`,
];

describe('betterFor', () => {
  it.each([
    ['steps/s', 'higher'],
    ['vs bare', 'higher'],
    ['per CPU-second', 'higher'],
    ['per s (wall)', 'higher'],
    ['hit rate', 'higher'],
    ['p99 ms', 'lower'],
    ['CPU ms/step', 'lower'],
    ['P50 s', 'lower'],
    ['peak RSS', 'lower'],
    ['KB per session', 'lower'],
    ['mean turns', undefined],
    ['sessions', undefined],
  ])('%s: %s is better', (header, better) => {
    expect(betterFor(header)).toBe(better);
  });
});

describe('parseFigures', () => {
  it('reads each table number keyed by row and column, with its direction; prose is not a figure', () => {
    expect(parseFigures(run('1,165,236', '912,212', '78%'))).toEqual([
      { key: 'bare [steps/s]', value: 1165236, better: 'higher' },
      { key: 'bare [vs bare]', value: 100, better: 'higher' },
      { key: 'bare [p99 ms]', value: 0.5, better: 'lower' },
      { key: 'bare [mean turns]', value: 3.1 },
      { key: 'wrapped [steps/s]', value: 912212, better: 'higher' },
      { key: 'wrapped [vs bare]', value: 78, better: 'higher' },
      { key: 'wrapped [p99 ms]', value: 0.75, better: 'lower' },
      { key: 'wrapped [mean turns]', value: 3.1 },
    ]);
  });

  it('keys a row whose name holds a measured number the same in every run', () => {
    const keys = (perEpisode: string): string[] =>
      parseFigures(['| loop | steps/s |', '|---|---:|', `| expert (${perEpisode} steps/episode) | 10 |`]).map(
        (figure) => figure.key,
      );
    expect(keys('7.2')).toEqual(['expert (# steps/episode) [steps/s]']);
    expect(keys('7.3')).toEqual(keys('7.2'));
  });

  it('names rows by their identifier columns and numbers repeated names', () => {
    const lines = [
      '| mode | sessions | steps/s | note |',
      '|---|---:|---:|---|',
      '| in-process | 1 | 100 | — |',
      '| in-process | 64 | 200 | x |',
      '| in-process | 64 | 300 | y |',
    ];
    expect(parseFigures(lines).map((figure) => figure.key)).toEqual([
      'in-process · 1 [steps/s]',
      'in-process · 64 [steps/s]',
      'in-process · 64 [steps/s] #2',
    ]);
  });
});

describe('median', () => {
  it('is the middle value, or the mean of the two middle ones', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });
});

describe('combineRuns', () => {
  it('one run: the lines unchanged, each figure with its one run', () => {
    const lines = run('1,000', '500', '50%');
    const combined = combineRuns([lines]);
    expect(combined.lines).toEqual(lines);
    expect(combined.figures[0]).toEqual({ key: 'bare [steps/s]', value: 1000, better: 'higher', runs: [1000] });
  });

  it('three runs: each cell the median in its own format with its spread; equal runs without one', () => {
    const combined = combineRuns([
      run('1,000', '500', '50%'),
      run('3,000', '900', '30%'),
      run('2,000', '1,200', '60%'),
    ]);
    expect(combined.lines[0]).toBe('Some prose with 12 numbers that is not a table.');
    expect(combined.lines[4]).toBe('| bare | 2,000 [1,000–3,000] | 100% | 0.50 | 3.1 |');
    expect(combined.lines[5]).toBe('| wrapped | 900 [500–1,200] | 50% [30–60] | 0.75 | 3.1 |');
    expect(combined.figures.find((figure) => figure.key === 'wrapped [vs bare]')).toEqual({
      key: 'wrapped [vs bare]',
      value: 50,
      better: 'higher',
      runs: [50, 30, 60],
    });
  });
});
