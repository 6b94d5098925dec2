import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const SCRIPT = join(__dirname, '..', 'dist', 'summarize-learning.js');

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
});
