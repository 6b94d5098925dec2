import * as tf from '@tensorflow/tfjs';
import { InvalidOptionsError } from '@turngym/core';
import { isBackendAvailable, useBackend } from './backend';
import { BackendUnavailableError } from './lm-errors';
import { wasmTestPlan, wasmTestsRun } from './__fixtures__/wasm-tests';

const itOnWasm = wasmTestsRun() ? it : it.skip;

/** The embedding gradient (gather → UnsortedSegmentSum) and a transposed matmul gradient, as numbers. */
async function gradients(): Promise<{ embed: number[]; a: number[]; b: number[] }> {
  const embed = tf.variable(tf.tensor2d([1, 2, 3, 4, 5, 6, 7, 8], [4, 2]));
  const a = tf.variable(tf.tensor2d([0.5, -1, 2, 0.25, 1.5, -0.5], [2, 3]));
  const b = tf.variable(tf.tensor2d([1, 2, -1, 0.5, 3, -2], [2, 3]));
  const ids = tf.tensor1d([2, 0, 2, 3, 2], 'int32');
  const { grads, value } = tf.variableGrads(() => {
    const rows = tf.gather(embed, ids);
    const product = tf.matMul(a, b, false, true); // [2, 2]; its gradient uses transposed matmuls
    return tf.add(
      tf.sum(
        tf.mul(
          rows,
          tf.tensor2d([
            [1, 2],
            [3, 4],
            [5, 6],
            [7, 8],
            [9, 10],
          ]),
        ),
      ),
      tf.sum(tf.square(product)),
    ) as tf.Scalar;
  }, [embed, a, b]);
  const result = {
    embed: Array.from(await grads[embed.name]!.data()),
    a: Array.from(await grads[a.name]!.data()),
    b: Array.from(await grads[b.name]!.data()),
  };
  tf.dispose([embed, a, b, ids, value, ...Object.values(grads)]);
  return result;
}

describe('backends', () => {
  itOnWasm('the scatter-add and transposed-matmul kernels give the same gradients on cpu and wasm', async () => {
    await useBackend('cpu');
    const cpu = await gradients();
    // Rows 0, 2 (three times), 3 are looked up; row 1 gets nothing.
    expect(cpu.embed).toEqual([3, 4, 0, 0, 15, 18, 7, 8]);
    await useBackend('wasm');
    const wasm = await gradients();
    expect(wasm.embed).toEqual(cpu.embed);
    wasm.a.forEach((value, i) => expect(value).toBeCloseTo(cpu.a[i]!, 5));
    wasm.b.forEach((value, i) => expect(value).toBeCloseTo(cpu.b[i]!, 5));
  });

  itOnWasm('batched matmuls (split into batch-1 products on wasm) equal cpu, transposed or not', async () => {
    // [6, 32, 48] × [6, 48, 24]: big enough (M·K·N ≥ 32768) for wasm's batch-1 split, with a leading batch of 2 × 3.
    const values = (n: number, seed: number): Float32Array =>
      Float32Array.from({ length: n }, (_, i) => Math.sin(i * 0.37 + seed) * 0.5);
    const products = async (): Promise<number[][]> => {
      const a = tf.tensor4d(values(6 * 32 * 48, 1), [2, 3, 32, 48]);
      const b = tf.tensor4d(values(6 * 48 * 24, 2), [2, 3, 48, 24]);
      const at = tf.transpose(a, [0, 1, 3, 2]);
      const bt = tf.transpose(b, [0, 1, 3, 2]);
      const results = [tf.matMul(a, b), tf.matMul(at, b, true, false), tf.matMul(a, bt, false, true)];
      const out = await Promise.all(results.map(async (tensor) => Array.from(await tensor.data())));
      tf.dispose([a, b, at, bt, ...results]);
      return out;
    };
    await useBackend('cpu');
    const cpu = await products();
    await useBackend('wasm');
    const wasm = await products();
    for (const [k, product] of wasm.entries()) {
      expect(product).toHaveLength(6 * 32 * 24);
      product.forEach((value, i) => expect(value).toBeCloseTo(cpu[k]![i]!, 4));
    }
  });

  // The tensorflow binding is an optional peer (CI does not install it): one of these two runs on any machine.
  if (isBackendAvailable('tensorflow')) {
    it('uses the tensorflow binding where one is installed', async () => {
      expect(await useBackend('tensorflow')).toBe('tensorflow');
    });
  } else {
    it('refuses the tensorflow backend when no binding is installed, naming the packages', async () => {
      await expect(useBackend('tensorflow')).rejects.toThrow(BackendUnavailableError);
      await expect(useBackend('tensorflow')).rejects.toThrow(/@tensorflow\/tfjs-node-gpu or @tensorflow\/tfjs-node/);
    });
  }

  it('auto picks wasm here (no tensorflow binding) and honours TURNGYM_LM_BACKEND', async () => {
    const saved = process.env.TURNGYM_LM_BACKEND;
    try {
      delete process.env.TURNGYM_LM_BACKEND;
      const expected = isBackendAvailable('tensorflow') ? 'tensorflow' : 'wasm';
      expect(await useBackend('auto')).toBe(expected);
      process.env.TURNGYM_LM_BACKEND = 'cpu';
      expect(await useBackend()).toBe('cpu');
      expect(tf.getBackend()).toBe('cpu');
      process.env.TURNGYM_LM_BACKEND = ' cpu ';
      expect(await useBackend()).toBe('cpu');
    } finally {
      if (saved === undefined) delete process.env.TURNGYM_LM_BACKEND;
      else process.env.TURNGYM_LM_BACKEND = saved;
    }
  });

  it('refuses a TURNGYM_LM_BACKEND it does not know, naming the variable and the backends, instead of picking one', async () => {
    const saved = process.env.TURNGYM_LM_BACKEND;
    try {
      await useBackend('cpu');
      process.env.TURNGYM_LM_BACKEND = 'wsam';
      await expect(useBackend()).rejects.toThrow(InvalidOptionsError);
      await expect(useBackend()).rejects.toThrow(
        /TURNGYM_LM_BACKEND.*one of auto, tensorflow, webgpu, wasm, cpu \(got "wsam"\)/,
      );
      expect(tf.getBackend()).toBe('cpu');
      // An explicit name does not read the variable.
      expect(await useBackend('cpu')).toBe('cpu');
    } finally {
      if (saved === undefined) delete process.env.TURNGYM_LM_BACKEND;
      else process.env.TURNGYM_LM_BACKEND = saved;
    }
  });
});

describe('the wasm tests where the wasm backend does not load', () => {
  it('run where it loads, skip on a developer machine, and fail under TURNGYM_REQUIRE_WASM=1 (CI)', () => {
    expect(wasmTestPlan(true, { TURNGYM_REQUIRE_WASM: '1' })).toBe('run');
    expect(wasmTestPlan(true, {})).toBe('run');
    expect(wasmTestPlan(false, {})).toBe('skip');
    expect(wasmTestPlan(false, { TURNGYM_REQUIRE_WASM: '0' })).toBe('skip');
    expect(wasmTestPlan(false, { TURNGYM_REQUIRE_WASM: '1' })).toBe('fail');
  });
});
