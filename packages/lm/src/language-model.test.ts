import * as tf from '@tensorflow/tfjs';
import { ByteTokenizer } from './byte-tokenizer';
import { useBackend } from './backend';
import { attentionFromFunction, packedAttention } from './attention-mask';
import { LanguageModel } from './language-model';
import { referenceForward } from './reference-forward';
import { testConfig } from './tiny-configs';
import { ContextLengthError, TokenizerMismatchError } from './lm-errors';
import { maxAbsDifference, randomTokens, randomWeights } from './__fixtures__/random-weights';
import { backendsUnderTest } from './__fixtures__/wasm-tests';
import type { ModelConfig } from './model-config';

const backends = backendsUnderTest();

describe.each(backends)('LanguageModel on %s', (backend) => {
  beforeAll(async () => {
    await useBackend(backend);
  });

  async function expectMatchesReference(
    config: ModelConfig,
    tokens: number[],
    positions?: number[],
    allowed?: (q: number, k: number) => boolean,
  ) {
    const weights = randomWeights(config, 7);
    const model = LanguageModel.fromTensors(config, weights, new ByteTokenizer());
    try {
      const fast = await model.logits({
        tokens,
        ...(positions ? { positions } : {}),
        ...(allowed ? { attention: attentionFromFunction(allowed) } : {}),
      });
      const reference = referenceForward(config, weights, {
        tokens,
        ...(positions ? { positions } : {}),
        ...(allowed ? { allowed } : {}),
      });
      let scale = 0;
      for (const row of reference.logits) for (const value of row) scale = Math.max(scale, Math.abs(value));
      expect(scale).toBeGreaterThan(1); // the check below is meaningful only with logits of real size
      fast.forEach((row, t) => expect(maxAbsDifference(row, reference.logits[t]!)).toBeLessThan(2e-4 * scale));
    } finally {
      model.dispose();
    }
  }

  it('matches the float64 reference forward (Qwen2: GQA, q/k/v biases, tied embeddings)', async () => {
    const config = testConfig();
    await expectMatchesReference(config, randomTokens(11, config.vocabSize));
  });

  it('matches the reference for Llama with untied head, output bias, MHA and llama3 rope scaling', async () => {
    const config = testConfig({
      family: 'llama',
      numHeads: 2,
      numKvHeads: 2,
      headDim: 16,
      tieWordEmbeddings: false,
      qkvBias: true,
      outputBias: true,
      ropeScaling: { type: 'llama3', factor: 8, lowFreqFactor: 1, highFreqFactor: 4, originalMaxPositions: 8 },
    });
    await expectMatchesReference(config, randomTokens(9, config.vocabSize, 5), [0, 3, 4, 9, 10, 11, 30, 31, 40]);
  });

  it('matches the reference with explicit positions and an arbitrary attention mask', async () => {
    const config = testConfig();
    const allowed = (q: number, k: number) =>
      k === q || (k < q && (q * 7 + k * 3) % 4 !== 0) || (k === q + 2 && q % 3 === 0);
    await expectMatchesReference(
      config,
      randomTokens(10, config.vocabSize, 9),
      [5, 6, 7, 2, 3, 4, 8, 9, 20, 21],
      allowed,
    );
  });

  it('a packed multi-segment row scores the same as separate rows', async () => {
    const config = testConfig();
    const model = LanguageModel.fromTensors(config, randomWeights(config, 3), new ByteTokenizer());
    try {
      const a = randomTokens(5, config.vocabSize, 11);
      const b = randomTokens(7, config.vocabSize, 12);
      const c = randomTokens(3, config.vocabSize, 13);
      const separate = await model.score([{ tokens: a }, { tokens: b }, { tokens: c }]);
      const packed = await model.score([
        {
          tokens: [...a, ...b, ...c],
          attention: packedAttention([...a.map(() => 0), ...b.map(() => 1), ...c.map(() => 2)]),
        },
      ]);
      const expected = [...separate.logprobs[0]!, ...separate.logprobs[1]!, ...separate.logprobs[2]!];
      expect(packed.logprobs[0]!.map((value) => value === null)).toEqual(expected.map((value) => value === null));
      packed.logprobs[0]!.forEach((value, t) => {
        if (value !== null) expect(Math.abs(value - (expected[t] as number))).toBeLessThan(1e-4);
      });
    } finally {
      model.dispose();
    }
  });

  it('ShadowPrompt: critic-prompt values and action logprobs equal separate forwards (ALGORITHMS.md §2)', async () => {
    const config = testConfig();
    const model = LanguageModel.fromTensors(config, randomWeights(config, 4), new ByteTokenizer());
    model.addValueHead(5);
    try {
      const state = randomTokens(6, config.vocabSize, 21);
      const critic = randomTokens(3, config.vocabSize, 22);
      const action = randomTokens(4, config.vocabSize, 23);
      // Packed: state, critic prompt, action. The critic prompt sees the state and itself; the action
      // never sees it, and its positions continue from the state as if the prompt were absent.
      const tokens = [...state, ...critic, ...action];
      const s = state.length;
      const c = critic.length;
      const isCritic = (i: number) => i >= s && i < s + c;
      const positions = [...state.map((_, i) => i), ...critic.map((_, i) => s + i), ...action.map((_, i) => s + i)];
      const predictFrom = tokens.map((_, t) => (t === 0 ? -1 : t === s + c ? s - 1 : t - 1));
      const packed = await model.score(
        [
          {
            tokens,
            positions,
            predictFrom,
            attention: attentionFromFunction((q, k) => k <= q && (!isCritic(k) || isCritic(q))),
          },
        ],
        { values: true },
      );
      const withCritic = await model.score([{ tokens: [...state, ...critic] }], { values: true });
      const withAction = await model.score([{ tokens: [...state, ...action] }]);
      expect(Math.abs(packed.values![0]![s + c - 1]! - withCritic.values![0]![s + c - 1]!)).toBeLessThan(1e-5);
      for (let i = 0; i < action.length; i++) {
        expect(Math.abs(packed.logprobs[0]![s + c + i]! - withAction.logprobs[0]![s + i]!)).toBeLessThan(1e-4);
      }
    } finally {
      model.dispose();
    }
  });

  it('score, which frees each layer as it ends, reads exactly the logprobs forward computes', async () => {
    const config = testConfig({ numLayers: 4, maxPositions: 256 });
    const model = LanguageModel.fromTensors(config, randomWeights(config, 3), new ByteTokenizer());
    try {
      const rows = [0, 1].map((seed) => ({ tokens: randomTokens(60 - 10 * seed, config.vocabSize, seed) }));
      const outputs = model.forward(rows);
      const viaForward = (await outputs.logprobs.array()) as number[][];
      tf.dispose(outputs as unknown as tf.TensorContainer);
      const { logprobs } = await model.score(rows);
      logprobs.forEach((row, b) => {
        expect(row).toHaveLength(rows[b]!.tokens.length);
        row.forEach((value, t) => (t === 0 ? expect(value).toBeNull() : expect(value).toBe(viaForward[b]![t])));
      });
    } finally {
      model.dispose();
    }
  });
});

describe('LanguageModel checks', () => {
  beforeAll(async () => {
    await useBackend('cpu');
  });

  it('refuses a tokenizer whose ids do not fit the vocabulary', () => {
    expect(() => LanguageModel.create(testConfig({ vocabSize: 200 }))).toThrow(TokenizerMismatchError);
    expect(() => LanguageModel.create(testConfig({ vocabSize: 200 }))).toThrow(/vocab_size" is 200/);
  });

  it('refuses a row longer than the context, naming the limit', async () => {
    const model = LanguageModel.create(testConfig({ maxPositions: 8 }));
    try {
      await expect(model.score([{ tokens: randomTokens(9, 256) }])).rejects.toThrow(ContextLengthError);
      await expect(model.score([{ tokens: randomTokens(9, 256) }])).rejects.toThrow(/max_position_embeddings = 8/);
    } finally {
      model.dispose();
    }
  });
});
