import { Workspace } from './workspace';

const limits = { maxFiles: 3, maxFileChars: 50 };

describe('Workspace', () => {
  it('writes, reads and lists files, and refuses what breaks its limits', () => {
    const workspace = new Workspace({ 'a.ts': 'x' }, limits);
    expect(workspace.write('b.ts', 'one\ntwo\n')).toEqual({ ok: true, note: 'Created b.ts (2 lines).' });
    expect(workspace.write('a.ts', 'y')).toEqual({ ok: true, note: 'Wrote a.ts (1 lines).' });
    expect(workspace.write('c.exe', 'z')).toMatchObject({ ok: false, feedback: expect.stringMatching(/\.ts, \.js/) });
    expect(workspace.write('big.ts', 'x'.repeat(51))).toMatchObject({
      ok: false,
      feedback: expect.stringMatching(/51 characters/),
    });
    workspace.write('c.ts', '');
    expect(workspace.write('d.ts', '')).toMatchObject({
      ok: false,
      feedback: expect.stringMatching(/already holds 3 files/),
    });
    expect(workspace.paths()).toEqual(['a.ts', 'b.ts', 'c.ts']);
  });

  it('edits exactly one occurrence, forgiving trailing spaces, and says why an edit failed', () => {
    const workspace = new Workspace(
      { 'a.ts': 'let a = 1;  \nlet b = 1;\nlet b = 1;\n' },
      { maxFiles: 5, maxFileChars: 1000 },
    );
    expect(workspace.edit('a.ts', 'let b = 1;', 'x')).toMatchObject({
      ok: false,
      feedback: expect.stringMatching(/occurs 2 times/),
    });
    expect(workspace.edit('a.ts', 'let c', 'x')).toMatchObject({
      ok: false,
      feedback: expect.stringMatching(/not found/),
    });
    expect(workspace.edit('missing.ts', 'a', 'b')).toMatchObject({
      ok: false,
      feedback: expect.stringMatching(/no file missing\.ts/),
    });
    expect(workspace.edit('a.ts', 'let a = 1;\nlet b', 'let a = 2;\nlet b')).toMatchObject({ ok: true });
    expect(workspace.read('a.ts')).toBe('let a = 2;\nlet b = 1;\nlet b = 1;\n');
  });

  it('forgives trailing blanks at every kind of line end, and answers at once on long runs of blanks', () => {
    const workspace = new Workspace(
      { 'a.ts': 'let a = 1; \t\r\nlet b = 2;  \rlet c = 3;\t\u2028end', 'b.ts': `${' '.repeat(150_000)}x` },
      { maxFiles: 5, maxFileChars: 200_000 },
    );
    expect(workspace.edit('a.ts', 'let a = 1;\r\nlet b = 2;\rlet c', 'let a = 0;\r\nlet b = 2;\rlet c')).toMatchObject({
      ok: true,
    });
    expect(workspace.read('a.ts')).toBe('let a = 0;\r\nlet b = 2;\rlet c = 3;\u2028end');
    // A regex trim (/[ \t]+$/gm) backtracked over every start in the run: 36 s for these 150,000 blanks, all of it
    // with the host's event loop blocked. The bound is a hang guard, ~100× what the loop takes on a loaded machine.
    const started = performance.now();
    expect(workspace.edit('b.ts', 'y', 'z')).toMatchObject({ ok: false, feedback: expect.stringMatching(/not found/) });
    expect(performance.now() - started).toBeLessThan(1000);
    expect(workspace.edit('b.ts', 'x'.repeat(200_001), 'z')).toMatchObject({
      ok: false,
      feedback: 'EDIT_FILE b.ts: the search text has 200001 characters, more than the 200000 a file may hold.',
    });
  });

  it('snapshots are copies', () => {
    const workspace = new Workspace({ 'a.ts': 'x' }, limits);
    const snapshot = workspace.snapshot();
    snapshot['a.ts'] = 'changed';
    expect(workspace.read('a.ts')).toBe('x');
  });
});
