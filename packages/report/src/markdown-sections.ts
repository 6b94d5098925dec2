/** One generated section of a markdown document: its marker name, its `## title` and its lines. */
export interface MarkdownSection {
  readonly name: string;
  readonly title: string;
  readonly lines: readonly string[];
}

/**
 * A markdown document with each generated section replaced (the perf benchmarks' `--write`, the learning
 * summary). A section's generated lines sit between `<!-- marker:name -->` and `<!-- /marker:name -->`
 * (`marker`: `bench` by default) under its `## title`; notes written by hand go outside the markers (above or
 * below) and stay, and the title above the markers is updated. A section with its title but no markers (a
 * document written before them) gets the new figures right under the title and keeps its old text below
 * them, named in `kept` so that whoever runs it removes what the new figures replace; a new section is appended.
 */
export function updateMarkdownSections(
  document: string,
  sections: readonly MarkdownSection[],
  marker = 'bench',
): { text: string; kept: string[] } {
  const begin = (name: string): string => `<!-- ${marker}:${name} -->`;
  const end = (name: string): string => `<!-- /${marker}:${name} -->`;
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
