import { parseCodingAction } from './action-parser';

const call = (action: Parameters<typeof parseCodingAction>[0]) => {
  const parsed = parseCodingAction(action);
  if (!parsed.ok) throw new Error(parsed.feedback);
  return parsed.call;
};

describe('parseCodingAction', () => {
  it('reads WRITE_FILE with the content in a fenced block, after prose', () => {
    const text =
      'I will write the solution now.\n\nWRITE_FILE solution.ts\n```ts\nexport const x = 1;\nconst s = "```";\n```\nDone.';
    expect(call(text)).toEqual({
      name: 'WRITE_FILE',
      arguments: { path: 'solution.ts', content: 'export const x = 1;\nconst s = "```";\n' },
    });
  });

  it('honours longer fences so the content may contain ``` lines', () => {
    const text = 'WRITE_FILE(notes.md)\n````md\n```\ninner\n```\n````';
    expect(call(text).arguments).toEqual({ path: 'notes.md', content: '```\ninner\n```\n' });
  });

  it('reads EDIT_FILE SEARCH/REPLACE blocks, fenced or not, with an empty replacement', () => {
    const plain = 'EDIT_FILE src/cart.ts\n<<<<<<< SEARCH\n  a -= 1;\n  b();\n=======\n  a -= 2;\n>>>>>>> REPLACE';
    expect(call(plain)).toEqual({
      name: 'EDIT_FILE',
      arguments: { path: 'src/cart.ts', search: '  a -= 1;\n  b();', replace: '  a -= 2;' },
    });
    const fenced = 'EDIT_FILE src/x.ts\n```\n<<<<<<< SEARCH\ndrop me\n=======\n>>>>>>> REPLACE\n```';
    expect(call(fenced).arguments).toEqual({ path: 'src/x.ts', search: 'drop me', replace: '' });
  });

  it('reads RUN with code, RUN with a file, READ_FILE, RUN_TESTS and SUBMIT', () => {
    expect(call('RUN\n```js\nconsole.log(1)\n```')).toEqual({ name: 'RUN', arguments: { code: 'console.log(1)' } });
    expect(call('RUN main.ts')).toEqual({ name: 'RUN', arguments: { path: 'main.ts' } });
    expect(call('READ_FILE(src/a.ts)')).toEqual({ name: 'READ_FILE', arguments: { path: 'src/a.ts' } });
    expect(call('run_tests()').name).toBe('RUN_TESTS');
    expect(call('All tests pass, so:\nSUBMIT').name).toBe('SUBMIT');
  });

  it('reads every header form, and answers at once on a header line ending in a long run of blanks', () => {
    for (const header of [
      'RUN main.ts',
      '  run   main.ts \t',
      'RUN(main.ts)',
      'RUN (main.ts)',
      'RUN\tmain.ts)',
      'RUN(main.ts',
    ])
      expect(call(header)).toEqual({ name: 'RUN', arguments: { path: 'main.ts' } });
    for (const prose of ['RUN main.ts now', 'RUN ( main.ts)', 'RUN main.ts )', 'RUN x('])
      expect(parseCodingAction(prose)).toMatchObject({ ok: false });
    // One regex with overlapping runs of blanks took 28 s for these 200,000 (quadratic), blocking the host's
    // event loop. The bound is a hang guard, ~100× what the parse takes on a loaded machine.
    const long = `I will run it now.\nRUN${' '.repeat(200_000)}x y`;
    const started = performance.now();
    expect(parseCodingAction(long)).toMatchObject({ ok: false, feedback: expect.any(String) });
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('accepts JSON arguments and structured function calls, validated against the tool schemas', () => {
    expect(call('WRITE_FILE({"path": "a.ts", "content": "x"})').arguments).toEqual({ path: 'a.ts', content: 'x' });
    expect(call({ name: 'EDIT_FILE', arguments: { path: 'a.ts', search: 'x', replace: 'y' } }).name).toBe('EDIT_FILE');
    const missing = parseCodingAction({ name: 'WRITE_FILE', arguments: { path: 'a.ts' } });
    expect(missing).toMatchObject({ ok: false, feedback: expect.stringMatching(/content is required/) });
  });

  it('explains what is wrong with a malformed call', () => {
    expect(parseCodingAction('WRITE_FILE solution.ts\nexport const x = 1;')).toMatchObject({
      ok: false,
      feedback: expect.stringMatching(/fenced code block/),
    });
    expect(parseCodingAction('EDIT_FILE a.ts\nfoo')).toMatchObject({
      ok: false,
      feedback: expect.stringMatching(/<<<<<<< SEARCH/),
    });
    expect(parseCodingAction('DELETE_FILE(a.ts)')).toMatchObject({
      ok: false,
      feedback: expect.stringMatching(/Unknown tool "DELETE_FILE"/),
    });
    expect(parseCodingAction('')).toMatchObject({ ok: false });
  });

  it('refuses paths that leave the workspace or use the reserved names', () => {
    for (const path of ['../etc/passwd', '/etc/passwd', 'a/../../b.ts', '__tests__.ts', 'src/./x.ts']) {
      expect(parseCodingAction({ name: 'READ_FILE', arguments: { path } })).toMatchObject({
        ok: false,
        feedback: expect.stringMatching(/path/),
      });
    }
  });

  it('says in words what a workspace path is, in every syntax, instead of quoting the path regex', () => {
    for (const action of [
      { name: 'WRITE_FILE', arguments: { path: '../x.ts', content: '1' } },
      'READ_FILE(/etc/passwd)',
      'WRITE_FILE({"path": "__runner.ts", "content": "1"})',
      'Here it is:\nWRITE_FILE src/../x.ts\n```ts\n1\n```',
    ]) {
      const parse = parseCodingAction(action);
      expect(parse.ok).toBe(false);
      const { feedback } = parse as { feedback: string };
      expect(feedback).toMatch(
        /arguments\.path must be a workspace path: relative, .* no "\." or "\.\." part, not starting with "__"/,
      );
      expect(feedback).toMatch(/\(got "[^"]+"\)/);
      expect(feedback).not.toContain('(?!');
    }
  });

  it('says that path letters are ASCII when a path has an accented letter', () => {
    // "letters" read as if `src/café.ts` were allowed; the refusal then named no reason for it.
    const parse = parseCodingAction('WRITE_FILE src/café.ts\n```ts\nexport const x = 1;\n```');
    expect(parse.ok).toBe(false);
    expect((parse as { feedback: string }).feedback).toMatch(
      /must be a workspace path: relative, ASCII letters, digits, .*\(got "src\/café\.ts"\)/,
    );
  });
});
