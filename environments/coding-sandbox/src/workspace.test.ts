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

  it('snapshots are copies', () => {
    const workspace = new Workspace({ 'a.ts': 'x' }, limits);
    const snapshot = workspace.snapshot();
    snapshot['a.ts'] = 'changed';
    expect(workspace.read('a.ts')).toBe('x');
  });
});
