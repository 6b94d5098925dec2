/**
 * The figures of a section, read from the markdown tables it prints, so a section stays a function that returns
 * lines and still gets medians over runs, a JSON record and `--compare`. A column's header says which way is
 * better (`steps/s`, `vs bare`: higher; `p99 ms`, `peak RSS`: lower; `mean turns`: neither, recorded only);
 * the first column and identifier columns (`mode`, `sessions`, …) name the row.
 */

export type Better = 'higher' | 'lower';

export interface Figure {
  /** `row name [column header]`, unique within its section (a repeated one gets ` #2`, …). */
  readonly key: string;
  readonly value: number;
  readonly better?: Better;
}

/** A figure over several runs: `value` is the median. */
export interface RecordedFigure extends Figure {
  readonly runs: readonly number[];
}

interface Cell {
  readonly key: string;
  readonly value: number;
  readonly better: Better | undefined;
  readonly line: number;
  readonly column: number;
  readonly format: NumberFormat;
}

interface NumberFormat {
  readonly prefix: string;
  readonly suffix: string;
  readonly decimals: number;
  readonly grouped: boolean;
}

const HIGHER = /\/s\b|\bper s\b|per second|per cpu|\bvs\b|ratio|speed|hit rate|success|throughput|gflop/i;
const LOWER = /\b(ms|s|mb|gb|kb|seconds?)\b|latency|\brss\b|\bpss\b|failures|bytes|start-up/i;
const IDENTIFIER =
  /^(mode|sessions|workers|load|config|backend|operation|edges in store|env|rollouts|stack|loop|evaluation|corpus|dump|update|params|train batch|sequences)$/i;
const NUMBER = /^([<>≈~]?\s*)(-?\d{1,3}(?:,\d{3})+(?:\.\d+)?|-?\d+(?:\.\d+)?)(\s*(?:%|×|ms|s|MB|GB|KB|k)?)$/;

/** Which way is better for a column, from its header; undefined: neither (the figure is recorded, not compared). */
export function betterFor(header: string): Better | undefined {
  if (HIGHER.test(header)) return 'higher';
  if (LOWER.test(header)) return 'lower';
  return undefined;
}

const cellsOf = (line: string): string[] =>
  line
    .trim()
    .replace(/^\||\|$/g, '')
    .split('|')
    .map((cell) => cell.trim());

const isSeparator = (line: string): boolean => /^\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?$/.test(line.trim());

function parseNumber(text: string): { value: number; format: NumberFormat } | undefined {
  const match = NUMBER.exec(text);
  if (!match) return undefined;
  const digits = match[2] as string;
  return {
    value: Number(digits.replace(/,/g, '')),
    format: {
      prefix: match[1] as string,
      suffix: match[3] as string,
      decimals: digits.includes('.') ? (digits.split('.')[1] as string).length : 0,
      grouped: digits.includes(','),
    },
  };
}

function formatNumber(value: number, format: NumberFormat, withAffixes = true): string {
  const digits = format.grouped
    ? value.toLocaleString('en-US', { minimumFractionDigits: format.decimals, maximumFractionDigits: format.decimals })
    : value.toFixed(format.decimals);
  return withAffixes ? `${format.prefix}${digits}${format.suffix}` : digits;
}

function tableCells(lines: readonly string[]): Cell[] {
  const cells: Cell[] = [];
  const seen = new Map<string, number>();
  for (let i = 0; i + 1 < lines.length; i++) {
    if (!(lines[i] as string).trim().startsWith('|') || !isSeparator(lines[i + 1] as string)) continue;
    const headers = cellsOf(lines[i] as string);
    const identifiers = headers.map((header, column) => column === 0 || IDENTIFIER.test(header));
    let row = i + 2;
    for (; row < lines.length && (lines[row] as string).trim().startsWith('|'); row++) {
      const values = cellsOf(lines[row] as string);
      // A measured number in a row's name (`expert (7.3 steps/episode)`) would make its key differ between runs.
      const name = values
        .filter((_, column) => identifiers[column])
        .join(' · ')
        .replace(/\([^()]*\)/g, (group) => group.replace(/\d[\d,.]*/g, '#'));
      values.forEach((text, column) => {
        if (identifiers[column] || column >= headers.length) return;
        const parsed = parseNumber(text);
        if (!parsed) return;
        const base = `${name} [${headers[column] as string}]`;
        const count = (seen.get(base) ?? 0) + 1;
        seen.set(base, count);
        cells.push({
          key: count === 1 ? base : `${base} #${count}`,
          value: parsed.value,
          better: betterFor(headers[column] as string),
          line: row,
          column,
          format: parsed.format,
        });
      });
    }
    i = row - 1;
  }
  return cells;
}

/** Every number in the tables of a section's lines, keyed by row and column. */
export function parseFigures(lines: readonly string[]): Figure[] {
  return tableCells(lines).map(({ key, value, better }) => (better ? { key, value, better } : { key, value }));
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/**
 * Several runs of one section as one: the first run's lines with each table figure replaced by its median
 * over the runs and its spread, `median [min–max]` (a figure missing from some run is the median of the runs
 * that have it). Prose outside the tables is the first run's.
 */
export function combineRuns(runs: readonly (readonly string[])[]): { lines: string[]; figures: RecordedFigure[] } {
  const first = runs[0] ?? [];
  const perRun = runs.map((lines) => new Map(tableCells(lines).map((cell) => [cell.key, cell])));
  const lines = [...first];
  const figures: RecordedFigure[] = [];
  const edits = new Map<number, Map<number, string>>();
  for (const cell of tableCells(first)) {
    const cells = perRun.map((run) => run.get(cell.key)).filter((other): other is Cell => other !== undefined);
    const values = cells.map((other) => other.value);
    // `500` in one run and `1,200` in another: the runs' numbers are grouped when any of them is.
    const format = { ...cell.format, grouped: cells.some((other) => other.format.grouped) };
    const value = median(values);
    figures.push({ key: cell.key, value, ...(cell.better ? { better: cell.better } : {}), runs: values });
    if (runs.length > 1) {
      const row = edits.get(cell.line) ?? new Map<number, string>();
      const low = formatNumber(Math.min(...values), format, false);
      const high = formatNumber(Math.max(...values), format, false);
      row.set(
        cell.column,
        low === high ? formatNumber(value, format) : `${formatNumber(value, format)} [${low}–${high}]`,
      );
      edits.set(cell.line, row);
    }
  }
  for (const [line, row] of edits) {
    const values = cellsOf(lines[line] as string).map((text, column) => row.get(column) ?? text);
    lines[line] = `| ${values.join(' | ')} |`;
  }
  return { lines, figures };
}
