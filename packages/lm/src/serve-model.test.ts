import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { mixSeed } from '@turngym/core';
import { createChatModel } from '@turngym/llm';
import { ByteTokenizer } from './byte-tokenizer';
import { saveCheckpoint } from './checkpoint';
import { GenerationBatch } from './generation-batch';
import { LanguageModel } from './language-model';
import { CheckpointError } from './lm-errors';
import { lmGenerate, lmScore } from './lm-commands';
import { registerLocalChatModelProvider } from './local-provider';
import { serveModel, type ModelServer } from './serve-model';
import { testConfig } from './tiny-configs';
import { useBackend } from './backend';
import { randomWeights } from './__fixtures__/random-weights';

describe('CLI functions, local: provider and serve-model', () => {
  let dir: string;
  let checkpoint: string;
  let server: ModelServer;
  let client: OpenAI;
  const messages = [{ role: 'user' as const, content: 'Say something.' }];

  beforeAll(async () => {
    await useBackend('wasm');
    dir = mkdtempSync(join(tmpdir(), 'turngym-serve-'));
    checkpoint = join(dir, 'tiny-chat');
    const config = testConfig();
    const model = LanguageModel.fromTensors(config, randomWeights(config, 12), new ByteTokenizer());
    await saveCheckpoint(model, checkpoint);
    model.dispose();
    server = await serveModel({ checkpoint, port: 0, backend: 'wasm' });
    client = new OpenAI({ baseURL: server.baseURL, apiKey: 'local', maxRetries: 0, timeout: 20_000 });
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lm score prints per-token logprobs for text and JSONL inputs', async () => {
    writeFileSync(join(dir, 'input.txt'), 'hello');
    writeFileSync(
      join(dir, 'input.jsonl'),
      `${JSON.stringify({ prompt: 'ab', completion: 'cd' })}\n${JSON.stringify({ messages })}\n`,
    );
    const text = await lmScore({ checkpoint, input: join(dir, 'input.txt'), backend: 'wasm' });
    expect(text.sequences[0]!.pieces).toEqual(['h', 'e', 'l', 'l', 'o']);
    expect(text.sequences[0]!.logprobs[0]).toBeNull();
    expect(text.sequences[0]!.logprobs.slice(1).every((value) => value! < 0)).toBe(true);
    const jsonl = await lmScore({ checkpoint, input: join(dir, 'input.jsonl'), backend: 'wasm' });
    expect(jsonl.sequences).toHaveLength(2);
    const pair = jsonl.sequences[0]!;
    expect(pair.completionStart).toBe(2);
    expect(pair.total).toBeCloseTo(pair.logprobs[2]! + pair.logprobs[3]!, 5);
    expect(JSON.parse(JSON.stringify(jsonl))).toEqual(jsonl);
    await expect(lmScore({ checkpoint, input: join(dir, 'missing.txt'), backend: 'wasm' })).rejects.toThrow(
      /Cannot read input file/,
    );
  });

  it('serves /v1/chat/completions (plain and streaming) to the openai client, matching lm generate', async () => {
    const reply = await client.chat.completions.create({
      model: 'tiny-chat',
      messages,
      temperature: 0,
      max_tokens: 12,
    });
    const expected = await lmGenerate({ checkpoint, messages, temperature: 0, maxTokens: 12, backend: 'wasm' });
    expect(reply.choices[0]!.message.content).toBe(expected.samples[0]!.text);
    expect(reply.usage?.completion_tokens).toBe(expected.samples[0]!.tokens.length);
    const stream = await client.chat.completions.create({
      model: 'tiny-chat',
      messages,
      temperature: 0,
      max_tokens: 12,
      stream: true,
    });
    let streamed = '';
    for await (const chunk of stream) streamed += chunk.choices[0]?.delta.content ?? '';
    expect(streamed).toBe(reply.choices[0]!.message.content);
    const models = await client.models.list();
    expect(models.data.map((model) => model.id)).toEqual(['tiny-chat']);
  });

  it('refuses an adapter the checkpoint does not have before it serves', async () => {
    await expect(serveModel({ checkpoint, port: 0, backend: 'wasm', adapter: 'nope' })).rejects.toThrow(
      'No LoRA adapter named "nope"',
    );
  });

  it('serves /v1/completions: batched prompts, n, logprobs, token-id prompts, seeds', async () => {
    const completion = await client.completions.create({
      model: 'tiny-chat',
      prompt: ['ab', 'xyz'],
      n: 2,
      max_tokens: 5,
      logprobs: 0,
      seed: 3,
    });
    expect(completion.choices).toHaveLength(4);
    for (const choice of completion.choices) {
      expect(choice.logprobs!.token_logprobs!.length).toBeGreaterThan(0);
      expect(choice.logprobs!.token_logprobs!.every((value) => value <= 0)).toBe(true);
    }
    const again = await client.completions.create({
      model: 'tiny-chat',
      prompt: ['ab', 'xyz'],
      n: 2,
      max_tokens: 5,
      seed: 3,
    });
    expect(again.choices.map((choice) => choice.text)).toEqual(completion.choices.map((choice) => choice.text));
    const byTokens = await client.completions.create({ model: 'tiny-chat', prompt: [97, 98], max_tokens: 5, seed: 3 });
    expect(byTokens.choices[0]!.text).toBe(completion.choices[0]!.text);
    expect(completion.usage!.prompt_tokens).toBe(5);
    await expect(client.completions.create({ model: 'other', prompt: 'a' })).rejects.toMatchObject({ status: 404 });
    const tooLong = 'x'.repeat(2000);
    await expect(client.completions.create({ model: 'tiny-chat', prompt: tooLong })).rejects.toThrow(
      /max_position_embeddings = 1024/,
    );
  });

  it('refuses a prompt too big for the context before tokenizing it, on both endpoints', async () => {
    // Tokenizing blocks the event loop (a megabyte a BPE merges takes ~25 s): a prompt that cannot fit is not
    // tokenized at all, whatever the tokenizer would make of it.
    const encode = jest.spyOn(server.model.tokenizer, 'encode');
    try {
      const huge = 'x'.repeat(50_000);
      await expect(
        client.completions.create({ model: 'tiny-chat', prompt: huge, max_tokens: 1 }),
      ).rejects.toMatchObject({ status: 400, code: 'context_length_exceeded', param: 'prompt' });
      await expect(
        client.completions.create({ model: 'tiny-chat', prompt: ['a', huge], max_tokens: 1 }),
      ).rejects.toThrow(/The prompt 1 has at least \d+ tokens .*max_position_embeddings = 1024/);
      await expect(
        client.chat.completions.create({
          model: 'tiny-chat',
          messages: [{ role: 'user', content: huge }],
          max_tokens: 1,
        }),
      ).rejects.toMatchObject({ status: 400, code: 'context_length_exceeded' });
      expect(encode.mock.calls.filter(([text]) => text.length >= huge.length)).toEqual([]);
    } finally {
      encode.mockRestore();
    }
  });

  it('answers logprobs: N (1..5) with the N likeliest alternatives at each token, and refuses past the caps', async () => {
    const rejects = (body: Record<string, unknown>) =>
      expect(client.completions.create({ model: 'tiny-chat', prompt: 'ab', max_tokens: 2, ...body } as never)).rejects;
    await rejects({ logprobs: 6 }).toMatchObject({ status: 400, param: 'logprobs', code: 'invalid_request' });
    await rejects({ logprobs: 6 }).toThrow(/"logprobs" must be an integer from 0 to 5/);
    // top_logprobs is the chat API's name: refused with the completions field to use, not ignored.
    await rejects({ logprobs: true, top_logprobs: 2 }).toMatchObject({ status: 400, param: 'top_logprobs' });
    await rejects({ logprobs: true, top_logprobs: 2 }).toThrow(/"logprobs": 2/);
    await rejects({ logprobs: 'yes' }).toMatchObject({ status: 400, param: 'logprobs' });
    await rejects({ logprobs: 0, top_logprobs: 'all' }).toMatchObject({ status: 400, param: 'top_logprobs' });
    // 0 or true: the sampled tokens' log-probabilities, no alternatives.
    for (const logprobs of [0, true]) {
      const answer = await client.completions.create({
        model: 'tiny-chat',
        prompt: 'ab',
        max_tokens: 2,
        top_logprobs: 0,
        logprobs,
      } as never);
      expect(answer.choices[0]!.logprobs!.token_logprobs!.length).toBeGreaterThan(0);
      expect(answer.choices[0]!.logprobs!.top_logprobs).toBeNull();
    }
    const prompt = [72, 101, 108, 108, 111];
    const request = { model: 'tiny-chat', prompt, max_tokens: 6, temperature: 0.9, seed: 5 };
    const plain = (await client.completions.create({ ...request, logprobs: 0 })).choices[0]!;
    const answer = (await client.completions.create({ ...request, logprobs: 3 })).choices[0]!;
    // The same draw as without alternatives.
    expect(answer.text).toBe(plain.text);
    expect(answer.logprobs!.token_logprobs).toEqual(plain.logprobs!.token_logprobs);
    // The server's draw, reproduced: row 0 of the request samples with mixSeed(seed, 0, 0).
    const [again] = server.model.generate([{ tokens: prompt, seed: mixSeed(5, 0, 0) }], {
      temperature: 0.9,
      maxTokens: 6,
    });
    expect(again!.text).toBe(answer.text);
    const generated = again!.tokens;
    expect(answer.logprobs!.top_logprobs).toHaveLength(generated.length);
    const logits = await server.model.logits({ tokens: [...prompt, ...generated] });
    const tokenizer = server.model.tokenizer;
    answer.logprobs!.top_logprobs!.forEach((entries, i) => {
      const row = logits[prompt.length - 1 + i]!;
      let max = -Infinity;
      for (const logit of row) max = Math.max(max, logit);
      const normaliser = max + Math.log(row.reduce((sum, logit) => sum + Math.exp(logit - max), 0));
      const ranking = Array.from(row, (logit, token) => ({
        text: tokenizer.tokenText(token),
        logprob: logit - normaliser,
      })).sort((a, b) => b.logprob - a.logprob);
      // The three likeliest (their texts, the likelier kept where two ids share a text), and the sampled token.
      const expected = new Map<string, number>();
      for (const { text, logprob } of ranking.slice(0, 3)) if (!expected.has(text)) expected.set(text, logprob);
      const sampledText = answer.logprobs!.tokens![i]!;
      const listed = Object.entries(entries as Record<string, number>);
      expect(listed.length).toBeLessThanOrEqual(4);
      for (const [text, logprob] of expected) expect(entries![text]).toBeCloseTo(logprob, 4);
      expect(Math.max(...listed.map(([, logprob]) => logprob))).toBeCloseTo(ranking[0]!.logprob, 4);
      expect(entries![sampledText]).toBeGreaterThanOrEqual(answer.logprobs!.token_logprobs![i]!);
    });
  });

  it('answers an lm-evaluation-harness loglikelihood request: echoed prompt logprobs, top alternatives, is_greedy', async () => {
    const tokenizer = server.model.tokenizer;
    const context = tokenizer.encode('The cat', { addSpecialTokens: true });
    const [greedy] = server.model.generate([{ tokens: context }], { temperature: 0, maxTokens: 3, stopTokenIds: [] });
    const greedyContinuation = greedy!.tokens;
    const otherContinuation = greedyContinuation.map((token) => (token + 1) % server.model.config.vocabSize);
    // As lm-eval's local-completions model sends it: token-id prompts, batched, max_tokens 1, echo, logprobs 1.
    const response = await fetch(`${server.baseURL}/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'tiny-chat',
        prompt: [
          [...context, ...greedyContinuation],
          [...context, ...otherContinuation],
        ],
        max_tokens: 1,
        logprobs: 1,
        echo: true,
        temperature: 0,
        seed: 1234,
      }),
    });
    expect(response.status).toBe(200);
    const out = (await response.json()) as {
      choices: {
        index: number;
        logprobs: { token_logprobs: (number | null)[]; top_logprobs: (Record<string, number> | null)[] };
      }[];
    };
    // lm-eval's parse_logprobs: sum and is_greedy over [ctxlen:-1] (the last token is the one generated).
    const parsed = out.choices
      .sort((a, b) => a.index - b.index)
      .map(({ logprobs }) => {
        const ctxlen = context.length;
        const tokenLogprobs = logprobs.token_logprobs.slice(ctxlen, -1) as number[];
        const top = logprobs.top_logprobs.slice(ctxlen, -1) as Record<string, number>[];
        expect(logprobs.token_logprobs[0]).toBeNull();
        expect(logprobs.top_logprobs[0]).toBeNull();
        expect(logprobs.top_logprobs).toHaveLength(logprobs.token_logprobs.length);
        let isGreedy = true;
        tokenLogprobs.forEach((logprob, i) => {
          if (logprob !== Math.max(...Object.values(top[i]!))) isGreedy = false;
        });
        return { sum: tokenLogprobs.reduce((a, b) => a + b, 0), isGreedy };
      });
    const { logprobs: scored } = await server.model.score([
      { tokens: [...context, ...greedyContinuation] },
      { tokens: [...context, ...otherContinuation] },
    ]);
    const expectedSums = scored.map((row) => row.slice(context.length).reduce((a: number, b) => a + b!, 0));
    expect(parsed.map((each) => each.isGreedy)).toEqual([true, false]);
    expect(parsed[0]!.sum).toBeCloseTo(expectedSums[0]!, 4);
    expect(parsed[1]!.sum).toBeCloseTo(expectedSums[1]!, 4);
  });

  it('with echo and logprobs, answers the prompt tokens and their log-probabilities first, as OpenAI does', async () => {
    // What evaluators send to score a text: echo, no new tokens, logprobs.
    const scored = await client.completions.create({
      model: 'tiny-chat',
      prompt: ['hello', 'abc'],
      echo: true,
      max_tokens: 0,
      logprobs: 0,
    });
    for (const [index, text] of ['hello', 'abc'].entries()) {
      const tokens = server.model.tokenizer.encode(text, { addSpecialTokens: true });
      const { logprobs } = await server.model.score([{ tokens }]);
      const choice = scored.choices[index]!;
      expect(choice.text).toBe(text);
      expect(choice.logprobs!.tokens).toEqual(tokens.map((token) => server.model.tokenizer.tokenText(token)));
      expect(choice.logprobs!.token_logprobs![0]).toBeNull();
      expect(choice.logprobs!.token_logprobs!.slice(1)).toEqual(
        logprobs[0]!.slice(1).map((value) => expect.closeTo(value!, 5)),
      );
    }
    // With new tokens, the prompt's come first and the sampled ones after, as in the plain answer.
    const request = { model: 'tiny-chat', prompt: 'hello', max_tokens: 3, seed: 2, logprobs: 0 };
    const plain = (await client.completions.create(request)).choices[0]!.logprobs!;
    const echoed = (await client.completions.create({ ...request, echo: true })).choices[0]!.logprobs!;
    expect(echoed.tokens).toHaveLength(5 + plain.tokens!.length);
    expect(echoed.tokens!.slice(5)).toEqual(plain.tokens);
    expect(echoed.token_logprobs!.slice(5)).toEqual(plain.token_logprobs);
    await expect(client.completions.create({ ...request, echo: true, stream: true })).rejects.toMatchObject({
      status: 400,
      param: 'stream',
    });
  });

  it('answers sloppy /v1/completions requests with OpenAI errors that name the parameter', async () => {
    const rejects = (body: Record<string, unknown>) =>
      expect(client.completions.create({ model: 'tiny-chat', max_tokens: 2, ...body } as never)).rejects;
    await rejects({ prompt: [999999] }).toMatchObject({ status: 400, param: 'prompt' });
    await rejects({ prompt: [999999] }).toThrow(/token 0 is 999999, outside the model's vocabulary of 264 ids/);
    await rejects({ prompt: [[97], [-1]] }).toMatchObject({ status: 400, param: 'prompt' });
    await rejects({ prompt: 'x'.repeat(2000) }).toMatchObject({ status: 400, code: 'context_length_exceeded' });
    await rejects({ prompt: 'a', stop: ['a', 'b', 'c', 'd', 'e'] }).toMatchObject({ status: 400, param: 'stop' });
    await rejects({ prompt: 'a', stop: 7 }).toMatchObject({ status: 400, param: 'stop' });
    await rejects({ prompt: 'a', temperature: 5 }).toMatchObject({ status: 400, param: 'temperature' });
    await rejects({ prompt: 'a', max_tokens: -1 }).toMatchObject({ status: 400, param: 'max_tokens' });
    await rejects({ prompt: 'a', seed: 1.5 }).toMatchObject({ status: 400, param: 'seed' });
    await rejects({ prompt: 'a', presence_penalty: 0.5 }).toMatchObject({ status: 400, param: 'presence_penalty' });
    await rejects({ prompt: 'a', logit_bias: { '97': 100 } }).toMatchObject({ status: 400, param: 'logit_bias' });
    await rejects({ prompt: 'a', best_of: 3 }).toMatchObject({ status: 400, param: 'best_of' });
    // One table and one message with the chat server (@turngym/llm's UNSUPPORTED_SAMPLING_FIELDS), vLLM's guided
    // decoding among them: ignored, a client asking for digits parsed whatever text came back.
    await rejects({ prompt: 'a', presence_penalty: 0.5 }).toThrow(
      '"presence_penalty" is not supported by this server (got 0.5); leave it out (or send 0).',
    );
    await rejects({ prompt: 'a', guided_regex: '[0-9]+' }).toMatchObject({ status: 400, param: 'guided_regex' });
    await rejects({ prompt: 'a', suffix: '}' }).toThrow(/"suffix" .*; leave it out \(or send ""\)\./);
    // Flags sent as strings were read as off: a client asking to stream got one JSON answer.
    await rejects({ prompt: 'a', stream: 'true' }).toMatchObject({ status: 400, param: 'stream' });
    await rejects({ prompt: 'a', stream: true, stream_options: { include_usage: 'yes' } }).toMatchObject({
      status: 400,
      param: 'stream_options',
    });
    await rejects({ prompt: 'a', echo: 'yes' }).toMatchObject({ status: 400, param: 'echo' });
    await rejects({ prompt: '' }).toMatchObject({ status: 400, param: 'prompt' });
    await rejects({ prompt: ['a', ''] }).toThrow(/Prompt 1 is empty/);
    await rejects({ model: undefined, prompt: 'a' }).toMatchObject({ status: 400, param: 'model' });
    const neutral = { presence_penalty: 0, frequency_penalty: 0, logit_bias: {}, best_of: 1 };
    const plain = await client.completions.create({ model: 'tiny-chat', prompt: 'a', max_tokens: 2, ...neutral });
    expect(plain.choices).toHaveLength(1);
    // OpenAI's top_p 0 (only the likeliest token left) decodes greedily, as the chat endpoint reads it; it was a 400.
    const greedy = await client.completions.create({ model: 'tiny-chat', prompt: 'a', max_tokens: 4, temperature: 0 });
    const topP0 = await client.completions.create({
      model: 'tiny-chat',
      prompt: 'a',
      max_tokens: 4,
      top_p: 0,
      seed: 3,
    });
    expect(topP0.choices[0]!.text).toBe(greedy.choices[0]!.text);
    await rejects({ prompt: 'a', top_p: 1.5 }).toMatchObject({ status: 400, param: 'top_p' });
    const post = (body: string) => fetch(`${server.baseURL}/completions`, { method: 'POST', body });
    const array = await post('[{"model": "tiny-chat"}]');
    expect(array.status).toBe(400);
    expect(await array.json()).toMatchObject({ error: { message: 'The request body must be a JSON object' } });
    const huge = await post(JSON.stringify({ model: 'tiny-chat', prompt: 'x'.repeat(33 * 1024 * 1024) }));
    expect(huge.status).toBe(413);
    expect(await huge.json()).toMatchObject({ error: { code: 'request_too_large' } });
  });

  it('bounds the completions one request asks for (prompts × n) with a 400 naming the parameter', async () => {
    const rejects = (body: Record<string, unknown>) =>
      expect(client.completions.create({ model: 'tiny-chat', max_tokens: 1, ...body } as never)).rejects;
    // The default bound is 256 rows: 5 × 64 is over it, 4 × 64 is not refused for its size.
    await rejects({ prompt: Array(5).fill('a'), n: 64 }).toMatchObject({ status: 400, param: 'n' });
    await rejects({ prompt: Array(5).fill('a'), n: 64 }).toThrow(/5 prompts × n = 64, 320 completions; .* at most 256/);
    await rejects({ prompt: Array(1000).fill([97]), n: 64 }).toMatchObject({ status: 400, param: 'prompt' });
    await rejects({ prompt: Array(257).fill('a') }).toMatchObject({ status: 400, param: 'prompt' });
    await expect(serveModel({ checkpoint, port: 0, backend: 'wasm', maxRowsPerRequest: 0 })).rejects.toThrow(
      /maxRowsPerRequest/,
    );
  });

  it('answers OpenAI parameters alike on both endpoints: stream_options needs stream, penalties are refused', async () => {
    const post = (path: string, body: Record<string, unknown>) =>
      fetch(`${server.baseURL}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'tiny-chat', max_tokens: 2, ...body }),
      });
    const endpoints = [
      ['/completions', { prompt: 'a' }],
      ['/chat/completions', { messages }],
    ] as const;
    for (const [path, input] of endpoints) {
      // OpenAI answers 400 (param stream_options); both endpoints answered 200, with no usage chunk.
      for (const asked of [{ stream_options: { include_usage: true } }, { stream: false, stream_options: {} }]) {
        const refused = await post(path, { ...input, ...asked });
        expect(refused.status).toBe(400);
        expect(await refused.json()).toMatchObject({
          error: {
            param: 'stream_options',
            message: expect.stringMatching(/'stream_options' parameter is only allowed when 'stream' is enabled/),
          },
        });
      }
      // The chat endpoint sampled without them, silently, while /v1/completions refused them.
      for (const [asked, param] of [
        [{ presence_penalty: 0.5 }, 'presence_penalty'],
        [{ frequency_penalty: 1 }, 'frequency_penalty'],
        [{ logit_bias: { '97': 100 } }, 'logit_bias'],
      ] as const) {
        const refused = await post(path, { ...input, ...asked });
        expect(refused.status).toBe(400);
        expect(await refused.json()).toMatchObject({
          error: { type: 'invalid_request_error', code: 'unsupported_parameter', param },
        });
      }
      const neutral = { presence_penalty: 0, frequency_penalty: 0, logit_bias: {}, stream_options: null };
      const served = await post(path, { ...input, ...neutral });
      expect(served.status).toBe(200);
      await served.json();
    }
  });

  it('refuses max_completion_tokens on /v1/completions, which takes max_tokens, instead of generating 16 tokens', async () => {
    // It was ignored: the default of 16 tokens applied, and the client got a cut completion (finish_reason length).
    await expect(
      client.completions.create({ model: 'tiny-chat', prompt: 'a', max_completion_tokens: 40 } as never),
    ).rejects.toMatchObject({ status: 400, code: 'unsupported_parameter', param: 'max_completion_tokens' });
    await expect(
      client.completions.create({ model: 'tiny-chat', prompt: 'a', max_completion_tokens: 40 } as never),
    ).rejects.toThrow(/takes "max_tokens"/);
    // The chat endpoint takes it, as OpenAI's does.
    const chat = await client.chat.completions.create({
      model: 'tiny-chat',
      messages,
      max_completion_tokens: 3,
      temperature: 0,
    });
    expect(chat.usage?.completion_tokens).toBeLessThanOrEqual(3);
  });

  it('bounds the text of all the prompts of one request, and checks every prompt before tokenizing any', async () => {
    const encode = jest.spyOn(server.model.tokenizer, 'encode');
    try {
      // A too-long prompt after a short one: the short one was tokenized first, for nothing.
      await expect(
        client.completions.create({ model: 'tiny-chat', prompt: ['a', 'x'.repeat(50_000)], max_tokens: 1 }),
      ).rejects.toMatchObject({ status: 400, code: 'context_length_exceeded', param: 'prompt' });
      expect(encode).not.toHaveBeenCalled();
    } finally {
      encode.mockRestore();
    }
    // Prompts each under the per-prompt bound added up to minutes of tokenizing, bounded only by the body size.
    const wide = await serveModel({ checkpoint, port: 0, backend: 'wasm', maxRowsPerRequest: 2048 });
    // Not tokenized at all: a tokenizer call fails the request with another message.
    const wideEncode = jest.spyOn(wide.model.tokenizer, 'encode').mockImplementation(() => {
      throw new Error('tokenized');
    });
    try {
      const local = new OpenAI({ baseURL: wide.baseURL, apiKey: 'local', maxRetries: 0, timeout: 20_000 });
      const prompt = Array(1100).fill('x'.repeat(1000));
      const refused = local.completions.create({ model: 'tiny-chat', prompt, max_tokens: 1 });
      await expect(refused).rejects.toMatchObject({ status: 400, param: 'prompt' });
      await expect(refused).rejects.toThrow(/1100 prompts of this request hold 1100000 bytes .* at most 1048576/);
      expect(wideEncode).not.toHaveBeenCalled();
      wideEncode.mockRestore();
      // Under the bound, many prompts are served.
      const served = await local.completions.create({
        model: 'tiny-chat',
        prompt: Array(300).fill('ab'),
        max_tokens: 1,
      });
      expect(served.choices).toHaveLength(300);
    } finally {
      wideEncode.mockRestore();
      await wide.close();
    }
  });

  /**
   * Events, not clocks: resolves `started` at the first decoder pass of the next batch made, and `stopped` with its
   * pass count when that batch is freed.
   */
  function watchNextBatch(): { started: Promise<void>; stopped: Promise<number>; restore(): void } {
    const step = GenerationBatch.prototype.step;
    const dispose = GenerationBatch.prototype.dispose;
    let decoding!: () => void;
    const started = new Promise<void>((resolve) => (decoding = resolve));
    let freed!: (passes: number) => void;
    const stopped = new Promise<number>((resolve) => (freed = resolve));
    const steps = jest.spyOn(GenerationBatch.prototype, 'step').mockImplementation(function (this: GenerationBatch) {
      decoding();
      return step.call(this);
    });
    const disposals = jest.spyOn(GenerationBatch.prototype, 'dispose').mockImplementation(function (
      this: GenerationBatch,
    ) {
      // The batch of the first pass seen is the one watched.
      if (this === steps.mock.contexts[0]) freed(this.passes);
      dispose.call(this);
    });
    return {
      started,
      stopped,
      restore() {
        steps.mockRestore();
        disposals.mockRestore();
      },
    };
  }

  it('stays responsive while a long completion decodes, and stops decoding for a client that hung up', async () => {
    // Greedy on these weights decodes hundreds of tokens before an end token (measured below, unstopped).
    const longRequest = { model: 'tiny-chat', prompt: 'hello', max_tokens: 300, temperature: 0 };
    let passesAtStop = Infinity;
    const batch = watchNextBatch();
    try {
      const hangUp = new AbortController();
      let longSettled = false;
      const long = fetch(`${server.baseURL}/completions`, {
        method: 'POST',
        body: JSON.stringify(longRequest),
        signal: hangUp.signal,
      }).finally(() => (longSettled = true));
      await Promise.race([
        batch.started,
        long.then(() => {
          throw new Error('the long completion ran to its end before anything else could run');
        }),
      ]);
      const models = await client.models.list();
      expect(models.data.map((model) => model.id)).toEqual(['tiny-chat']);
      const short = await client.completions.create({ model: 'tiny-chat', prompt: 'a', max_tokens: 2 });
      expect(short.choices).toHaveLength(1);
      expect(longSettled).toBe(false);
      hangUp.abort();
      await expect(long).rejects.toThrow();
      passesAtStop = await batch.stopped;
    } finally {
      batch.restore();
    }
    const unstopped = await client.completions.create(longRequest);
    expect(unstopped.usage!.completion_tokens).toBeGreaterThan(100);
    expect(passesAtStop).toBeLessThan(unstopped.usage!.completion_tokens);
  });

  it('stops a chat completion whose client hung up (through the proxy to the chat server)', async () => {
    const longRequest = { model: 'tiny-chat', messages, max_tokens: 300, temperature: 0 };
    let passesAtStop = Infinity;
    const batch = watchNextBatch();
    try {
      const hangUp = new AbortController();
      const chat = fetch(`${server.baseURL}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(longRequest),
        signal: hangUp.signal,
      });
      await Promise.race([
        batch.started,
        chat.then(() => {
          throw new Error('the chat completion ran to its end before anything else could run');
        }),
      ]);
      hangUp.abort();
      await expect(chat).rejects.toThrow();
      passesAtStop = await batch.stopped;
    } finally {
      batch.restore();
    }
    // Freed at the pass after the hang-up reached the chat server, not when an unstopped run ends.
    const unstopped = await client.chat.completions.create(longRequest);
    expect(unstopped.usage!.completion_tokens).toBeGreaterThan(100);
    expect(passesAtStop).toBeLessThan(unstopped.usage!.completion_tokens);
  });

  /** Every chunk of a stream, read through the openai client. */
  async function chunksOf<T>(stream: AsyncIterable<T>): Promise<T[]> {
    const chunks: T[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    return chunks;
  }

  it('streams /v1/completions as it decodes: text arrives while the generation runs, and hanging up stops it', async () => {
    const longRequest = { model: 'tiny-chat', prompt: 'hello', max_tokens: 300, temperature: 0 };
    let passesAtStop = Infinity;
    let firstText = '';
    const batch = watchNextBatch();
    try {
      const stream = await client.completions.create({ ...longRequest, stream: true });
      // Leaving the loop closes the stream: the client hangs up after its first text.
      for await (const chunk of stream) {
        firstText = chunk.choices[0]?.text ?? '';
        if (firstText !== '') break;
      }
      passesAtStop = await batch.stopped;
    } finally {
      batch.restore();
    }
    const unstopped = await client.completions.create(longRequest);
    expect(unstopped.usage!.completion_tokens).toBe(300);
    expect(unstopped.choices[0]!.text.startsWith(firstText)).toBe(true);
    // The first text came after a few passes, and the generation stopped soon after: not at its 300th token.
    expect(passesAtStop).toBeLessThan(100);
  });

  it('streams chat completions as they decode, through the proxy, and stops for a client that hung up', async () => {
    const longRequest = { model: 'tiny-chat', messages, max_tokens: 300, temperature: 0 };
    let passesAtStop = Infinity;
    let roleChunks = 0;
    const batch = watchNextBatch();
    try {
      const stream = await client.chat.completions.create({ ...longRequest, stream: true });
      for await (const chunk of stream) {
        if (chunk.choices[0]?.delta.role === 'assistant') roleChunks += 1;
        if (chunk.choices[0]?.delta.content) break;
      }
      passesAtStop = await batch.stopped;
    } finally {
      batch.restore();
    }
    expect(roleChunks).toBe(1);
    expect(passesAtStop).toBeLessThan(100);
  });

  it('streams /v1/completions in OpenAI chunks that add up to the plain answer: n, logprobs, usage, finish', async () => {
    const request = { model: 'tiny-chat', prompt: ['ab', 'xyz'], n: 2, max_tokens: 8, seed: 3, logprobs: 2 };
    const plain = await client.completions.create(request);
    const chunks = await chunksOf(
      await client.completions.create({ ...request, stream: true, stream_options: { include_usage: true } }),
    );
    const ids = new Set(chunks.map((chunk) => chunk.id));
    expect(ids.size).toBe(1);
    expect([...ids][0]).toMatch(/^cmpl-/);
    for (const chunk of chunks) {
      expect(chunk).toMatchObject({ object: 'text_completion', model: 'tiny-chat', created: expect.any(Number) });
    }
    // include_usage: every chunk says usage null, and a last chunk without choices has the request's usage.
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage).toEqual(plain.usage);
    expect(chunks.slice(0, -1).every((chunk) => chunk.usage === null && chunk.choices.length === 1)).toBe(true);
    for (const choice of plain.choices) {
      const mine = chunks.flatMap((chunk) => chunk.choices.filter((each) => each.index === choice.index));
      expect(mine.map((each) => each.text).join('')).toBe(choice.text);
      expect(mine.flatMap((each) => each.logprobs!.tokens)).toEqual(choice.logprobs!.tokens);
      expect(mine.flatMap((each) => each.logprobs!.token_logprobs)).toEqual(choice.logprobs!.token_logprobs);
      expect(mine.flatMap((each) => each.logprobs!.top_logprobs)).toEqual(choice.logprobs!.top_logprobs);
      // The finish reason comes once, in the choice's last chunk: max_tokens was hit.
      expect(mine.map((each) => each.finish_reason)).toEqual([...mine.slice(1).map(() => null), 'length']);
      expect(choice.finish_reason).toBe('length');
    }
  });

  it('streams the text before a stop sequence that spans tokens, never the stop, and empty completions', async () => {
    const greedy = { model: 'tiny-chat', prompt: 'hello', max_tokens: 40, temperature: 0 };
    const { text } = (await client.completions.create(greedy)).choices[0]!;
    // Two printable characters past the start: with byte tokens, a stop two tokens long.
    const at = [...text].findIndex((_, i) => i > 0 && /^[ -~]{2}$/.test(text.slice(i, i + 2)));
    expect(at).toBeGreaterThan(0);
    const streamed = async (body: Record<string, unknown>) => {
      const chunks = await chunksOf(await client.completions.create({ ...greedy, ...body, stream: true } as never));
      const choices = (chunks as OpenAI.Completions.Completion[]).map((chunk) => chunk.choices[0]!);
      return {
        text: choices.map((choice) => choice.text).join(''),
        finish: choices.at(-1)!.finish_reason,
        pieces: choices.length,
      };
    };
    const stop = text.slice(at, at + 2);
    const cut = await client.completions.create({ ...greedy, stop });
    expect(cut.choices[0]).toMatchObject({ text: text.slice(0, text.indexOf(stop)), finish_reason: 'stop' });
    expect(await streamed({ stop })).toMatchObject({ text: cut.choices[0]!.text, finish: 'stop' });
    // A stop at the very start: an empty completion, one chunk with its finish reason.
    expect(await streamed({ stop: text.slice(0, 2) })).toEqual({ text: '', finish: 'stop', pieces: 1 });
    expect(await streamed({ max_tokens: 0 })).toEqual({ text: '', finish: 'length', pieces: 1 });
    // echo: the prompt comes first, in the choice's first chunk.
    const echoed = await client.completions.create({ ...greedy, echo: true, max_tokens: 3 });
    expect(echoed.choices[0]!.text).toMatch(/^hello/);
    expect(await streamed({ echo: true, max_tokens: 3 })).toMatchObject({ text: echoed.choices[0]!.text });
  });

  it('streams chat completions in OpenAI chunks: one id, the role first, the finish, a usage chunk', async () => {
    const request = { model: 'tiny-chat', messages, max_tokens: 12, temperature: 0 };
    const plain = await client.chat.completions.create(request);
    const chunks = await chunksOf(
      await client.chat.completions.create({ ...request, stream: true, stream_options: { include_usage: true } }),
    );
    expect(new Set(chunks.map((chunk) => chunk.id)).size).toBe(1);
    for (const chunk of chunks) {
      expect(chunk).toMatchObject({ object: 'chat.completion.chunk', model: 'tiny-chat', created: expect.any(Number) });
    }
    expect(chunks[0]!.choices[0]!.delta).toEqual({ role: 'assistant', content: '' });
    const content = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
    expect(content).toBe(plain.choices[0]!.message.content);
    expect(chunks.at(-2)!.choices[0]!.finish_reason).toBe(plain.choices[0]!.finish_reason);
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: plain.usage });
  });

  /** Counts the batches decoding at once while `run` runs: those that ran a pass and were not freed yet. */
  async function mostBatchesAtOnce(run: () => Promise<void>): Promise<number> {
    const step = GenerationBatch.prototype.step;
    const dispose = GenerationBatch.prototype.dispose;
    const live = new Set<GenerationBatch>();
    let most = 0;
    const steps = jest.spyOn(GenerationBatch.prototype, 'step').mockImplementation(function (this: GenerationBatch) {
      live.add(this);
      most = Math.max(most, live.size);
      return step.call(this);
    });
    const disposals = jest.spyOn(GenerationBatch.prototype, 'dispose').mockImplementation(function (
      this: GenerationBatch,
    ) {
      live.delete(this);
      dispose.call(this);
    });
    try {
      await run();
    } finally {
      steps.mockRestore();
      disposals.mockRestore();
    }
    return most;
  }

  it('decodes at most maxConcurrentRequests generations at once; the others wait their turn', async () => {
    const queued = await serveModel({ checkpoint, port: 0, backend: 'wasm', maxConcurrentRequests: 2 });
    try {
      const local = new OpenAI({ baseURL: queued.baseURL, apiKey: 'local', maxRetries: 0, timeout: 20_000 });
      const prompts = ['ab', 'xyz', 'hello', 'a', 'b'];
      const one = (prompt: string) =>
        local.completions.create({ model: 'tiny-chat', prompt, max_tokens: 20, temperature: 0 });
      const alone = [];
      for (const prompt of prompts) alone.push((await one(prompt)).choices[0]!.text);
      let together: string[] = [];
      const most = await mostBatchesAtOnce(async () => {
        const answers = await Promise.all([
          ...prompts.map(one),
          local.chat.completions.create({ model: 'tiny-chat', messages, max_tokens: 20, temperature: 0 }),
        ]);
        together = answers.slice(0, prompts.length).map((answer) => (answer as OpenAI.Completion).choices[0]!.text);
      });
      expect(most).toBe(2);
      expect(together).toEqual(alone);
    } finally {
      await queued.close();
    }
  });

  it('answers 429 with Retry-After, on both endpoints, only once the queue is full', async () => {
    const busy = await serveModel({
      checkpoint,
      port: 0,
      backend: 'wasm',
      maxConcurrentRequests: 1,
      maxQueuedRequests: 0,
    });
    const batch = watchNextBatch();
    try {
      const hangUp = new AbortController();
      const long = fetch(`${busy.baseURL}/completions`, {
        method: 'POST',
        body: JSON.stringify({ model: 'tiny-chat', prompt: 'hello', max_tokens: 300, temperature: 0 }),
        signal: hangUp.signal,
      });
      await batch.started;
      const post = (path: string, body: Record<string, unknown>) =>
        fetch(`${busy.baseURL}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'tiny-chat', max_tokens: 2, ...body }),
        });
      for (const refused of [
        await post('/completions', { prompt: 'a' }),
        await post('/completions', { prompt: 'a', stream: true }),
        await post('/chat/completions', { messages }),
      ]) {
        expect(refused.status).toBe(429);
        expect(refused.headers.get('retry-after')).toBe('1');
        expect(await refused.json()).toMatchObject({
          error: { type: 'rate_limit_error', code: 'rate_limit_exceeded', message: expect.stringMatching(/busy/) },
        });
      }
      // A prompt past the context is refused as such at once, not after waiting for a slot.
      for (const tooLong of [
        await post('/completions', { prompt: 'x'.repeat(2000) }),
        await post('/chat/completions', { messages: [{ role: 'user', content: 'x'.repeat(2000) }] }),
      ]) {
        expect(tooLong.status).toBe(400);
        expect(await tooLong.json()).toMatchObject({ error: { code: 'context_length_exceeded' } });
      }
      hangUp.abort();
      await expect(long).rejects.toThrow();
      await batch.stopped;
    } finally {
      batch.restore();
    }
    try {
      // The slot is free again.
      const local = new OpenAI({ baseURL: busy.baseURL, apiKey: 'local', maxRetries: 0, timeout: 20_000 });
      expect((await local.completions.create({ model: 'tiny-chat', prompt: 'a', max_tokens: 2 })).choices).toHaveLength(
        1,
      );
    } finally {
      await busy.close();
    }
    await expect(serveModel({ checkpoint, port: 0, backend: 'wasm', maxConcurrentRequests: 0 })).rejects.toThrow(
      /maxConcurrentRequests/,
    );
    await expect(serveModel({ checkpoint, port: 0, backend: 'wasm', maxQueuedRequests: -1 })).rejects.toThrow(
      /maxQueuedRequests/,
    );
  });

  it('refuses to serve a checkpoint whose end token is not in its vocabulary (it would only stop at max_tokens)', async () => {
    const broken = join(dir, 'broken');
    const edit = (file: string, changes: Record<string, unknown>): void => {
      cpSync(checkpoint, broken, { recursive: true });
      const json = JSON.parse(readFileSync(join(checkpoint, file), 'utf8')) as Record<string, unknown>;
      writeFileSync(join(broken, file), JSON.stringify({ ...json, ...changes }));
    };
    // The error the server refuses to start with; a server that starts anyway is closed, not left running.
    const refusal = async (): Promise<unknown> => {
      const started = await serveModel({ checkpoint: broken, port: 0, backend: 'wasm' }).catch(
        (error: unknown) => error,
      );
      if (started instanceof Error) return started;
      await (started as ModelServer).close();
      return 'served';
    };
    edit('tokenizer_config.json', { eos_token: '</s>' });
    const eos = await refusal();
    expect(eos).toBeInstanceOf(CheckpointError);
    expect(eos).toMatchObject({
      message: expect.stringMatching(
        /tokenizer_config.json: "eos_token" "<\/s>" is not in tokenizer.json's vocabulary/,
      ),
    });
    edit('tokenizer_config.json', { bos_token: { content: '<s>' } });
    expect(await refusal()).toMatchObject({
      message: expect.stringMatching(/tokenizer_config.json: "bos_token" "<s>" is not in/),
    });
    edit('generation_config.json', { eos_token_id: [258, '</s>'] });
    expect(await refusal()).toMatchObject({
      message: expect.stringMatching(
        /generation_config.json: "eos_token_id" must be a token id or a list of token ids .*got \[258,"<\/s>"\]/,
      ),
    });
    edit('generation_config.json', { eos_token_id: -1 });
    expect(await refusal()).toMatchObject({
      message: expect.stringMatching(/generation_config.json: "eos_token_id" must be/),
    });
    edit('generation_config.json', { eos_token_id: [258, 4000] });
    expect(await refusal()).toMatchObject({
      message: expect.stringMatching(
        /generation_config.json: "eos_token_id" lists 4000, outside tokenizer.json's vocabulary of 259 ids/,
      ),
    });
    edit('generation_config.json', { eos_token_id: 258 });
    expect(await refusal()).toBe('served');
  });

  it('local:<checkpoint> works as a ChatModel spec', async () => {
    const restore = registerLocalChatModelProvider();
    const model = createChatModel(`local:${checkpoint}`, { providerOptions: { backend: 'wasm' } });
    try {
      const response = await model.complete({ messages, temperature: 0, maxTokens: 12 });
      const expected = await lmGenerate({ checkpoint, messages, temperature: 0, maxTokens: 12, backend: 'wasm' });
      expect(response.message.content).toBe(expected.samples[0]!.text);
      expect(response.usage.completionTokens).toBe(expected.samples[0]!.tokens.length);
      expect(model.id).toBe(`local:${checkpoint}`);
    } finally {
      await model.close?.();
      restore();
    }
  });
});
