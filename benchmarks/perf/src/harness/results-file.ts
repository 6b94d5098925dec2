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
 * A markdown document with each section run replaced. A section's figures sit between `<!-- bench:name -->`
 * and `<!-- /bench:name -->` under its `## title`; notes written by hand go outside the markers (above or
 * below) and stay, and the title above the markers is updated. A section with its title but no markers (a
 * document written before them) gets the new figures right under the title and keeps its old text below
 * them, named in `kept` so that whoever runs it removes what the new figures replace; a new section is appended.
 */
export function updateMarkdown(
  document: string,
  sections: readonly { name: string; title: string; lines: readonly string[] }[],
): { text: string; kept: string[] } {
  let lines = document.split('\n');
  const kept: string[] = [];
  for (const section of sections) {
    const block = [begin(section.name), ...section.lines, end(section.name)];
    const from = lines.indexOf(begin(section.name));
    const to = from >= 0 ? lines.indexOf(end(section.name), from) : -1;
    if (from >= 0 && to >= 0) {
      lines = [...lines.slice(0, from), ...block, ...lines.slice(to + 1)];
      for (let i = from - 1; i >= 0; i--) {
        if (!(lines[i] as string).startsWith('## ')) continue;
        lines[i] = `## ${section.title}`;
        break;
      }
      continue;
    }
    const heading = lines.indexOf(`## ${section.title}`);
    if (heading >= 0) {
      lines = [...lines.slice(0, heading + 1), '', ...block, ...lines.slice(heading + 1)];
      kept.push(section.name);
      continue;
    }
    while (lines.length > 0 && (lines[lines.length - 1] as string).trim() === '') lines.pop();
    lines = [...lines, '', `## ${section.title}`, '', ...block, ''];
  }
  return { text: lines.join('\n'), kept };
}
