import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lmScore } from './lm-commands';

/** `lm score` on JSONL files a user wrote by hand: every bad line is named by its number, nothing is coerced. */
describe('lm score input files', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'turngym-lm-score-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const score = (name: string, text: string): ReturnType<typeof lmScore> => {
    const input = join(dir, name);
    writeFileSync(input, text);
    return lmScore({ checkpoint: 'tiny-1m', input, backend: 'cpu' });
  };

  it('names the line an editor shows, blank lines counted, for lines that are not items', async () => {
    const good = JSON.stringify({ text: 'hi' });
    await expect(score('null.jsonl', `${good}\n\nnull\n`)).rejects.toThrow(/null\.jsonl:3: expected \{"text"\}/);
    await expect(score('blank.jsonl', `${good}\n\n\n{"nope": 1}\n`)).rejects.toThrow(/blank\.jsonl:4: expected/);
    await expect(score('bad.jsonl', `\n${good}\n{"text":\n`)).rejects.toThrow(/bad\.jsonl:3 is not valid JSON/);
  });

  it('refuses token lists that are not token ids instead of coercing them', async () => {
    await expect(score('x.jsonl', '{"tokens": [1, "x"]}\n')).rejects.toThrow(/x\.jsonl:1: "tokens"\[1\] is "x"/);
    // Number(true) is 1 and Number("7") is 7: both once scored as real tokens.
    await expect(score('bool.jsonl', '{"tokens": [1, true]}\n')).rejects.toThrow(/"tokens"\[1\] is true/);
    await expect(score('str.jsonl', '{"tokens": ["7"]}\n')).rejects.toThrow(/"tokens"\[0\] is "7"/);
    await expect(score('big.jsonl', '\n{"tokens": [1, 300]}\n')).rejects.toMatchObject({
      code: 'TOKENIZER_MISMATCH',
      message: expect.stringMatching(/big\.jsonl:2: "tokens"\[1\] is 300, outside the model's vocabulary of 264/),
    });
  });

  it('checks chat messages before the template renders them', async () => {
    // ChatML renders any role, so a misspelt one was scored as other text.
    await expect(score('role.jsonl', '{"messages": [{"role": "asistant", "content": "x"}]}\n')).rejects.toThrow(
      /role\.jsonl:1: "messages"\[0\] has role "asistant"; expected one of system, user/,
    );
    await expect(score('content.jsonl', '{"messages": [{"role": "user"}]}\n')).rejects.toThrow(
      /content\.jsonl:1: "messages"\[0\] needs "content" as a string/,
    );
    await expect(
      score('parts.jsonl', '{"messages": [{"role": "user", "content": [{"type": "text", "text": "a"}]}]}\n'),
    ).rejects.toThrow(/parts\.jsonl:1: "messages"\[0\] needs "content"/);
    await expect(score('nullmsg.jsonl', '{"messages": [null]}\n')).rejects.toThrow(/nullmsg\.jsonl:1: "messages"\[0\]/);
    // OpenAI's snake_case tool calls are not what the template reads: they vanished from the scored text.
    const openAi = {
      role: 'assistant',
      content: '',
      tool_calls: [{ id: '1', type: 'function', function: { name: 'f' } }],
    };
    await expect(score('calls.jsonl', `${JSON.stringify({ messages: [openAi] })}\n`)).rejects.toThrow(
      /calls\.jsonl:1: "messages"\[0\] has "tool_calls"/,
    );
  });

  it('names the line of an example longer than the context', async () => {
    const long = JSON.stringify({ text: 'a'.repeat(1100) });
    await expect(score('long.jsonl', `{"text": "ok"}\n${long}\n`)).rejects.toMatchObject({
      code: 'CONTEXT_LENGTH_EXCEEDED',
      message: expect.stringMatching(/long\.jsonl:2 has 1100 tokens/),
    });
  });

  it('reads a file that starts with a byte-order mark and has CRLF line ends', async () => {
    const result = await score('bom.jsonl', '\uFEFF{"text": "hi"}\r\n{"tokens": [104, 105]}\r\n');
    expect(result.sequences.map((sequence) => sequence.tokens)).toEqual([
      [104, 105],
      [104, 105],
    ]);
  });
});
