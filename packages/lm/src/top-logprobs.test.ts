import { SeededRng } from '@turngym/core';
import { useBackend } from './backend';
import { ByteTokenizer } from './byte-tokenizer';
import { GenerationBatch } from './generation-batch';
import type { Generation, GenerationOptions } from './generation';
import { LanguageModel } from './language-model';
import { logSumExp, sampleToken } from './sampling';
import { testConfig } from './tiny-configs';
import { topLogprobs, type TokenLogprob } from './top-logprobs';
import { randomWeights } from './__fixtures__/random-weights';

/** The whole log-softmax, sorted likeliest first (ties: lower id): what the top entries must be the head of. */
function fullRanking(logits: Float32Array): TokenLogprob[] {
  const normaliser = logSumExp(logits);
  return Array.from(logits, (logit, token) => ({ token, logprob: logit - normaliser })).sort(
    (a, b) => b.logprob - a.logprob || a.token - b.token,
  );
}

function expectHeadOf(actual: readonly TokenLogprob[], logits: Float32Array, count: number, digits = 6): void {
  const expected = fullRanking(logits).slice(0, count);
  expect(actual.map((entry) => entry.token)).toEqual(expected.map((entry) => entry.token));
  actual.forEach((entry, k) => expect(entry.logprob).toBeCloseTo(expected[k]!.logprob, digits));
  // Sorted, likeliest first.
  for (let k = 1; k < actual.length; k++) expect(actual[k]!.logprob).toBeLessThanOrEqual(actual[k - 1]!.logprob);
}

describe('topLogprobs', () => {
  it('is the N largest entries of the log-softmax, sorted, ties by lower id, and greedy picks its first', () => {
    const rng = new SeededRng(4);
    const logits = Float32Array.from({ length: 300 }, () => Math.round(rng.next() * 40) / 4);
    for (const count of [1, 3, 5, 20]) {
      const top = topLogprobs(logits, count);
      expect(top).toEqual(fullRanking(logits).slice(0, count));
      const greedy = sampleToken(logits, { temperature: 0, topP: 1 }, new SeededRng(0));
      expect(greedy).toEqual(top[0]);
    }
    expect(topLogprobs(logits, 0)).toEqual([]);
    expect(topLogprobs(Float32Array.from([1, 2]), 5).map((entry) => entry.token)).toEqual([1, 0]);
  });
});

