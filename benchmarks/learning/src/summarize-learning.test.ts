import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { EXPERIMENTS } from './experiments';

const SCRIPT = join(__dirname, '..', 'dist', 'summarize-learning.js');

const summarize = (root: string, out: string) =>
  spawnSync(process.execPath, [SCRIPT, '--root', root, '--out', out], { encoding: 'utf8', timeout: 60_000 });

/** A root holding only the math experiment's SFT stage, whose last evaluation scored `success`. */
function mathRoot(dir: string, success: number): string {
  const root = join(dir, 'runs');
  mkdirSync(join(root, 'math', 'sft', 'run'), { recursive: true });
  writeFileSync(
    join(root, 'math', 'sft', 'run', 'metrics.jsonl'),
    `${JSON.stringify({ 'eval/success_rate': success, iteration: 0 })}\n`,
  );
  return root;
}

const title = (name: string) => {
  const experiment = EXPERIMENTS.find((candidate) => candidate.name === name)!;
  return `## ${name}: \`${experiment.envId}\` ${JSON.stringify(experiment.envOptions)}`;
};

describe('summarize-learning', () => {
  // It rewrites the learning page whole, so a mistyped --root used to replace the page by empty tables.
  it.each([
    ['a root that does not exist', (dir: string) => join(dir, 'missing'), /does not exist/],
    ['a root without learning runs', (dir: string) => dir, /no learning runs of math, wiki/],
  ])('refuses %s and leaves the page as it was', (_, rootOf, message) => {
    const dir = mkdtempSync(join(tmpdir(), 'turngym-summarize-'));
    try {
      const out = join(dir, 'learning.md');
      writeFileSync(out, '# hand-written\n');
      const run = spawnSync(process.execPath, [SCRIPT, '--root', rootOf(dir), '--out', out], {
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(run.status).toBe(1);
      expect(run.stderr).toMatch(message);
      expect(readFileSync(out, 'utf8')).toBe('# hand-written\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('replaces only the tables between its markers, keeping what is written by hand and experiments without runs', () => {
    const dir = mkdtempSync(join(tmpdir(), 'turngym-summarize-'));
    try {
      const out = join(dir, 'learning.md');
      const page = [
        '# Learning results, with a note by hand',
        '',
        title('math'),
        '',
        '<!-- summarize:math -->',
        'old math tables',
        '<!-- /summarize:math -->',
        '',
        'A GPU run, written by hand.',
        '',
        title('wiki'),
        '',
        '<!-- summarize:wiki -->',
        'old wiki tables',
        '<!-- /summarize:wiki -->',
        '',
        '## A reading, by hand',
        '',
      ].join('\n');
      writeFileSync(out, page);
      const run = summarize(mathRoot(dir, 0.5), out);
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
      const text = readFileSync(out, 'utf8');
      expect(text).not.toContain('old math tables');
      expect(text).toMatch(/<!-- summarize:math -->\nSFT warm start .*test success \*\*0\.500\*\*/);
      for (const kept of [
        '# Learning results, with a note by hand',
        'A GPU run, written by hand.',
        'old wiki tables',
        '## A reading, by hand',
      ])
        expect(text).toContain(kept);
      expect(text.indexOf('A GPU run, written by hand.')).toBeGreaterThan(text.indexOf('<!-- /summarize:math -->'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('writes a new page with its header, the tables in markers and the notes of NOTES.md below them', () => {
    const dir = mkdtempSync(join(tmpdir(), 'turngym-summarize-'));
    try {
      const out = join(dir, 'docs', 'learning.md');
      const run = summarize(mathRoot(dir, 0.25), out);
      expect(run.status).toBe(0);
      const text = readFileSync(out, 'utf8');
      expect(text.startsWith('# Learning results\n')).toBe(true);
      expect(text).toContain(`${title('math')}\n\n<!-- summarize:math -->\nSFT warm start`);
      const notes = readFileSync(join(__dirname, '..', 'NOTES.md'), 'utf8').trim();
      expect(text.endsWith(`<!-- /summarize:math -->\n\n${notes}\n`)).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
