import * as tf from '@tensorflow/tfjs';
import { SeededRng } from '@turngym/core';
import { useBackend } from './backend';
import { STACK_CACHES } from './internal/wasm-stack-caches';
import { wasmTestsRun } from './__fixtures__/wasm-tests';

const describeWasm = wasmTestsRun() ? describe : describe.skip;

describeWasm('wasm stacking of per-row caches into a left-padded batch', () => {
  beforeAll(() => useBackend('wasm'));
  afterAll(() => useBackend('cpu'));

  it('gives the zero-padded concatenation tfjs ops give: ragged rows, a row without a cache, the longest row', () => {
    const [heads, headDim] = [2, 4];
    const lengths = [3, 0, 7, 1, 7];
    const rng = new SeededRng(3);
    const rows = lengths.map((length) =>
      length > 0
        ? tf.tensor4d(
            Float32Array.from({ length: heads * length * headDim }, () => rng.normal()),
            [1, heads, length, headDim],
          )
        : null,
    );
    const stacked = tf
      .engine()
      .runKernel(
        STACK_CACHES,
        Object.fromEntries(rows.filter((row) => row !== null).map((row, index) => [`row${index}`, row!])),
        { lengths, numKvHeads: heads, headDim } as unknown as tf.NamedAttrMap,
      ) as tf.Tensor4D;
    const reference = tf.concat(
      rows.map((row, index) => {
        const padding = tf.zeros([1, heads, 7 - lengths[index]!, headDim]);
        return row ? tf.concat([padding, row], 2) : padding;
      }),
      0,
    );
    expect(stacked.shape).toEqual([5, heads, 7, headDim]);
    expect(Array.from(stacked.dataSync())).toEqual(Array.from(reference.dataSync()));
    tf.dispose([stacked, reference, ...rows.filter((row) => row !== null)]);
  });

  it('copies only the first `length` slots of a longer row (a KvCache.prefixOf view)', () => {
    const [heads, headDim] = [2, 4];
    const lengths = [3, 5, 2];
    const slots = [6, 5, 9];
    const rng = new SeededRng(4);
    const rows = slots.map((S) =>
      tf.tensor4d(
        Float32Array.from({ length: heads * S * headDim }, () => rng.normal()),
        [1, heads, S, headDim],
      ),
    );
    const stacked = tf
      .engine()
      .runKernel(STACK_CACHES, Object.fromEntries(rows.map((row, index) => [`row${index}`, row])), {
        lengths,
        numKvHeads: heads,
        headDim,
      } as unknown as tf.NamedAttrMap) as tf.Tensor4D;
    const reference = tf.concat(
      rows.map((row, index) =>
        tf.concat(
          [tf.zeros([1, heads, 5 - lengths[index]!, headDim]), tf.slice(row, 0, [1, heads, lengths[index]!, headDim])],
          2,
        ),
      ),
      0,
    );
    expect(stacked.shape).toEqual([3, heads, 5, headDim]);
    expect(Array.from(stacked.dataSync())).toEqual(Array.from(reference.dataSync()));
    tf.dispose([stacked, reference, ...rows]);
  });
});
