import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { useBackend } from './backend';
import { ByteTokenizer } from './byte-tokenizer';
import { saveCheckpoint } from './checkpoint';
import { LanguageModel } from './language-model';
import { serveModel, type ModelServer } from './serve-model';
import { testConfig } from './tiny-configs';
import { randomWeights } from './__fixtures__/random-weights';

// Fields clients rely on, through the openai client a user drives `turngym serve-model` with: what vLLM clients send
// beyond OpenAI's (lm-evaluation-harness, the openai client's extra_body), and the legacy logprobs' text_offset.
describe('serve-model: vLLM sampling fields and text_offset', () => {
  let dir: string;
  let server: ModelServer;
  let client: OpenAI;
  const messages = [{ role: 'user' as const, content: 'Say something.' }];

  beforeAll(async () => {
    await useBackend('wasm');
    dir = mkdtempSync(join(tmpdir(), 'turngym-serve-sampling-'));
    const checkpoint = join(dir, 'tiny-chat');
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

  /** A completion request with vLLM's fields, sent as the openai client sends `extra_body` (in the JSON body). */
  const complete = (extra: Record<string, unknown>) =>
    client.completions.create({
      model: 'tiny-chat',
      prompt: 'ab',
      max_tokens: 8,
      n: 4,
      seed: 5,
      ...extra,
    } as OpenAI.CompletionCreateParamsNonStreaming);
  const chat = (extra: Record<string, unknown>) =>
    client.chat.completions.create({
      model: 'tiny-chat',
      messages,
      max_tokens: 8,
      seed: 5,
      ...extra,
    } as OpenAI.ChatCompletionCreateParamsNonStreaming);

  it('samples from the likeliest token only with top_k: 1 or min_p: 1, as greedy decoding does', async () => {
    const greedy = (await complete({ temperature: 0, n: 1 })).choices[0]!.text;
    // Ignored, these sampled at temperature 1 from all 256 bytes: four different texts, none the greedy one.
    for (const extra of [{ top_k: 1 }, { min_p: 1 }]) {
      const sampled = await complete({ temperature: 1, ...extra });
      expect(sampled.choices.map((choice) => choice.text)).toEqual([greedy, greedy, greedy, greedy]);
    }
    const greedyReply = (await chat({ temperature: 0 })).choices[0]!.message.content;
    for (const extra of [{ top_k: 1 }, { min_p: 1 }]) {
      expect((await chat({ temperature: 1.5, ...extra })).choices[0]!.message.content).toBe(greedyReply);
    }
  });

  it('penalises repeats with repetition_penalty, greedy decoding included, and leaves off values alone', async () => {
    const prompt = 'aaaa';
    const plain = await complete({ prompt, temperature: 0, n: 1, max_tokens: 24 });
    const penalised = await complete({ prompt, temperature: 0, n: 1, max_tokens: 24, repetition_penalty: 1e6 });
    // Ignored, the penalty left the greedy text as it was: one byte over and over.
    expect(penalised.choices[0]!.text).not.toBe(plain.choices[0]!.text);
    const [direct] = server.model.generate([{ tokens: server.model.tokenizer.encode(prompt) }], {
      maxTokens: 24,
      temperature: 0,
      repetitionPenalty: 1e6,
    });
    expect(penalised.choices[0]!.text).toBe(direct!.text);
    // A penalty this large puts every seen byte (the prompt's, each one drawn) behind the unseen ones this model
    // favours: no byte twice, and none of the prompt's.
    expect(new Set(direct!.tokens).size).toBe(direct!.tokens.length);
    expect(direct!.tokens).not.toContain('a'.charCodeAt(0));
    const reply = async (extra: Record<string, unknown>) =>
      (await chat({ temperature: 0, ...extra })).choices[0]!.message;
    expect((await reply({ repetition_penalty: 1e6 })).content).not.toBe((await reply({})).content);
    // Off values (vLLM's -1 and 0 for top_k, 0 for min_p, 1 for the penalty) sample exactly what no fields do.
    const sampled = await complete({ temperature: 1 });
    const off = await complete({ temperature: 1, top_k: -1, min_p: 0, repetition_penalty: 1 });
    expect(off.choices.map((choice) => choice.text)).toEqual(sampled.choices.map((choice) => choice.text));
    expect((await complete({ temperature: 1, top_k: 0, min_p: null })).choices.map((each) => each.text)).toEqual(
      sampled.choices.map((choice) => choice.text),
    );
  });

  it('answers bad values with a 400 that names the field, on both endpoints', async () => {
    const bad = [
      [{ top_k: -2 }, 'top_k'],
      [{ top_k: 1.5 }, 'top_k'],
      [{ top_k: '3' }, 'top_k'],
      [{ min_p: 1.5 }, 'min_p'],
      [{ min_p: -0.1 }, 'min_p'],
      [{ repetition_penalty: 0 }, 'repetition_penalty'],
      [{ repetition_penalty: -1 }, 'repetition_penalty'],
    ] as const;
    for (const [extra, param] of bad) {
      for (const send of [complete, chat]) {
        await expect(send(extra)).rejects.toMatchObject({
          status: 400,
          error: { param, message: expect.stringContaining(`"${param}" must be`) },
        });
      }
    }
  });

  it('answers text_offset: where each token starts in the returned text, echo and multi-byte characters included', async () => {
    // "é" is two bytes and "€" three: each byte a token of this tokenizer, each starting where its character does.
    const prompt = 'aé€b';
    const echoed = await complete({ prompt, echo: true, logprobs: 1, max_tokens: 6, n: 1, temperature: 0 });
    const [choice] = echoed.choices;
    const { tokens, text_offset: offsets } = choice!.logprobs!;
    expect(offsets!.slice(0, 7)).toEqual([0, 1, 1, 2, 2, 2, 3]);
    expect(offsets).toHaveLength(tokens!.length);
    expect(choice!.text.startsWith(prompt)).toBe(true);
    // The completion's first token starts right after the echoed prompt; none past the text, none backwards.
    expect(offsets![7]).toBe(prompt.length);
    for (let i = 1; i < offsets!.length; i++) expect(offsets![i]).toBeGreaterThanOrEqual(offsets![i - 1]!);
    expect(Math.max(...offsets!)).toBeLessThanOrEqual(choice!.text.length);

    // Without echo they count from the completion's start, and a stream's chunks carry the same offsets.
    const ask = { prompt: 'hello', logprobs: 0, max_tokens: 10, n: 2, temperature: 1 };
    const plain = await complete(ask);
    const stream = await client.completions.create({
      model: 'tiny-chat',
      seed: 5,
      stream: true,
      ...ask,
    } as OpenAI.CompletionCreateParamsStreaming);
    const streamed: number[][] = [[], []];
    for await (const chunk of stream)
      for (const each of chunk.choices) streamed[each.index]!.push(...(each.logprobs?.text_offset ?? []));
    for (const [index, each] of plain.choices.entries()) {
      expect(each.logprobs!.text_offset![0]).toBe(0);
      expect(each.logprobs!.text_offset).toHaveLength(each.logprobs!.tokens!.length);
      expect(streamed[index]).toEqual(each.logprobs!.text_offset);
    }
  });

  it("says where a /v1/completions body's JSON breaks, and refuses a compressed body with 415", async () => {
    // Both were answered "The request body is not valid JSON", nothing more.
    const post = async (body: string, headers: Record<string, string> = {}) => {
      const response = await fetch(`${server.baseURL}/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body,
      });
      const { error } = (await response.json()) as { error: { message: string; code: string } };
      return { status: response.status, ...error };
    };
    expect(await post('{"model": "tiny-chat", "prompt": "ab",}')).toEqual({
      status: 400,
      code: 'invalid_json',
      message:
        'The request body is not valid JSON: Expected double-quoted property name in JSON at position 38 (line 1, column 39)',
      type: 'invalid_request_error',
      param: null,
    });
    expect(await post('{"model": "tiny-chat", "prompt": "ab"}', { 'content-encoding': 'br' })).toMatchObject({
      status: 415,
      code: 'unsupported_content_encoding',
    });
  });
});
