import type { ResultsFile, SectionResult } from './results-file';

export type ComparisonStatus = 'regression' | 'better' | 'same' | 'missing' | 'new';

export interface ComparisonRow {
  readonly section: string;
  readonly key: string;
  readonly recorded: number | undefined;
  readonly now: number | undefined;
  /** now ÷ recorded for a higher-is-better figure, recorded ÷ now for a lower-is-better one: below 1 is worse. */
  readonly factor: number | undefined;
  readonly status: ComparisonStatus;
}

/**
 * Every directed figure of the recorded sections against the same figure now. A figure is a regression when
 * it is more than `threshold` worse: a rate below (1 − threshold)× the recorded one, a time or a size above
 * 1 / (1 − threshold)× (1.25× at 0.2: the same factor as a rate). Figures with no better direction are not
 * compared; a figure that is gone or new is listed, not flagged.
 */
export function compareResults(
  recorded: ResultsFile,
  now: Record<string, SectionResult>,
  threshold: number,
): ComparisonRow[] {
  const rows: ComparisonRow[] = [];
  for (const [section, result] of Object.entries(now)) {
    const before = recorded.sections[section];
    if (!before) continue;
    const current = new Map(result.figures.map((figure) => [figure.key, figure]));
    const keys = new Set(before.figures.map((figure) => figure.key));
    for (const figure of before.figures) {
      if (!figure.better) continue;
      const value = current.get(figure.key)?.value;
      if (value === undefined) {
        rows.push({
          section,
          key: figure.key,
          recorded: figure.value,
          now: undefined,
          factor: undefined,
          status: 'missing',
        });
        continue;
      }
      const factor =
        figure.value === 0 || value === 0
          ? undefined
          : figure.better === 'higher'
            ? value / figure.value
            : figure.value / value;
      const status: ComparisonStatus =
        factor === undefined
          ? 'same'
          : factor < 1 - threshold
            ? 'regression'
            : factor > 1 / (1 - threshold)
              ? 'better'
              : 'same';
      rows.push({ section, key: figure.key, recorded: figure.value, now: value, factor, status });
    }
    for (const figure of result.figures) {
      if (figure.better && !keys.has(figure.key))
        rows.push({
          section,
          key: figure.key,
          recorded: undefined,
          now: figure.value,
          factor: undefined,
          status: 'new',
        });
    }
  }
  const order: ComparisonStatus[] = ['regression', 'missing', 'better', 'new', 'same'];
  return rows.sort((a, b) => order.indexOf(a.status) - order.indexOf(b.status));
}

const number = (value: number | undefined): string =>
  value === undefined
    ? '—'
    : value.toLocaleString('en-US', {
        maximumFractionDigits: Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 3,
      });

/** The comparison as a markdown table, regressions first, with each side's load average. */
export function formatComparison(
  rows: readonly ComparisonRow[],
  recorded: ResultsFile,
  now: Record<string, SectionResult>,
  threshold: number,
): string {
  const regressions = rows.filter((row) => row.status === 'regression').length;
  const load = (result: SectionResult | undefined): string =>
    result
      ? `${result.context.commit}, load ${result.context.loadStart[0]?.toFixed(2)}→${result.context.loadEnd[0]?.toFixed(2)}`
      : '—';
  const lines = [
    `Compared with the recorded results (flagged: more than ${Math.round(100 * threshold)}% worse).`,
    '',
    '| section | recorded at | now at |',
    '|---|---|---|',
    ...Object.keys(now).map(
      (section) => `| ${section} | ${load(recorded.sections[section])} | ${load(now[section])} |`,
    ),
    '',
    '| | section | figure | recorded | now | change (+: better) |',
    '|---|---|---|---:|---:|---:|',
    ...rows.map((row) => {
      const mark =
        row.status === 'regression'
          ? '✗ worse'
          : row.status === 'better'
            ? 'better'
            : row.status === 'same'
              ? ''
              : row.status;
      const change =
        row.factor === undefined ? '' : `${row.factor >= 1 ? '+' : ''}${(100 * (row.factor - 1)).toFixed(0)}%`;
      return `| ${mark} | ${row.section} | ${row.key} | ${number(row.recorded)} | ${number(row.now)} | ${change} |`;
    }),
    '',
    regressions === 0
      ? 'No figure is worse by more than the threshold.'
      : `${regressions} figure${regressions === 1 ? ' is' : 's are'} worse by more than ${Math.round(100 * threshold)}%.`,
  ];
  return `${lines.join('\n')}\n`;
}
