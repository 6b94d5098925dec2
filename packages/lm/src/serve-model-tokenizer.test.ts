import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import OpenAI from 'openai';
import { useBackend } from './backend';
import { saveCheckpoint } from './checkpoint';
import { HfTokenizer } from './hf-tokenizer';
import { LanguageModel } from './language-model';
import { serveModel, type ModelServer } from './serve-model';
import { ServeModelTokenizer } from './serve-model-tokenizer';
import { testConfig } from './tiny-configs';
import { randomWeights } from './__fixtures__/random-weights';
import { smallBpeTokenizer } from './__fixtures__/small-bpe-tokenizer';

/**
 * A byte-level BPE whose runs of up to 64 spaces are one token (as Llama-3's and GPT-2's): a long run of spaces is
 * one word that BPE merges step by step, seconds for tens of kilobytes, yet it passes the size bound (64 bytes a
 * token) for a context that its tokens overflow.
 */
function slowBpe(): HfTokenizer {
  const { json, config } = smallBpeTokenizer();
  const model = json.model as { vocab: Record<string, number>; merges: string[] };
  let next = Object.values(model.vocab).reduce((most, id) => Math.max(most, id), 0) + 1;
  let piece = 'Ġ';
  for (let i = 0; i < 6; i++) {
    model.merges.push(`${piece} ${piece}`);
    piece += piece;
    model.vocab[piece] = next++;
  }
  for (const token of json.added_tokens as { id: number }[]) token.id = next++;
  return new HfTokenizer(json, config);
}

describe('ServeModelTokenizer', () => {
  it('tokenizes long prompts in its worker to the very ids of the tokenizer, short ones in place', async () => {
    const tokenizer = slowBpe();
    const tokenizing = new ServeModelTokenizer(tokenizer, 1024);
    const encode = jest.spyOn(tokenizer, 'encode');
    try {
      const texts = [' '.repeat(5000), `<|begin|>hello ${'wörld 😀 '.repeat(300)}<|end|>`, 'hé'.repeat(2000)];
      for (const text of texts) {
        for (const addSpecialTokens of [false, true]) {
          const ids = await tokenizing.encode(text, { addSpecialTokens });
          encode.mockClear();
          expect(ids).toEqual(tokenizer.encode(text, { addSpecialTokens }));
          encode.mockClear();
        }
      }
      expect(encode).not.toHaveBeenCalled();
      const short = await tokenizing.encode('hello');
      expect(encode).toHaveBeenCalledTimes(1);
      expect(short).toEqual(tokenizer.encode('hello'));
    } finally {
      await tokenizing.close();
    }
    // Closed, it tokenizes in place, as before.
    expect(await tokenizing.encode(' '.repeat(5000))).toEqual(tokenizer.encode(' '.repeat(5000)));
  });
});

describe('serve-model with a long prompt to tokenize', () => {
  let dir: string;
  let server: ModelServer;
  let client: OpenAI;

  beforeAll(async () => {
    await useBackend('wasm');
    dir = mkdtempSync(join(tmpdir(), 'turngym-serve-tokenize-'));
    const checkpoint = join(dir, 'bpe-chat');
    const tokenizer = slowBpe();
    const config = testConfig({ vocabSize: tokenizer.vocabSize, maxPositions: 1024 });
    const model = LanguageModel.fromTensors(config, randomWeights(config, 3), tokenizer);
    await saveCheckpoint(model, checkpoint);
    model.dispose();
    server = await serveModel({ checkpoint, port: 0, backend: 'wasm' });
    client = new OpenAI({ baseURL: server.baseURL, apiKey: 'local', maxRetries: 0, timeout: 60_000 });
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers other clients while it tokenizes, and refuses the prompt with its real token count', async () => {
    // 66,000 spaces: 1,032 tokens, past the 1,024-token context, yet under its size bound (1,024 × 65 bytes). In
    // place, tokenizing them held the event loop for seconds (2.7 s measured here), /v1/models included.
    const prompt = `${' '.repeat(66_000)}x`;
    const count = server.model.tokenizer.encode(prompt, { addSpecialTokens: true }).length;
    expect(count).toBeGreaterThan(1024);
    const encode = jest.spyOn(server.model.tokenizer, 'encode');
    let handedOver!: () => void;
    const inWorker = new Promise<void>((resolve) => (handedOver = resolve));
    const post = Worker.prototype.postMessage;
    const posts = jest.spyOn(Worker.prototype, 'postMessage').mockImplementation(function (this: Worker, ...args) {
      post.apply(this, args);
      handedOver();
    });
    try {
      let settled = false;
      const refused = client.completions
        .create({ model: 'bpe-chat', prompt, max_tokens: 1 })
        .finally(() => (settled = true));
      refused.catch(() => {});
      await inWorker;
      // While the worker tokenizes, the event loop answers.
      const models = await client.models.list();
      expect(models.data[0]!.id).toBe('bpe-chat');
      expect(settled).toBe(false);
      await expect(refused).rejects.toMatchObject({ status: 400, code: 'context_length_exceeded', param: 'prompt' });
      await expect(refused).rejects.toThrow(new RegExp(`\\b${count}\\b`));
      // The chat endpoint tokenizes its rendered prompt there too (its template trims the content's ends).
      await expect(
        client.chat.completions.create({ model: 'bpe-chat', messages: [{ role: 'user', content: `x${prompt}` }] }),
      ).rejects.toMatchObject({ status: 400, code: 'context_length_exceeded' });
      expect(encode.mock.calls.filter(([text]) => text.length >= prompt.length)).toEqual([]);
    } finally {
      encode.mockRestore();
      posts.mockRestore();
    }
    // A long prompt that fits is served as a short one is.
    const fits = await client.completions.create({
      model: 'bpe-chat',
      prompt: ' '.repeat(20_000),
      max_tokens: 3,
      temperature: 0,
    });
    const [direct] = server.model.generate(
      [{ tokens: server.model.tokenizer.encode(' '.repeat(20_000), { addSpecialTokens: true }) }],
      { maxTokens: 3, temperature: 0 },
    );
    expect(fits.choices[0]!.text).toBe(direct!.text);
  }, 120_000); // four tokenizations of 20,000–66,000 spaces (seconds each on a loaded machine)
});
