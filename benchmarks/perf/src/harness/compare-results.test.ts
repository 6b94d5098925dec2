import { compareResults, formatComparison } from './compare-results';
import type { ResultsFile, SectionResult } from './results-file';
import type { RunContext } from './run-context';
import type { RecordedFigure } from './table-figures';

const context: RunContext = {
  commit: 'abc1234',
  dirty: false,
  date: '2026-11-26T00:00:00.000Z',
  node: 'v20.20.2',
  cores: 2,
  cpu: 'test CPU',
  loadStart: [0.5, 0.4, 0.3],
  loadEnd: [0.7, 0.5, 0.3],
  command: 'npm run bench',
  durationMs: 3000,
  runs: 1,
};

const section = (figures: [string, number, 'higher' | 'lower' | undefined][]): SectionResult => ({
  title: 'Wiki',
  context,
  markdown: [],
  figures: figures.map(([key, value, better]): RecordedFigure => ({
    key,
    value,
    runs: [value],
    ...(better ? { better } : {}),
  })),
});

const recorded: ResultsFile = {
  version: 1,
  sections: {
    wiki: section([
      ['direct [steps/s]', 10_000, 'higher'],
      ['browser [steps/s]', 50, 'higher'],
      ['direct [CPU ms/step]', 0.1, 'lower'],
      ['browser [CPU ms/step]', 20, 'lower'],
      ['direct [mean turns]', 5, undefined],
      ['gone [steps/s]', 1, 'higher'],
    ]),
    sandbox: section([['sandboxed [per second]', 1000, 'higher']]),
  },
};

describe('compareResults', () => {
  const now = {
    wiki: section([
      ['direct [steps/s]', 7_900, 'higher'], // 21% fewer: flagged
      ['browser [steps/s]', 41, 'higher'], // 18% fewer: within 20%
      ['direct [CPU ms/step]', 0.13, 'lower'], // 1.3× the time: flagged
      ['browser [CPU ms/step]', 24, 'lower'], // 1.2× the time: within
      ['direct [mean turns]', 1, undefined], // no direction: not compared
      ['new [steps/s]', 3, 'higher'],
    ]),
  };
  const rows = compareResults(recorded, now, 0.2);

  it('flags a rate that fell by more than 20% and a time that grew by more than 1.25×, not the others', () => {
    expect(rows.filter((row) => row.status === 'regression').map((row) => row.key)).toEqual([
      'direct [steps/s]',
      'direct [CPU ms/step]',
    ]);
    expect(rows.find((row) => row.key === 'browser [steps/s]')?.status).toBe('same');
    expect(rows.find((row) => row.key === 'browser [CPU ms/step]')?.status).toBe('same');
    expect(rows.some((row) => row.key === 'direct [mean turns]')).toBe(false);
  });

  it('lists figures gone and new without flagging them, and only the sections run now', () => {
    expect(rows.find((row) => row.key === 'gone [steps/s]')?.status).toBe('missing');
    expect(rows.find((row) => row.key === 'new [steps/s]')?.status).toBe('new');
    expect(rows.every((row) => row.section === 'wiki')).toBe(true);
  });

  it('marks a figure much better as better', () => {
    const faster = compareResults(recorded, { sandbox: section([['sandboxed [per second]', 1500, 'higher']]) }, 0.2);
    expect(faster).toEqual([expect.objectContaining({ key: 'sandboxed [per second]', status: 'better', factor: 1.5 })]);
  });

  it('formats a table with the regressions first and counts them', () => {
    const text = formatComparison(rows, recorded, now, 0.2);
    const lines = text.split('\n');
    const first = lines.findIndex((line) => line.startsWith('| ✗ worse'));
    expect(lines[first]).toBe('| ✗ worse | wiki | direct [steps/s] | 10,000 | 7,900 | -21% |');
    expect(text).toContain('| wiki | abc1234, load 0.50→0.70 | abc1234, load 0.50→0.70 |');
    expect(text).toContain('2 figures are worse by more than 20%.');
  });
});
