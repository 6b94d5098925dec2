import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { InvalidOptionsError } from '@turngym/core';
import { backendInfo, useBackend } from './backend';
import { LanguageModel } from './language-model';
import { BackendUnavailableError } from './lm-errors';
import { testConfig } from './tiny-configs';
import { maxAbsDifference, randomTokens } from './__fixtures__/random-weights';
import { wasmTestsRun } from './__fixtures__/wasm-tests';

const describeWasm = wasmTestsRun() ? describe : describe.skip;

/** Numbers only, every tensor disposed: the wasm backend must hold nothing to change its thread count. */
async function products(): Promise<{ plain: Float32Array; transposed: Float32Array }> {
  const a = tf.randomUniform([192, 320], -1, 1, 'float32', 1);
  const b = tf.randomUniform([320, 256], -1, 1, 'float32', 2);
  const plain = tf.matMul(a, b);
  const transposed = tf.matMul(b, a, true, true); // the transposed path of every matmul gradient
  const result = { plain: (await plain.data()) as Float32Array, transposed: (await transposed.data()) as Float32Array };
  tf.dispose([a, b, plain, transposed]);
  return result;
}

/** Loss and every gradient of a seeded testConfig model on a 4×48 batch, as arrays. */
async function modelGradients(): Promise<Float32Array[]> {
  const model = LanguageModel.create(testConfig(), { seed: 3 });
  const rows = [0, 1, 2, 3].map((row) => ({ tokens: randomTokens(48, 256, 10 + row) }));
  const { value, grads } = tf.variableGrads(
    () => tf.neg(tf.mean(model.forward(rows).logprobs)) as tf.Scalar,
    model.trainableVariables({ base: true }),
  );
  const arrays = [(await value.data()) as Float32Array];
  for (const variable of model.trainableVariables({ base: true }))
    arrays.push((await grads[variable.name]!.data()) as Float32Array);
  tf.dispose([value, ...Object.values(grads)]);
  model.dispose();
  return arrays;
}

