import { compileCheck, normalizeText, type CheckDocument } from './answer-check';
import { loadTaskFile } from './task-file';
import { TaskFileError } from './task-file-error';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

function document(answer: string, extra: Partial<CheckDocument> = {}): CheckDocument {
  return { answer, calls: [], lastTool: null, lastResult: null, ...extra };
}

describe('answer checks', () => {
  it('compares answers as a reader would, and numbers as numbers', () => {
    expect(normalizeText('  The   Answer is PARIS. ')).toBe('the answer is paris');
    const paris = compileCheck({ equals: 'Paris' }, 'test');
    expect(paris(document('paris.'))).toBe(true);
    expect(paris(document('Lyon'))).toBe(false);
    const number = compileCheck({ equals: 6000 }, 'test');
    expect(number(document('6,000'))).toBe(true);
    expect(number(document('6000.0'))).toBe(true);
    expect(number(document('6001'))).toBe(false);
    expect(compileCheck({ approx: 3.14, tolerance: 0.01 }, 'test')(document('3.141'))).toBe(true);
  });

  it('reads thousands separators only between groups of three: a list or a decimal comma is not the number', () => {
    // All three equalled 449 before: every comma and space was dropped.
    const number = compileCheck({ equals: 449 }, 'test');
    expect(number(document('4, 4, 9'))).toBe(false);
    expect(number(document('44,9'))).toBe(false);
    expect(number(document('4 49'))).toBe(false);
    const million = compileCheck({ equals: 1000000 }, 'test');
    for (const written of ['1,000,000', '1 000 000', '1_000_000', ' 1000000 '])
      expect(million(document(written))).toBe(true);
    expect(million(document('1,000 000'))).toBe(false);
    expect(compileCheck({ gte: 100 }, 'test')(document('1,5'))).toBe(false);
  });

  it('reads paths with wildcards into calls, results and the probe, under all / any / not', () => {
    const check = compileCheck(
      {
        all: [
          { path: '$.calls[*].tool', equals: 'note_set' },
          { path: '$.probe.entities[*].observations[*]', contains: 'astronomer' },
          { not: { path: '$.lastResult.cents', gte: 200 } },
          { any: [{ startsWith: 'done' }, { oneOf: ['ok', 'finished'] }] },
        ],
      },
      'test',
    );
    const passing = document('Done!', {
      calls: [
        { tool: 'note_get', arguments: {} },
        { tool: 'note_set', arguments: {} },
      ],
      lastResult: { cents: 120 },
      probe: { entities: [{ name: 'Grace', observations: ['works as an astronomer'] }] },
    });
    expect(check(passing)).toBe(true);
    expect(check({ ...passing, lastResult: { cents: 250 } })).toBe(false);
    expect(check({ ...passing, calls: [] })).toBe(false);
    expect(check({ ...passing, answer: 'nope' })).toBe(false);
    expect(compileCheck({ path: '$.probe', exists: false }, 'test')(document('x'))).toBe(true);
  });

  it('refuses what is not in the language, naming where: no code, no regular expressions', () => {
    expect(() => compileCheck({ matches: '^(a+)+$' }, 'tasks.jsonl line 3 check')).toThrow(
      /line 3 check: unknown check key "matches"/,
    );
    expect(() => compileCheck({ all: [{ equals: 1 }, { js: 'process.exit()' }] }, 'f')).toThrow(/f\.all\[1\]/);
    expect(() => compileCheck({ path: 'answer', equals: 1 }, 'f')).toThrow(/must start with \$/);
    expect(() => compileCheck({ path: '$.answer' }, 'f')).toThrow(TaskFileError);
  });

  it('runs in linear time on a long adversarial answer', () => {
    // A catastrophic-backtracking input for a naive "strip trailing dots" pattern: many dots then a letter.
    const answer = `${'.'.repeat(200000)}x`;
    expect(compileCheck({ equals: 'x' }, 'f')(document(answer))).toBe(false);
  });
});

describe('task files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-task-file-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, text: string): string => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };

  it('reads JSON Lines and JSON arrays', () => {
    const lines = file(
      'a.jsonl',
      '// comment\n{"id":"a","prompt":"p","expected":1}\n\n{"id":"b","prompt":"q","check":{"equals":"x"}}\n',
    );
    expect(loadTaskFile(lines).map((task) => task.id)).toEqual(['a', 'b']);
    const array = file('b.json', '[{"id":"c","prompt":"p","expected":"yes"}]');
    expect(loadTaskFile(array)[0]?.score(document('Yes'))).toBe(true);
  });

  it('names the file and line of a malformed task', () => {
    expect(() =>
      loadTaskFile(file('c.jsonl', '{"id":"a","prompt":"p","expected":1}\n{"id":"b","prompt":"p"}\n')),
    ).toThrow(/c\.jsonl line 2: a task needs "expected" or "check"/);
    expect(() => loadTaskFile(file('d.jsonl', '{"id":"a","prompt":"p","expected":1,"extra":2}\n'))).toThrow(
      /d\.jsonl line 1: .*extra/,
    );
    expect(() => loadTaskFile(file('e.jsonl', '{"id":"a","prompt":"p","check":{"regex":"x"}}\n'))).toThrow(
      /e\.jsonl line 1 check: unknown check key "regex"/,
    );
  });
});
