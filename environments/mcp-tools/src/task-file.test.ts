import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadTaskFile } from './task-file';

describe('task files as people write them', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'mcp-task-file-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const file = (name: string, text: string): string => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  const task = { id: 'a', prompt: 'What is 2 + 2?', expected: 4 };

  it('reads a JSON array or JSON Lines saved with a byte-order mark and CRLF line ends', () => {
    // The array was refused: "not valid JSON (Unexpected token '\uFEFF' …)".
    const array = file('tasks.json', `\uFEFF${JSON.stringify([task], null, 2).split('\n').join('\r\n')}`);
    expect(loadTaskFile(array).map((loaded) => loaded.id)).toEqual(['a']);
    const lines = file('tasks.jsonl', `\uFEFF${JSON.stringify(task)}\r\n${JSON.stringify({ ...task, id: 'b' })}\r\n`);
    expect(loadTaskFile(lines).map((loaded) => loaded.id)).toEqual(['a', 'b']);
  });

  it('says what the format is when a task is spread over several lines', () => {
    const pretty = file('pretty.jsonl', JSON.stringify(task, null, 2));
    expect(() => loadTaskFile(pretty)).toThrow(
      /line 1: not valid JSON \(.*\); a task file holds one task per line \(JSON Lines\) or one JSON array of tasks/,
    );
  });

  it("refuses a solution whose answer is not the expected one (the scripted baseline's silent 0)", () => {
    const wrong = file('wrong.jsonl', JSON.stringify({ ...task, solution: { calls: [], answer: '5' } }));
    expect(() => loadTaskFile(wrong)).toThrow(`${wrong} line 1: the solution answers "5", which is not the expected 4`);
    const wordy = file('wordy.jsonl', JSON.stringify({ ...task, solution: { calls: [], answer: 'four is 4.' } }));
    expect(() => loadTaskFile(wordy)).toThrow(/the solution answers "four is 4\."/);
    const fine = file('fine.jsonl', JSON.stringify({ ...task, solution: { calls: [], answer: ' 4. ' } }));
    expect(loadTaskFile(fine)[0]?.solution?.answer).toBe(' 4. ');
  });

  it('refuses a check no answer can pass: oneOf an empty list', () => {
    const never = file('never.jsonl', JSON.stringify({ id: 'a', prompt: 'p', check: { oneOf: [] } }));
    expect(() => loadTaskFile(never)).toThrow(/line 1 check: oneOf needs a non-empty array/);
  });

  it('refuses a check nested past the stack with the file and line, not a bare RangeError', () => {
    // A check 100,000 "not"s deep overflowed the stack while it was compiled: a RangeError naming no file or line.
    const depth = 100_000;
    const deep = `${'{"not":'.repeat(depth)}{"equals":1}${'}'.repeat(depth)}`;
    const path = file('deep.jsonl', `\n{"id":"a","prompt":"p","check":${deep}}\n`);
    expect(() => loadTaskFile(path)).toThrow(`${path} line 2: task 0 nests more than 100 levels deep`);
  });
});
