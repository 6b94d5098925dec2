import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createChatModel } from '@turngym/llm';
import { assertCliBuilt, CLI, errorLines, runBuiltCli } from './helpers/run-built-cli';

// The tfjs LM from the command line: `lm generate`, `lm score`, `serve-model` (queried with the real openai
// client through @turngym/llm), and `local:<checkpoint>` as an agent spec. tiny-1m on the cpu backend: an
// untrained model, so these tests are about the plumbing, not the text.
describe('turngym lm and serve-model', () => {
  beforeAll(assertCliBuilt); // these tests spawn the built CLI themselves
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'turngym-cli-lm-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('generate is seeded: the same seed gives the same sample, another seed another one', async () => {
    const args = [
      'lm',
      'generate',
      '--checkpoint',
      'tiny-1m',
      '--backend',
      'cpu',
      '--prompt',
      'Hi',
      '--max-tokens',
      '8',
    ];
    const first = JSON.parse((await runBuiltCli([...args, '--seed', '1'])).stdout) as {
      samples: { tokens: number[]; logprobs: number[] }[];
    };
    const again = JSON.parse((await runBuiltCli([...args, '--seed', '1'])).stdout) as typeof first;
    const other = JSON.parse((await runBuiltCli([...args, '--seed', '2'])).stdout) as typeof first;
    expect(first.samples[0]?.tokens).toHaveLength(8);
    expect(again.samples[0]?.tokens).toEqual(first.samples[0]?.tokens);
    expect(other.samples[0]?.tokens).not.toEqual(first.samples[0]?.tokens);
    for (const logprob of first.samples[0]?.logprobs ?? []) expect(logprob).toBeLessThan(0);
  });

  it('score prints one logprob per token after the first', async () => {
    const input = join(dir, 'text.txt');
    writeFileSync(input, 'abc');
    const result = await runBuiltCli(['lm', 'score', '--checkpoint', 'tiny-1m', '--backend', 'cpu', '--input', input]);
    const parsed = JSON.parse(result.stdout) as {
      sequences: { tokens: number[]; logprobs: (number | null)[]; total: number }[];
    };
    const [sequence] = parsed.sequences;
    expect(sequence?.logprobs).toHaveLength(sequence?.tokens.length ?? -1);
    expect(sequence?.logprobs[0]).toBeNull();
    const sum = (sequence?.logprobs.slice(1) as number[]).reduce((a, b) => a + b, 0);
    expect(sequence?.total).toBeCloseTo(sum, 6);
  });

  it('a missing checkpoint is bad input: one line, exit 2', async () => {
    const result = await runBuiltCli(['lm', 'score', '--checkpoint', join(dir, 'nope'), '--input', join(dir, 'x')]);
    expect(result.code).toBe(2);
    expect(errorLines(result.stderr)).toEqual([
      expect.stringMatching(/^error: Checkpoint directory .*nope does not exist/),
    ]);
  });

  it('serve-model answers the openai client and stops on SIGTERM', async () => {
    const child = spawn(
      process.execPath,
      [
        CLI,
        'serve-model',
        '--checkpoint',
        'tiny-1m',
        '--backend',
        'cpu',
        '--port',
        '0',
        '--max-rows-per-request',
        '2',
        '--max-concurrent-requests',
        '2',
        '--max-queued-requests',
        '0',
      ],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    try {
      const baseURL = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
          out += chunk;
          const match = /at (http:\/\/\S+\/v1)/.exec(out);
          if (match) resolve(match[1] as string);
        });
        child.on('exit', (code) => reject(new Error(`serve-model exited with ${code}`)));
      });
      const model = createChatModel('openai:tiny-1m', { openai: { baseURL, maxRetries: 0, timeoutMs: 30_000 } });
      const reply = await model.complete({
        messages: [{ role: 'user', content: 'Hello' }],
        maxTokens: 5,
        seed: 4,
        temperature: 0,
      });
      expect(reply.usage.completionTokens).toBeGreaterThan(0);
      expect(reply.usage.completionTokens).toBeLessThanOrEqual(5);
      await model.close?.();
      // --max-rows-per-request bounds one request's sequences: 3 of one prompt is over 2.
      const tooMany = await fetch(`${baseURL}/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'tiny-1m', prompt: 'Hello', n: 3, max_tokens: 2 }),
      });
      expect(tooMany.status).toBe(400);
      expect(((await tooMany.json()) as { error: { param: string } }).error.param).toBe('n');
      // A prompt that cannot fit the context is refused from its size, before it is tokenized (which would stall
      // every client for as long as tokenizing it takes).
      const huge = await fetch(`${baseURL}/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'tiny-1m', prompt: ' '.repeat(1_000_000), max_tokens: 1 }),
      });
      expect(huge.status).toBe(400);
      expect(await huge.json()).toMatchObject({
        error: {
          code: 'context_length_exceeded',
          param: 'prompt',
          message: expect.stringMatching(/at least \d+ tokens/),
        },
      });
      // Streaming: OpenAI's chunks, a finish reason and [DONE].
      const streamed = await fetch(`${baseURL}/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'tiny-1m', prompt: 'Hello', max_tokens: 4, stream: true }),
      });
      expect(streamed.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const events = (await streamed.text()).split('\n\n').filter(Boolean);
      expect(events.at(-1)).toBe('data: [DONE]');
      const chunks = events.slice(0, -1).map((event) => JSON.parse(event.slice('data: '.length)));
      expect(chunks.at(-1)).toMatchObject({
        object: 'text_completion',
        choices: [{ finish_reason: expect.any(String) }],
      });
      const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('serve-model refuses a concurrency bound under 1 or a negative queue bound, naming the option', async () => {
    const zero = await runBuiltCli(['serve-model', '--checkpoint', 'tiny-1m', '--max-concurrent-requests', '0']);
    expect(zero.code).not.toBe(0);
    expect(zero.stderr).toMatch(/--max-concurrent-requests.*Expected an integer ≥ 1/);
    const negative = await runBuiltCli(['serve-model', '--checkpoint', 'tiny-1m', '--max-queued-requests', '-1']);
    expect(negative.code).not.toBe(0);
    expect(negative.stderr).toMatch(/--max-queued-requests.*Expected an integer ≥ 0/);
  });

  it('local:<checkpoint> plays an env as a chat-model agent', async () => {
    const result = await runBuiltCli(
      [
        'run',
        'turngym/example-v1',
        '--agent',
        'local:tiny-1m',
        '--episodes',
        '1',
        '--seed',
        '0',
        '--json',
        '--options',
        '{"maxTurns": 2}',
      ],
      { env: { TURNGYM_LM_BACKEND: 'wasm' } },
    );
    expect(result.code).toBe(0);
    const parsed = JSON.parse(result.stdout) as { agent: string; summary: { episodes: number; meanTurns: number } };
    expect(parsed.agent).toBe('chat:local:tiny-1m');
    expect(parsed.summary).toMatchObject({ episodes: 1, meanTurns: 2 });
  });
});
