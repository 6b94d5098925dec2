import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { BenchArgumentError } from './bench-error';
import type { RunContext } from './run-context';
import type { RecordedFigure } from './table-figures';

/** One section's record in the results JSON. */
export interface SectionResult {
  readonly title: string;
  readonly context: RunContext;
  readonly figures: readonly RecordedFigure[];
  /** The markdown the section printed (medians with spreads over several runs). */
  readonly markdown: readonly string[];
}

/** `docs/benchmarks/perf.json`: the latest record of each section, by name. */
export interface ResultsFile {
  readonly version: 1;
  readonly sections: Record<string, SectionResult>;
}

export function readResults(path: string): ResultsFile {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new BenchArgumentError(`cannot read results file ${path}: ${(error as Error).message}`);
  }
  const file = parsed as Partial<ResultsFile>;
  if (file.version !== 1 || typeof file.sections !== 'object' || file.sections === null)
    throw new BenchArgumentError(`${path} is not a benchmark results file (version 1 with "sections")`);
  return file as ResultsFile;
}

/** Writes `results` into the file at `path`, keeping the sections it already records and these did not run. */
export function mergeResults(path: string, results: Record<string, SectionResult>): ResultsFile {
  const previous = existsSync(path) ? readResults(path).sections : {};
  const merged: ResultsFile = { version: 1, sections: { ...previous, ...results } };
  writeFileSync(path, `${JSON.stringify(merged, null, 2)}\n`);
  return merged;
}
