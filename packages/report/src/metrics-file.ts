import { readJsonlLines } from './internal/jsonl-lines';
import { InvalidRunError } from './report-errors';

/** The x axes a learning curve can be drawn against. */
export const X_AXES = ['global_step', 'iteration', 'budget/generated_tokens'] as const;
export type XAxis = (typeof X_AXES)[number];

/** One line of `<run>/metrics.jsonl`: an iteration's numbers, keyed by their CleanRL-style names. */
export interface MetricRow {
  readonly iteration: number;
  readonly global_step: number;
  /** Every number on the line a chart can draw (see `parseMetricLine`), `iteration` and `global_step` included (so any of them can be an x). */
  readonly values: Readonly<Record<string, number>>;
}

/** The largest magnitude a metric value is read with; see `parseMetricLine`. */
export const MAX_METRIC_MAGNITUDE = 1e305;

const isChartable = (value: unknown): value is number =>
  typeof value === 'number' && Math.abs(value) <= MAX_METRIC_MAGNITUDE;

/**
 * Reads a line of metrics. `iteration` and `global_step` must be numbers; of the other fields only finite
 * numbers are kept: a trainer writes `null` for a value it could not compute (a NaN has no JSON), and a
 * string field (a phase name) is not a curve. Unknown names are kept: every numeric field can be plotted.
 * Python's `json.dumps` writes a NaN or an infinity as a bare `NaN`, `Infinity` or `-Infinity`, which is not
 * JSON; metrics logged by Python tools are full of them (a loss that diverged), so they read as `null`: the
 * point is left out of its curve, as a value a trainer could not compute is. So is a number past ±1e305
 * (`MAX_METRIC_MAGNITUDE`): a loss that diverged that far is infinite for any chart, and the spans and band edges the
 * page takes of two such values overflow to Infinity, which JSON writes as `null`: the whole chart came out blank.
 */
export function parseMetricLine(line: string, where: string): MetricRow {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch (error) {
    const standard = withPythonNonFiniteAsNull(line);
    try {
      if (standard === undefined) throw error;
      parsed = JSON.parse(standard);
    } catch {
      throw new InvalidRunError(`${where}: not JSON (${(error as Error).message}).`);
    }
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new InvalidRunError(
      `${where}: expected a JSON object of metrics, got ${Array.isArray(parsed) ? 'an array' : typeof parsed}.`,
    );
  }
  const record = parsed as Record<string, unknown>;
  for (const field of ['iteration', 'global_step'] as const) {
    const value = record[field];
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      throw new InvalidRunError(
        `${where}: "${field}" must be a number >= 0 (got ${JSON.stringify(value) ?? 'nothing'}).`,
      );
    }
  }
  // Built whole by fromEntries, not key by key onto a prototype-less object: V8 keeps such an object in dictionary
  // mode, about 2.5 times the memory, and a run logs 10^5 lines of 30 metrics. fromEntries defines each name as
  // an own property, so a metric named "__proto__" is kept like any other; read values with `metricValue`, which
  // finds only own names ("constructor" is not a metric of every line).
  const values: Record<string, number> = Object.fromEntries(
    Object.entries(record).filter((entry): entry is [string, number] => isChartable(entry[1])),
  );
  return { iteration: record.iteration as number, global_step: record.global_step as number, values };
}

/**
 * A row's value of `name`, own fields only: rows built by callers may be plain objects, where `toString` or
 * `constructor` would otherwise read as a value on every line.
 */
export function metricValue(row: MetricRow, name: string): number | undefined {
  return Object.hasOwn(row.values, name) ? row.values[name] : undefined;
}

/** A bare NaN, Infinity or -Infinity outside a string, as Python's json module writes them. */
const PYTHON_NON_FINITE = /(?:-?Infinity|NaN)(?![\w$])/y;

/**
 * `line` with every bare `NaN`, `Infinity` and `-Infinity` outside strings written as `null`, or undefined
 * when it has none (its JSON error is then its own).
 */
function withPythonNonFiniteAsNull(line: string): string | undefined {
  let out = '';
  let replaced = false;
  let inString = false;
  for (let i = 0; i < line.length; i++) {
    const char = line[i] as string;
    if (inString) {
      out += char;
      if (char === '\\') out += line[++i] ?? '';
      else if (char === '"') inString = false;
      continue;
    }
    if (char === '"') inString = true;
    PYTHON_NON_FINITE.lastIndex = i;
    const token = char === 'N' || char === 'I' || char === '-' ? PYTHON_NON_FINITE.exec(line) : null;
    if (token && !/[\w$.]/.test(line[i - 1] ?? '')) {
      out += 'null';
      i += token[0].length - 1;
      replaced = true;
      continue;
    }
    out += char;
  }
  return replaced ? out : undefined;
}

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Reads `metrics.jsonl` line by line; blank lines are skipped, anything else malformed names its line.
 * A last line cut short (no newline, not JSON) is a write in progress or a killed one, and is left out.
 */
export async function readMetrics(path: string): Promise<MetricRow[]> {
  const rows: MetricRow[] = [];
  for await (const { text, number, torn } of readJsonlLines(path)) {
    try {
      rows.push(parseMetricLine(text, `${path}:${number}`));
    } catch (error) {
      if (!torn || parses(text)) throw error;
    }
  }
  return rows;
}
