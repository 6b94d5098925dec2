import * as tf from '@tensorflow/tfjs';
import { useBackend } from './backend';
import { ByteTokenizer } from './byte-tokenizer';
import { limitTensorBytesForTests } from './internal/webgpu-device-errors';
import { LanguageModel } from './language-model';
import { testConfig } from './tiny-configs';
import { tokenCrossEntropyLoss } from './trainer';
import type { TokenRow } from './token-batch';
import { maxAbsDifference, randomTokens, randomWeights } from './__fixtures__/random-weights';

/**
 * A GPU rejects a tensor past its storage-binding limit, so attention whose scores (B·heads·T·S floats) would
 * not fit runs a block of rows at a time (decoder.ts). Here the limit is imposed on cpu: the blocked forward,
 * its gradients and cached generation must be the unblocked ones.
 */
describe('attention in blocks of rows', () => {
  const config = testConfig();
  const rows: TokenRow[] = [9, 6, 8, 3, 7].map((length, i) => ({ tokens: randomTokens(length, 256, 30 + i) }));
  /** Bytes of one row's scores at the longest row: a limit of k times this makes blocks of k rows. */
  const rowBytes = config.numHeads * 9 * 9 * 4;
  let model: LanguageModel;

  beforeAll(async () => {
    await useBackend('cpu');
    model = LanguageModel.fromTensors(config, randomWeights(config, 3), new ByteTokenizer());
    model.addAdapter('actor', { rank: 2, alpha: 4, targetModules: ['q_proj', 'v_proj'], seed: 4 });
    model.addValueHead(5);
  });
  afterEach(() => limitTensorBytesForTests(null));
  afterAll(() => model.dispose());

  function lossAndGradients(): { loss: number; grads: Map<string, Float32Array> } {
    const variables = model.trainableVariables({ adapter: 'actor', valueHead: true, base: true });
    const { value, grads } = tf.variableGrads(
      () => tokenCrossEntropyLoss(model.forward(rows, { adapter: 'actor', values: true }), rows),
      variables,
    );
    const result = {
      loss: value.dataSync()[0] as number,
      grads: new Map(Object.entries(grads).map(([name, grad]) => [name, grad.dataSync() as Float32Array])),
    };
    tf.dispose([value, ...Object.values(grads)]);
    return result;
  }

  it.each([1, 2, 3])('gives the logprobs and values of one pass in blocks of %i rows', async (blockRows) => {
    const whole = await model.score(rows, { adapter: 'actor', values: true });
    limitTensorBytesForTests(blockRows * rowBytes);
    const blocked = await model.score(rows, { adapter: 'actor', values: true });
    whole.logprobs.forEach((row, b) =>
      expect(maxAbsDifference(row.slice(1) as number[], blocked.logprobs[b]!.slice(1) as number[])).toBeLessThan(1e-5),
    );
    whole.values!.forEach((row, b) => expect(maxAbsDifference(row, blocked.values![b]!)).toBeLessThan(1e-5));
  });

  it('gives the gradients of one pass (base, adapter, value head)', () => {
    const whole = lossAndGradients();
    limitTensorBytesForTests(2 * rowBytes);
    const blocked = lossAndGradients();
    expect(blocked.loss).toBeCloseTo(whole.loss, 5);
    expect([...blocked.grads.keys()]).toEqual([...whole.grads.keys()]);
    const errors = [...whole.grads].map(([name, grad]) => ({
      name,
      error: maxAbsDifference(grad, blocked.grads.get(name)!) / Math.max(1, ...Array.from(grad, Math.abs)),
    }));
    expect(errors.filter(({ error }) => !(error < 1e-5))).toEqual([]);
  });

  it('generates the same tokens with the KV cache', () => {
    const requests = rows.slice(0, 4).map((row) => ({ tokens: row.tokens }));
    const run = () =>
      model
        .generate(requests, { maxTokens: 5, temperature: 1, seed: 2, stopTokenIds: [], adapter: 'actor' })
        .map((result) => result.tokens);
    const whole = run();
    limitTensorBytesForTests(rowBytes);
    expect(run()).toEqual(whole);
  });
});
