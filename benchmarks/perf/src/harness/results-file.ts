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

const begin = (name: string): string => `<!-- bench:${name} -->`;
const end = (name: string): string => `<!-- /bench:${name} -->`;

/**
 * A markdown document with each section run replaced. A section sits between `<!-- bench:name -->` and
 * `<!-- /bench:name -->`; notes written by hand go outside the markers and stay. A section without markers
 * but with the same title is replaced from its heading to the next heading (notes there are lost, so the
 * document should carry markers); a new section is appended.
 */
export function updateMarkdown(
  document: string,
  sections: readonly { name: string; title: string; lines: readonly string[] }[],
): string {
  let lines = document.split('\n');
  for (const section of sections) {
    const block = [begin(section.name), `## ${section.title}`, '', ...section.lines, end(section.name)];
    let from = lines.indexOf(begin(section.name));
    let to = from >= 0 ? lines.indexOf(end(section.name), from) : -1;
    if (from < 0 || to < 0) {
      from = lines.indexOf(`## ${section.title}`);
      if (from >= 0) {
        to = lines.findIndex((line, i) => i > from && (line.startsWith('## ') || line.startsWith('<!-- bench:')));
        to = (to < 0 ? lines.length : to) - 1;
        while (to > from && (lines[to] as string).trim() === '') to -= 1;
      }
    }
    if (from >= 0 && to >= from) lines = [...lines.slice(0, from), ...block, ...lines.slice(to + 1)];
    else {
      while (lines.length > 0 && (lines[lines.length - 1] as string).trim() === '') lines.pop();
      lines = [...lines, '', ...block, ''];
    }
  }
  return lines.join('\n');
}
