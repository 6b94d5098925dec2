import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BenchArgumentError } from './bench-error';
import { mergeResults, readResults, updateMarkdown, type SectionResult } from './results-file';

const result = (title: string): SectionResult => ({
  title,
  context: {
    commit: 'abc1234',
    dirty: false,
    date: '2026-11-26T00:00:00.000Z',
    node: 'v20',
    cores: 2,
    cpu: 'cpu',
    loadStart: [1, 1, 1],
    loadEnd: [1, 1, 1],
    command: 'npm run bench',
    durationMs: 3000,
    runs: 1,
  },
  figures: [],
  markdown: ['| a | steps/s |'],
});

describe('updateMarkdown', () => {
  const document = [
    '# Performance benchmarks',
    '',
    '## Wiki (old goal)',
    '',
    'A note above, written by hand.',
    '<!-- bench:wiki -->',
    '| old | table |',
    '<!-- /bench:wiki -->',
    '',
    'A note below, written by hand.',
    '',
    '## Sandbox',
    '',
    '| old sandbox |',
    '',
    '## Later section',
    'kept',
  ].join('\n');

  it('replaces a marked section between its markers, updates its title and keeps the notes outside', () => {
    const { text, kept } = updateMarkdown(document, [{ name: 'wiki', title: 'Wiki (new goal)', lines: ['| new |'] }]);
    expect(text).toContain(
      '## Wiki (new goal)\n\nA note above, written by hand.\n<!-- bench:wiki -->\n| new |\n<!-- /bench:wiki -->\n\nA note below, written by hand.',
    );
    expect(text).not.toContain('| old | table |');
    expect(text).toContain('| old sandbox |');
    expect(kept).toEqual([]);
  });

  it('puts the figures of an unmarked section under its title and keeps its old text, naming it', () => {
    const { text, kept } = updateMarkdown(document, [{ name: 'sandbox', title: 'Sandbox', lines: ['| new |'] }]);
    expect(text).toContain('## Sandbox\n\n<!-- bench:sandbox -->\n| new |\n<!-- /bench:sandbox -->\n\n| old sandbox |');
    expect(kept).toEqual(['sandbox']);
  });

  it('appends a section it does not find', () => {
    const { text } = updateMarkdown(document, [{ name: 'gpu', title: 'GPU', lines: ['| gpu |'] }]);
    expect(text.endsWith('kept\n\n## GPU\n\n<!-- bench:gpu -->\n| gpu |\n<!-- /bench:gpu -->\n')).toBe(true);
  });
});

describe('mergeResults', () => {
  it('keeps the recorded sections that did not run and replaces those that did', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'bench-results-')), 'perf.json');
    mergeResults(path, { wiki: result('Wiki 1'), sandbox: result('Sandbox 1') });
    mergeResults(path, { wiki: result('Wiki 2') });
    const file = readResults(path);
    expect(file.sections.wiki?.title).toBe('Wiki 2');
    expect(file.sections.sandbox?.title).toBe('Sandbox 1');
    expect(JSON.parse(readFileSync(path, 'utf8')).version).toBe(1);
  });

  it('rejects a file that is not a results file, naming it', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'bench-results-')), 'other.json');
    writeFileSync(path, '{"name": "x"}');
    expect(() => readResults(path)).toThrow(BenchArgumentError);
    expect(() => readResults(path)).toThrow(`${path} is not a benchmark results file`);
  });
});
