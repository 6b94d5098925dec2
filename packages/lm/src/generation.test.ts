import { useBackend } from './backend';
import { ByteTokenizer } from './byte-tokenizer';
import * as tf from '@tensorflow/tfjs';
import { generateYielding } from './generation';
import { LanguageModel } from './language-model';
import { ContextLengthError, TokenizerMismatchError } from './lm-errors';
import { testConfig } from './tiny-configs';
import { randomTokens, randomWeights } from './__fixtures__/random-weights';
import { backendsUnderTest } from './__fixtures__/wasm-tests';

const backends = backendsUnderTest();

describe.each(backends)('generation on %s', (backend) => {
  let model: LanguageModel;
  const config = testConfig({ maxPositions: 48 });
  beforeAll(async () => {
    await useBackend(backend);
    model = LanguageModel.fromTensors(config, randomWeights(config, 8), new ByteTokenizer());
  });
  afterAll(() => model.dispose());

  const prompts = [randomTokens(5, 256, 31), randomTokens(9, 256, 32), randomTokens(2, 256, 33)];

  it('KV-cache decoding of a padded batch gives the logprobs of a full forward pass', async () => {
    const results = model.generate(
      prompts.map((tokens) => ({ tokens })),
      { maxTokens: 6, temperature: 1, seed: 3, stopTokenIds: [] },
    );
    const scored = await model.score(results.map((result, i) => ({ tokens: [...prompts[i]!, ...result.tokens] })));
    results.forEach((result, i) => {
      expect(result.tokens).toHaveLength(6);
      expect(result.finishReason).toBe('length');
      expect(result.promptTokens).toBe(prompts[i]!.length);
      result.logprobs.forEach((logprob, t) =>
        expect(Math.abs(logprob - scored.logprobs[i]![prompts[i]!.length + t]!)).toBeLessThan(1e-4),
      );
    });
  });

  it('is deterministic for a seed, varies across seeds, and a row does not depend on its batch', () => {
    const a = model.generate(
      prompts.map((tokens) => ({ tokens })),
      { maxTokens: 8, seed: 11, stopTokenIds: [] },
    );
    const b = model.generate(
      prompts.map((tokens) => ({ tokens })),
      { maxTokens: 8, seed: 11, stopTokenIds: [] },
    );
    const c = model.generate(
      prompts.map((tokens) => ({ tokens })),
      { maxTokens: 8, seed: 12, stopTokenIds: [] },
    );
    expect(b.map((r) => r.tokens)).toEqual(a.map((r) => r.tokens));
    expect(c.map((r) => r.tokens)).not.toEqual(a.map((r) => r.tokens));
    const alone = model.generate([{ tokens: prompts[1]!, seed: 99 }], { maxTokens: 8, stopTokenIds: [] });
    const batched = model.generate(
      prompts.map((tokens, i) => ({ tokens, ...(i === 1 ? { seed: 99 } : {}) })),
      { maxTokens: 8, stopTokenIds: [] },
    );
    expect(batched[1]!.tokens).toEqual(alone[0]!.tokens);
  });

  it('stops at stop tokens and stop sequences, and at maxTokens', () => {
    const free = model.generate([{ tokens: prompts[0]! }], { maxTokens: 12, temperature: 0, stopTokenIds: [] })[0]!;
    const stopToken = free.tokens[4]!;
    const first = free.tokens.indexOf(stopToken);
    const byToken = model.generate([{ tokens: prompts[0]! }], {
      maxTokens: 12,
      temperature: 0,
      stopTokenIds: [stopToken],
    })[0]!;
    expect(byToken.finishReason).toBe('stop');
    expect(byToken.tokens).toEqual(free.tokens.slice(0, first + 1));
    expect(byToken.text).toBe(model.tokenizer.decode(free.tokens.slice(0, first)));

    const fullText = model.tokenizer.decode(free.tokens);
    const stop = fullText.slice(Math.floor(fullText.length / 2), Math.floor(fullText.length / 2) + 1);
    const bySequence = model.generate([{ tokens: prompts[0]! }], {
      maxTokens: 12,
      temperature: 0,
      stop: [stop],
      stopTokenIds: [],
    })[0]!;
    expect(bySequence.finishReason).toBe('stop');
    expect(bySequence.text).toBe(fullText.slice(0, fullText.indexOf(stop)));
    expect(free.tokens.slice(0, bySequence.tokens.length)).toEqual(bySequence.tokens);
  });

  it('forks a cached prefix: branches equal generating from scratch, and the node stays usable', () => {
    const shared = [...prompts[1]!, ...prompts[0]!];
    const node = model.prefill(shared);
    const branchA = node.fork();
    const branchB = node.fork();
    const suffix = randomTokens(3, 256, 40);
    const fromCache = model.generate(
      [
        { cache: branchA, seed: 1 },
        { tokens: [...shared, ...suffix], cache: branchB, seed: 2 },
      ],
      { maxTokens: 5, stopTokenIds: [] },
    );
    const fromScratch = model.generate(
      [
        { tokens: shared, seed: 1 },
        { tokens: [...shared, ...suffix], seed: 2 },
      ],
      { maxTokens: 5, stopTokenIds: [] },
    );
    expect(fromCache.map((r) => r.tokens)).toEqual(fromScratch.map((r) => r.tokens));
    branchA.dispose();
    branchB.dispose();
    const again = model.generate([{ cache: node, seed: 1 }], { maxTokens: 5, stopTokenIds: [] });
    expect(again[0]!.tokens).toEqual(fromScratch[0]!.tokens);
    node.dispose();
    expect(() => model.generate([{ cache: node }])).toThrow(/disposed/);
  });

  it('rows that end at different steps get what they would alone, and caches that continue them', () => {
    // Eight rows ending after 1…8 tokens: finished rows first stay in the batch (masked), then leave it.
    const many = Array.from({ length: 8 }, (_, i) => randomTokens(2 + ((i * 3) % 7), 256, 50 + i));
    const requests = many.map((tokens, i) => ({ tokens, maxTokens: i + 1, seed: 70 + i }));
    const batched = model.generate(requests, { maxTokens: 8, keepCache: true, stopTokenIds: [] });
    const observation = randomTokens(2, 256, 49);
    batched.forEach((result, i) => {
      const [alone] = model.generate([requests[i]!], { maxTokens: 8, stopTokenIds: [] });
      expect(result.tokens).toEqual(alone!.tokens);
      result.logprobs.forEach((logprob, t) => expect(Math.abs(logprob - alone!.logprobs[t]!)).toBeLessThan(1e-4));
      // The row's own cache continues the episode as a fresh prefill of the whole history would.
      const history = [...many[i]!, ...result.tokens, ...observation];
      const [cached] = model.generate([{ tokens: history, cache: result.cache!, seed: 5 }], {
        maxTokens: 3,
        stopTokenIds: [],
      });
      const [fresh] = model.generate([{ tokens: history, seed: 5 }], { maxTokens: 3, stopTokenIds: [] });
      expect(cached!.tokens).toEqual(fresh!.tokens);
      cached!.logprobs.forEach((logprob, t) => expect(Math.abs(logprob - fresh!.logprobs[t]!)).toBeLessThan(1e-4));
      result.cache!.dispose();
    });
  });

  it("continues a batch of rows from caches of different lengths, as a rollout's next turn does", async () => {
    // A second turn for every row at once: each row's cache (its own length) is stacked left-padded under the
    // others, so every slot must land where the row's own history puts it.
    const first = model.generate(
      prompts.map((tokens, i) => ({ tokens, maxTokens: 2 + i, seed: 20 + i })),
      { maxTokens: 4, keepCache: true, stopTokenIds: [] },
    );
    const histories = first.map((result, i) => [...prompts[i]!, ...result.tokens, ...randomTokens(2 + i, 256, 90 + i)]);
    expect(new Set(first.map((result) => result.cache!.cachedLength)).size).toBe(3);
    const next = model.generate(
      histories.map((tokens, i) => ({ tokens, cache: first[i]!.cache!, seed: 30 + i })),
      { maxTokens: 3, stopTokenIds: [] },
    );
    first.forEach((result) => result.cache!.dispose());
    const scored = await model.score(next.map((result, i) => ({ tokens: [...histories[i]!, ...result.tokens] })));
    next.forEach((result, i) =>
      result.logprobs.forEach((logprob, t) =>
        expect(Math.abs(logprob - scored.logprobs[i]![histories[i]!.length + t]!)).toBeLessThan(1e-4),
      ),
    );
  });

  it('returns caches that continue a multi-turn episode with the right logprobs', async () => {
    const [turn] = model.generate([{ tokens: prompts[0]! }], {
      maxTokens: 4,
      seed: 5,
      keepCache: true,
      stopTokenIds: [],
    });
    const observation = randomTokens(3, 256, 41);
    const history = [...prompts[0]!, ...turn!.tokens, ...observation];
    expect(turn!.cache!.cachedLength).toBe(prompts[0]!.length + 3);
    const [next] = model.generate([{ tokens: history, cache: turn!.cache! }], {
      maxTokens: 4,
      seed: 6,
      stopTokenIds: [],
    });
    turn!.cache!.dispose();
    const scored = await model.score([{ tokens: [...history, ...next!.tokens] }]);
    next!.logprobs.forEach((logprob, t) =>
      expect(Math.abs(logprob - scored.logprobs[0]![history.length + t]!)).toBeLessThan(1e-4),
    );
  });

  it("a prompt's cache taken out of a longer one (prefixOf) samples and continues as the prompt's own prefill", () => {
    // Ragged rows: the view's rows are longer tensors than the slots they cache, stacked with rows of
    // other lengths, one with a cache and one without.
    const node = model.prefill(prompts[2]!);
    const turns = model.generate([{ tokens: prompts[0]! }, { tokens: [...prompts[2]!, 7, 8, 9], cache: node }], {
      maxTokens: 6,
      seed: 4,
      keepCache: true,
      stopTokenIds: [],
    });
    node.dispose();
    const views = turns.map((turn, i) =>
      turn.cache!.prefixOf(i === 0 ? prompts[0]!.length : prompts[2]!.length + 3, turn.promptLogits!),
    );
    // The longer caches go; the views keep their memory.
    for (const turn of turns) turn.cache!.dispose();
    expect(views.map((view) => view.cachedLength)).toEqual([prompts[0]!.length, prompts[2]!.length + 3]);
    const suffix = randomTokens(4, 256, 42);
    const fromViews = model.generate(
      [
        { cache: views[0]!, seed: 11 },
        { tokens: prompts[1]!, seed: 12 },
        { tokens: [...views[1]!.tokens, ...suffix], cache: views[1]!, seed: 13 },
      ],
      { maxTokens: 5, stopTokenIds: [] },
    );
    const fresh = model.generate(
      [
        { tokens: prompts[0]!, seed: 11 },
        { tokens: prompts[1]!, seed: 12 },
        { tokens: [...prompts[2]!, 7, 8, 9, ...suffix], seed: 13 },
      ],
      { maxTokens: 5, stopTokenIds: [] },
    );
    expect(fromViews.map((result) => result.tokens)).toEqual(fresh.map((result) => result.tokens));
    fromViews.forEach((result, i) =>
      result.logprobs.forEach((logprob, t) => expect(Math.abs(logprob - fresh[i]!.logprobs[t]!)).toBeLessThan(1e-4)),
    );
    // A prefill from a view (its nextLogits included) is the view itself.
    const again = model.prefill(views[0]!.tokens, { from: views[0]! });
    expect(again.nextLogits).toEqual(views[0]!.nextLogits);
    expect(() => views[0]!.prefixOf(views[0]!.cachedLength + 1, views[0]!.nextLogits!)).toThrow(/cachedLength/);
    for (const cache of [...views, again]) cache.dispose();
  });

  it('refuses prompts over the context limit and stops generating at it', () => {
    expect(() => model.generate([{ tokens: randomTokens(49, 256) }])).toThrow(ContextLengthError);
    const [result] = model.generate([{ tokens: randomTokens(45, 256) }], { maxTokens: 10, stopTokenIds: [] });
    expect(result!.tokens).toHaveLength(4);
    expect(result!.finishReason).toBe('length');
  });

  it('refuses token ids outside the vocabulary on every backend (a GPU gather would read a wrong row)', async () => {
    const outside = config.vocabSize;
    expect(() => model.generate([{ tokens: [1, outside] }])).toThrow(TokenizerMismatchError);
    expect(() => model.generate([{ tokens: [1, outside] }])).toThrow(
      new RegExp(`Request 0: token 1 is ${outside}, outside the model's vocabulary of ${outside} ids`),
    );
    expect(() => model.prefill([-1])).toThrow(/token 0 is -1/);
    await expect(model.score([{ tokens: [1, 2, outside] }])).rejects.toThrow(
      new RegExp(`Row 0: token 2 is ${outside}, outside the model's vocabulary`),
    );
  });

  it('leaks no tensors', () => {
    const start = tf.memory().numTensors;
    const node = model.prefill(prompts[0]!);
    const results = model.generate([{ cache: node }, { tokens: prompts[1]! }], {
      maxTokens: 5,
      keepCache: true,
      stopTokenIds: [],
    });
    node.dispose();
    for (const result of results) result.cache!.dispose();
    expect(tf.memory().numTensors).toBe(start);
  });

  it('generateYielding lets the event loop run between decoder passes and gives the same tokens as generate', async () => {
    const options = { maxTokens: 6, temperature: 1, seed: 3, stopTokenIds: [], keepCache: true };
    const requests = prompts.map((tokens) => ({ tokens }));
    const reference = model.generate(requests, options);
    const start = tf.memory().numTensors;
    // Every look at the clock finds 100 ms of work done: each pass is followed by a turn of the event loop.
    let clock = 0;
    const now = jest.spyOn(performance, 'now').mockImplementation(() => (clock += 100));
    let turns = 0;
    let finished = false;
    const handler = (): void => {
      if (finished) return;
      turns += 1;
      setImmediate(handler);
    };
    try {
      setImmediate(handler);
      const results = await generateYielding(model, requests, options);
      finished = true;
      // A signal handler (a macrotask like this one) ran during the passes, not only after them.
      expect(turns).toBeGreaterThan(1);
      const withoutCache = ({ cache: _cache, ...rest }: (typeof results)[number]) => rest;
      expect(results.map(withoutCache)).toEqual(reference.map(withoutCache));
      for (const result of results) result.cache!.dispose();
      expect(tf.memory().numTensors).toBe(start);
    } finally {
      now.mockRestore();
      for (const result of reference) result.cache!.dispose();
    }
    expect(await generateYielding(model, [], options)).toEqual([]);
  });
});