describeWasm('wasm threads', () => {
  afterAll(async () => {
    await useBackend('cpu');
    tf.removeBackend('wasm'); // ends this file's pthread workers now rather than when jest's worker exits
  });

  it('runs the threaded build with the thread count asked for; auto = the cores Node reports', async () => {
    expect(await useBackend('wasm', { threads: 2 })).toBe('wasm');
    expect(backendInfo()).toEqual({ name: 'wasm', threads: 2, simd: true });
    await useBackend('wasm', { threads: 'auto' });
    expect(backendInfo().threads).toBe(Math.min(availableParallelism(), 8));
    await useBackend('wasm', { threads: 1 });
    expect(backendInfo()).toEqual({ name: 'wasm', threads: 1, simd: true });
  });

  it('threaded matmuls and a model forward/backward equal the single-threaded results', async () => {
    await useBackend('wasm', { threads: 1 });
    const single = await products();
    const singleGradients = await modelGradients();
    await useBackend('wasm', { threads: 2 });
    expect(backendInfo().threads).toBe(2);
    const threaded = await products();
    const threadedGradients = await modelGradients();
    expect(maxAbsDifference(threaded.plain, single.plain)).toBeLessThanOrEqual(1e-5);
    expect(maxAbsDifference(threaded.transposed, single.transposed)).toBeLessThanOrEqual(1e-5);
    expect(threadedGradients.length).toBe(singleGradients.length);
    threadedGradients.forEach((gradient, i) => {
      expect(gradient.length).toBe(singleGradients[i]!.length);
      expect(maxAbsDifference(gradient, singleGradients[i]!)).toBeLessThanOrEqual(1e-6);
    });
  });

  it('keeps the running threads when none are asked for, and will not restart under live tensors', async () => {
    await useBackend('wasm', { threads: 2 });
    const held = tf.ones([3]);
    try {
      await useBackend('cpu');
      await useBackend('wasm');
      expect(backendInfo().threads).toBe(2);
      await expect(useBackend('wasm', { threads: 1 })).rejects.toThrow(BackendUnavailableError);
      await expect(useBackend('wasm', { threads: 1 })).rejects.toThrow(/holds 1 tensor/);
      expect(Array.from(await held.data())).toEqual([1, 1, 1]);
    } finally {
      held.dispose();
    }
  });

  it('falls back to one thread with a warning when the pthread workers cannot start', async () => {
    await useBackend('wasm', { threads: 1 });
    const emitWarning = jest.spyOn(process, 'emitWarning').mockImplementation(() => {});
    // tfjs hands each pthread worker its script as a Blob URL; one that resolves to nothing breaks them all.
    const createObjectURL = URL.createObjectURL;
    URL.createObjectURL = () => 'blob:nodedata:00000000-0000-0000-0000-000000000000';
    try {
      expect(await useBackend('wasm', { threads: 2 })).toBe('wasm');
    } finally {
      URL.createObjectURL = createObjectURL;
    }
    expect(backendInfo()).toEqual({ name: 'wasm', threads: 1, simd: true });
    expect(emitWarning).toHaveBeenCalledWith(
      expect.stringMatching(/^wasm threads failed to start \(.+\); running the wasm backend on one thread\.$/),
      {
        code: 'TURNGYM_WASM_THREADS',
      },
    );
    emitWarning.mockRestore();
    const product = tf.matMul(tf.ones([2, 3]), tf.ones([3, 2]));
    expect(Array.from(await product.data())).toEqual([3, 3, 3, 3]);
    tf.dispose(product);
  });

  it('rejects thread counts outside 1–8, naming the field', async () => {
    await expect(useBackend('wasm', { threads: 0 })).rejects.toThrow(InvalidOptionsError);
    await expect(useBackend('wasm', { threads: 9 })).rejects.toThrow(/threads/);
    await expect(useBackend('wasm', { threads: 'all' as 'auto' })).rejects.toThrow(/threads/);
  });

  it('a script that computes on threads (from TURNGYM_LM_THREADS) exits by itself', async () => {
    const root = resolve(__dirname, '../../..');
    // The sources, compiled on the fly with swc (as packages/server's thread fixture does).
    const script = `
      require('reflect-metadata');
      const fs = require('node:fs');
      const Module = require('node:module');
      const { transformSync } = require('@swc/core');
      const resolveFilename = Module._resolveFilename;
      Module._resolveFilename = function (request, ...rest) {
        const match = /^@turngym\\/([a-z-]+)$/.exec(request);
        return match ? ${JSON.stringify(join(root, 'packages'))} + '/' + match[1] + '/src/index.ts' : resolveFilename.call(this, request, ...rest);
      };
      require.extensions['.ts'] = (module, filename) => {
        const options = { filename, jsc: {
          parser: { syntax: 'typescript', decorators: true },
          transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
          target: 'es2022',
        }, module: { type: 'commonjs' } };
        module._compile(transformSync(fs.readFileSync(filename, 'utf8'), options).code, filename);
      };
      const { useBackend, backendInfo } = require(${JSON.stringify(join(__dirname, 'backend.ts'))});
      const tf = require('@tensorflow/tfjs');
      useBackend('wasm').then(async () => {
        const a = tf.randomUniform([256, 256]);
        await tf.matMul(a, a).data();
        console.log(JSON.stringify(backendInfo()));
      });
    `;
    const child = spawn(process.execPath, ['-e', script], {
      cwd: root,
      env: { ...process.env, TURNGYM_LM_THREADS: '2' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    // Not a speed limit: a script that does not exit within a minute is hanging on its workers.
    const hang = setTimeout(() => child.kill('SIGKILL'), 60_000);
    const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
      child.on('exit', (code, signal) => done({ code, signal })),
    );
    clearTimeout(hang);
    expect({ ...exit, stderr }).toEqual({ code: 0, signal: null, stderr: '' });
    expect(JSON.parse(stdout)).toEqual({ name: 'wasm', threads: 2, simd: true });
  }, 90_000);
});
