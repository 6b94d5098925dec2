import { LanguageModel, tf, type NamedTensors, type ProjectionName } from '@turngym/lm';

/**
 * The model after training, with what Self-AC added folded away (ALGORITHMS.md §2: "both can be thrown away
 * after training; inference cost unchanged"): a new model whose base weights are W + (alpha/rank)·(A·B)ᵀ for
 * each projection the adapter targets, with no adapter and no value head — the same shapes, so the same
 * cost per token as the base, and the same outputs as the base with the adapter on.
 */
export async function mergeAdapter(model: LanguageModel, adapterName: string): Promise<LanguageModel> {
  const adapter = model.adapter(adapterName);
  const tensors: NamedTensors = await model.toTensors();
  for (const [key, pair] of adapter.pairs) {
    const [layer, projection] = key.split('.') as [string, ProjectionName];
    const block = ['gate_proj', 'up_proj', 'down_proj'].includes(projection) ? 'mlp' : 'self_attn';
    const name = `model.layers.${layer}.${block}.${projection}.weight`;
    const weight = tensors.get(name)!;
    // HF stores W as [out, in]; the adapter's A is [in, rank], B [rank, out].
    const delta = tf.tidy(() => tf.transpose(tf.mul(tf.matMul(pair.a, pair.b), adapter.scale)));
    const data = Float32Array.from((await delta.data()) as Float32Array);
    delta.dispose();
    tensors.set(name, { shape: weight.shape, data: weight.data.map((value, index) => value + data[index]!) });
  }
  return LanguageModel.fromTensors(model.config, tensors, model.tokenizer);
}