describe('top logprobs from generation and scoring', () => {
  let model: LanguageModel;
  const config = testConfig({ maxPositions: 64 });
  const prompt = [5, 72, 101, 108, 108, 111];

  beforeAll(async () => {
    await useBackend('cpu');
    model = LanguageModel.fromTensors(config, randomWeights(config, 5), new ByteTokenizer());
  });
  afterAll(() => model.dispose());

  /** The logits after each prefix of prompt + generated tokens that predicts a generated token. */
  async function logitsBefore(generation: Generation): Promise<Float32Array[]> {
    const all = await model.logits({ tokens: [...prompt, ...generation.tokens] });
    return generation.tokens.map((_, i) => all[prompt.length - 1 + i]!);
  }

  it.each([
    ['sampled (temperature 0.8, top-p 0.9)', { temperature: 0.8, topP: 0.9 }],
    ['greedy (temperature 0)', { temperature: 0, topP: 1 }],
  ])(
    'generate, %s: at each token the N likeliest of the model distribution, the drawn token with its own logprob',
    async (_name, sampling: Partial<GenerationOptions>) => {
      const options = { ...sampling, maxTokens: 8, seed: 3, stopTokenIds: [] };
      const [plain] = model.generate([{ tokens: prompt }], options);
      const [withTop] = model.generate([{ tokens: prompt }], { ...options, topLogprobs: 4 });
      // Asking for alternatives draws the same tokens.
      expect(withTop!.tokens).toEqual(plain!.tokens);
      expect(withTop!.logprobs).toEqual(plain!.logprobs);
      expect(plain!.topLogprobs).toBeUndefined();
      const top = withTop!.topLogprobs!;
      expect(top).toHaveLength(withTop!.tokens.length);
      const logits = await logitsBefore(withTop!);
      top.forEach((entries, i) => {
        expectHeadOf(entries, logits[i]!, 4, 4);
        const own = entries.find((entry) => entry.token === withTop!.tokens[i]);
        if (own) expect(own.logprob).toBe(withTop!.logprobs[i]);
        if (sampling.temperature === 0) {
          expect(entries[0]!.token).toBe(withTop!.tokens[i]);
          expect(entries[0]!.logprob).toBe(withTop!.logprobs[i]);
        }
      });
      // GenerationBatch (what the server decodes with) lists the same.
      const batch = new GenerationBatch(model, { ...options, topLogprobs: 4 });
      batch.add({ tokens: prompt });
      let generation: Generation | undefined;
      while (batch.size > 0) for (const row of batch.step()) generation = row.generation;
      batch.dispose();
      expect(generation!.tokens).toEqual(withTop!.tokens);
      expect(generation!.topLogprobs!.map((entries) => entries.map((entry) => entry.token))).toEqual(
        top.map((entries) => entries.map((entry) => entry.token)),
      );
    },
  );

  it('refuses topLogprobs past 20 as generate options', () => {
    expect(() => model.generate([{ tokens: prompt }], { topLogprobs: 21 })).toThrow(/topLogprobs/);
  });

  it('score: the N likeliest at each scored position, the scored token with its own logprob, none before the first', async () => {
    const text = [...prompt, 32, 119, 111, 114, 108, 100];
    const { logprobs, topLogprobs: top } = await model.score([{ tokens: text }, { tokens: prompt }], {
      topLogprobs: 5,
    });
    const logits = await model.logits({ tokens: text });
    expect(top![0]![0]).toBeNull();
    expect(top![0]).toHaveLength(text.length);
    expect(top![1]).toHaveLength(prompt.length);
    for (let t = 1; t < text.length; t++) {
      const entries = top![0]![t]!;
      expectHeadOf(entries, logits[t - 1]!, 5, 4);
      const own = entries.find((entry) => entry.token === text[t]);
      if (own) expect(own.logprob).toBe(logprobs[0]![t]);
      // An evaluator's is_greedy: the token is the argmax exactly when its logprob is the largest listed.
      expect(logprobs[0]![t] === entries[0]!.logprob).toBe(fullRanking(logits[t - 1]!)[0]!.token === text[t]);
    }
    // A greedy continuation scores as greedy at every token: its logprob is the largest listed, and exactly so.
    const [greedy] = model.generate([{ tokens: prompt }], { temperature: 0, maxTokens: 6, stopTokenIds: [] });
    const continued = [...prompt, ...greedy!.tokens];
    const scoredGreedy = await model.score([{ tokens: continued }], { topLogprobs: 1 });
    for (let t = prompt.length; t < continued.length; t++) {
      expect(scoredGreedy.topLogprobs![0]![t]![0]!.token).toBe(continued[t]);
      expect(scoredGreedy.topLogprobs![0]![t]![0]!.logprob).toBe(scoredGreedy.logprobs[0]![t]);
    }
    // The shorter row of the batch gets the same alternatives as it would alone (padding is not scored).
    const alone = await model.score([{ tokens: prompt }], { topLogprobs: 5 });
    alone.topLogprobs![0]!.forEach((entries, t) =>
      expect(top![1]![t]?.map((entry) => entry.token)).toEqual(entries?.map((entry) => entry.token)),
    );
    // Without the option, nothing extra is computed or returned.
    expect((await model.score([{ tokens: prompt }])).topLogprobs).toBeUndefined();
    await expect(model.score([{ tokens: prompt }], { topLogprobs: -1 })).rejects.toThrow(/topLogprobs/);
  });
});
