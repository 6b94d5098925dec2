import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BenchArgumentError } from './bench-error';
import { mergeResults, readResults, type SectionResult } from './results-file';

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
