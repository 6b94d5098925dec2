/** A float tensor outside tfjs: HF layout (row-major, Linear weights as [out, in]). */
export interface NamedTensor {
  readonly shape: readonly number[];
  readonly data: Float32Array;
}

/** Tensors by their HF names (`model.layers.0.self_attn.q_proj.weight`), the interchange format of this package. */
export type NamedTensors = Map<string, NamedTensor>;

export function elementCount(shape: readonly number[]): number {
  return shape.reduce((product, size) => product * size, 1);
}
