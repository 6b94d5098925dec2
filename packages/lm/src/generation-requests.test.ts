import { InvalidOptionsError } from '@turngym/core';
import { useBackend } from './backend';
import { ByteTokenizer } from './byte-tokenizer';
import { GenerationBatch } from './generation-batch';
import { KvCache } from './kv-cache';
import { LanguageModel } from './language-model';
import { testConfig } from './tiny-configs';
import { randomTokens, randomWeights } from './__fixtures__/random-weights';

// What a request may carry besides its prompt (a cache, its logits, a seed) and the options that name token ids:
// each is checked against the model, since each would otherwise be used as given and sample something else.
describe('generation refuses requests and options that do not fit the model', () => {
  const config = testConfig({ maxPositions: 48 });
  let model: LanguageModel;
  beforeAll(async () => {
    await useBackend('cpu');
    model = LanguageModel.fromTensors(config, randomWeights(config, 8), new ByteTokenizer());
  });
  afterAll(() => model.dispose());

  const prompt = randomTokens(5, 256, 31);
  const V = config.vocabSize;

  /** A prompt's own cache taken out of a generation's longer one, with the logits the caller hands in. */
  function viewWith(logits: Float32Array) {
    const [turn] = model.generate([{ tokens: prompt }], { maxTokens: 3, keepCache: true, stopTokenIds: [] });
    const view = turn!.cache!.prefixOf(prompt.length, logits);
    turn!.cache!.dispose();
    return { view, promptLogits: turn!.promptLogits! };
  }

  it('refuses prefixOf logits that are not one per vocabulary id, naming the field', () => {
    // Short: the ids past its end read 0, so a row of 5 with a 3 at id 4 drew id 4 almost surely. Long: the rest
    // spilled into the next row's logits (that row drew id 5 with logprob 0).
    for (const length of [5, V + 10]) {
      const logits = new Float32Array(length);
      logits[4] = 3;
      const { view } = viewWith(logits);
      const message = `request 0: cache.nextLogits has ${length} entries, not the model's vocabulary size ${V}`;
      expect(() =>
        model.generate([{ cache: view }, { tokens: [...prompt, 1] }], { maxTokens: 1, temperature: 0 }),
      ).toThrow(InvalidOptionsError);
      expect(() => model.generate([{ cache: view }], { maxTokens: 1 })).toThrow(message);
      const batch = new GenerationBatch(model, { maxTokens: 1 });
      expect(() => batch.add({ cache: view })).toThrow(message);
      expect(() => model.prefill([...prompt], { from: view })).toThrow(
        `from.nextLogits has ${length} entries, not the model's vocabulary size ${V}`,
      );
      batch.dispose();
      view.dispose();
    }
  });

  it('refuses NaN or +Infinity in the logits of a cache, and samples from the right ones as before', () => {
    const probe = viewWith(new Float32Array(V));
    probe.view.dispose();
    for (const value of [Number.NaN, Number.POSITIVE_INFINITY]) {
      const poisoned = Float32Array.from(probe.promptLogits);
      poisoned[7] = value;
      const bad = viewWith(poisoned);
      expect(() => model.generate([{ cache: bad.view }], { maxTokens: 1 })).toThrow(
        `cache.nextLogits[7] is ${value}; expected a finite number or -Infinity`,
      );
      bad.view.dispose();
    }
    // −∞ is a token never drawn (a mask), not an error.
    const masked = Float32Array.from(probe.promptLogits).fill(Number.NEGATIVE_INFINITY);
    masked[9] = 0;
    const only = viewWith(masked);
    expect(model.generate([{ cache: only.view }], { maxTokens: 1, stopTokenIds: [] })[0]!.tokens).toEqual([9]);
    only.view.dispose();
    const good = viewWith(probe.promptLogits);
    const options = { maxTokens: 4, seed: 2, stopTokenIds: [] };
    const [fromView] = model.generate([{ cache: good.view }], options);
    const [fresh] = model.generate([{ tokens: prompt }], options);
    expect(fromView!.tokens).toEqual(fresh!.tokens);
    good.view.dispose();
  });

  it("refuses another model's cache instead of running its keys as this model's", () => {
    const otherConfig = testConfig({ maxPositions: 48, numLayers: config.numLayers + 1 });
    const other = LanguageModel.fromTensors(otherConfig, randomWeights(otherConfig, 9), new ByteTokenizer());
    const foreign = other.prefill(prompt);
    expect(() => model.generate([{ tokens: [...prompt, 1], cache: foreign }])).toThrow(
      new RegExp(
        `request 0: cache.layers hold ${config.numLayers + 1} layers .* the cache was computed by another model`,
      ),
    );
    expect(() => model.prefill([...prompt, 1], { from: foreign })).toThrow(/from.layers hold/);
    foreign.dispose();
    other.dispose();
  });

  it('refuses stop token ids past the vocabulary (never drawn: generation would run to maxTokens)', () => {
    const message = `options.stopTokenIds[1] is ${V + 3}, outside the model's vocabulary of ${V} ids`;
    expect(() => model.generate([{ tokens: prompt }], { stopTokenIds: [2, V + 3] })).toThrow(InvalidOptionsError);
    expect(() => model.generate([{ tokens: prompt }], { stopTokenIds: [2, V + 3] })).toThrow(message);
    expect(() => new GenerationBatch(model, { stopTokenIds: [2, V + 3] })).toThrow(message);
    expect(model.generate([{ tokens: prompt }], { maxTokens: 2, stopTokenIds: [V - 1] })[0]!.tokens.length).toBe(2);
  });

  it("refuses a request seed that is not an integer (1.5 drew seed 1's tokens)", () => {
    for (const seed of [1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => model.generate([{ tokens: prompt, seed }])).toThrow(
        `request 0: seed must be an integer (got ${String(seed)})`,
      );
    }
    const batch = new GenerationBatch(model);
    expect(() => batch.add({ tokens: prompt, seed: 1.5 })).toThrow(InvalidOptionsError);
    batch.dispose();
  });

  it("a request the batch refuses takes no ticket: the next one draws generate's first row", () => {
    const options = { maxTokens: 5, seed: 4, stopTokenIds: [] };
    const batch = new GenerationBatch(model, options);
    expect(() => batch.add({ tokens: [] })).toThrow(/empty prompt/);
    const ticket = batch.add({ tokens: prompt });
    expect(ticket).toBe(0);
    const finished = [];
    while (batch.size > 0) finished.push(...batch.step());
    batch.dispose();
    expect(finished.map((row) => row.generation.tokens)).toEqual([
      model.generate([{ tokens: prompt }], options)[0]!.tokens,
    ]);
  });

  it('a cache from maxTokens 0 carries the logits after its prompt, so it samples at once (it was a TypeError)', () => {
    const options = { seed: 6, stopTokenIds: [] };
    const [empty] = model.generate([{ tokens: prompt }], { ...options, maxTokens: 0, keepCache: true });
    expect(empty!.tokens).toEqual([]);
    expect(empty!.cache!.nextLogits).toEqual(empty!.promptLogits);
    const [fromCache] = model.generate([{ cache: empty!.cache! }], { ...options, maxTokens: 4 });
    const [fresh] = model.generate([{ tokens: prompt }], { ...options, maxTokens: 4 });
    expect(fromCache!.tokens).toEqual(fresh!.tokens);
    const again = model.prefill(prompt, { from: empty!.cache! });
    expect(again.nextLogits).toEqual(empty!.promptLogits);
    // GenerationBatch's rows that draw nothing keep their logits too.
    const batch = new GenerationBatch(model, { ...options, maxTokens: 0, keepCache: true });
    batch.add({ tokens: prompt });
    const [row] = batch.step();
    batch.dispose();
    expect(row!.generation.cache!.nextLogits).toEqual(row!.generation.promptLogits);
    for (const cache of [empty!.cache!, again, row!.generation.cache!]) cache.dispose();
  });

  it('a complete cache without logits is refused by name before anything runs', () => {
    const node = model.prefill(prompt);
    const bare = new KvCache(node.tokens, node.cachedLength, node.fork().layers, null, null);
    const message = 'its cache has no logits; add tokens after it';
    expect(() => model.generate([{ cache: bare }, { tokens: prompt }], { maxTokens: 2 })).toThrow(message);
    const batch = new GenerationBatch(model);
    expect(() => batch.add({ cache: bare })).toThrow(message);
    batch.dispose();
    expect(() => model.prefill(prompt, { from: bare })).toThrow(/holds every token but no logits/);
    bare.dispose();
    node.dispose();
  });

  it('says that a disposed model is disposed, rather than failing inside tfjs', () => {
    const gone = LanguageModel.fromTensors(config, randomWeights(config, 10), new ByteTokenizer());
    gone.dispose();
    expect(gone.disposed).toBe(true);
    const message = 'This LanguageModel was disposed';
    expect(() => gone.generate([{ tokens: prompt }])).toThrow(message);
    expect(() => gone.prefill(prompt)).toThrow(message);
    expect(() => new GenerationBatch(gone)).toThrow(message);
  });
});
