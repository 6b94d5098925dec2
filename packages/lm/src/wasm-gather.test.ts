import * as tf from '@tensorflow/tfjs';
import { useBackend } from './backend';
import { generate } from './generation';
import { LanguageModel } from './language-model';
import { testConfig } from './tiny-configs';
import { wasmTestsRun } from './__fixtures__/wasm-tests';

const describeWasm = wasmTestsRun() ? describe : describe.skip;

/** The gathers generation and the embedding lookup make, as numbers (int32 ids, float or int values). */
async function gathers(): Promise<number[][]> {
  const values = Float32Array.from({ length: 2 * 3 * 5 * 4 }, (_, i) => Math.sin(i * 0.7) * 10);
  const x = tf.tensor4d(values, [2, 3, 5, 4]);
  const flat = tf.reshape(x, [-1, 4]);
  const results = [
    // extractRow: runs of consecutive slots, a repeat, a jump back.
    tf.gather(flat, tf.tensor1d([1, 2, 3, 7, 7, 0, 29, 28], 'int32'), 0),
    // selectRows: whole batch entries, reordered and repeated.
    tf.gather(x, tf.tensor1d([1, 0, 1], 'int32'), 0),
    // Inner axes, slices shorter than a copy call repays.
    tf.gather(x, tf.tensor1d([4, 0, 1, 2], 'int32'), 2),
    tf.gather(x, tf.tensor1d([3, 3, 0], 'int32'), 3),
    tf.gather(tf.tensor2d([5, 6, 7, 8, 9, 10], [3, 2], 'int32'), tf.tensor1d([2, 0], 'int32'), 0),
    tf.gather(flat, tf.tensor2d([0, 5, 6, 1], [2, 2], 'int32'), 0),
    tf.gather(flat, tf.tensor1d([], 'int32'), 0),
  ];
  const out = await Promise.all(results.map(async (tensor) => Array.from(await tensor.data())));
  tf.dispose([x, flat, ...results]);
  return out;
}

describeWasm('wasm GatherV2 (straight copies out of the heap)', () => {
  afterAll(() => useBackend('cpu'));

  it('gives the same values as the cpu backend on every axis, ids in any order', async () => {
    await useBackend('cpu');
    const cpu = await gathers();
    await useBackend('wasm');
    expect(await gathers()).toEqual(cpu);
  });

  it('refuses an id out of range with the message tfjs gives', async () => {
    await useBackend('wasm');
    const x = tf.tensor2d([1, 2, 3, 4], [2, 2]);
    const ids = tf.tensor1d([0, 2], 'int32');
    expect(() => tf.gather(x, ids, 0)).toThrow('GatherV2: the index value 2 is not in [0, 1]');
    tf.dispose([x, ids]);
  });

  it('generation that keeps its caches samples the same tokens and continues from them alike', async () => {
    await useBackend('wasm');
    const model = LanguageModel.create(testConfig({ maxPositions: 128 }), { seed: 4 });
    // Rows of different lengths and budgets: rows finish at different steps (finished rows are dropped with a
    // gather) and each row's cache is taken out of the padded batch with a gather.
    const prompts = [3, 17, 9, 30].map((length, row) => Array.from({ length }, (_, i) => 1 + ((i * 13 + row) % 200)));
    const options = { temperature: 1, topP: 1, seed: 7, stopTokenIds: [] };
    const first = generate(
      model,
      prompts.map((tokens, row) => ({ tokens, maxTokens: 2 + 3 * row })),
      { ...options, maxTokens: 12, keepCache: true },
    );
    const next = generate(
      model,
      first.map((generation) => ({ cache: generation.cache!, tokens: [...generation.cache!.tokens, 5, 6] })),
      { ...options, maxTokens: 6, keepCache: false },
    );
    // The same continuation run whole, without caches.
    const whole = generate(
      model,
      first.map((generation) => ({ tokens: [...generation.cache!.tokens, 5, 6] })),
      { ...options, maxTokens: 6, keepCache: false },
    );
    expect(first.map((generation) => generation.tokens.length)).toEqual([2, 5, 8, 11]);
    expect(next.map((generation) => generation.tokens)).toEqual(whole.map((generation) => generation.tokens));
    for (const generation of first) generation.cache!.dispose();
    model.dispose();
  });
});
