import type { ModelConfig } from '../model-config';

/** HF's rotary inverse frequencies (linear and llama3 scaling), in float64. */
export function ropeFrequencies(config: ModelConfig): Float64Array {
  const half = config.headDim / 2;
  const out = new Float64Array(half);
  const scaling = config.ropeScaling;
  for (let i = 0; i < half; i++) {
    let f = 1 / Math.pow(config.ropeTheta, (2 * i) / config.headDim);
    if (scaling?.type === 'linear') f /= scaling.factor;
    else if (scaling?.type === 'llama3') {
      const wavelength = (2 * Math.PI) / f;
      const low = scaling.originalMaxPositions / scaling.lowFreqFactor;
      const high = scaling.originalMaxPositions / scaling.highFreqFactor;
      if (wavelength > low) f /= scaling.factor;
      else if (wavelength >= high) {
        const smooth =
          (scaling.originalMaxPositions / wavelength - scaling.lowFreqFactor) /
          (scaling.highFreqFactor - scaling.lowFreqFactor);
        f = (1 - smooth) * (f / scaling.factor) + smooth * f;
      }
    }
    out[i] = f;
  }
  return out;
}

/**
 * cos and signed sin for each position, [count, headDim]: rotate_half(x)·sin is computed as
 * swap_halves(x)·[−sin, sin], which saves a negation per call.
 */
export function ropeTables(
  frequencies: Float64Array,
  positions: ArrayLike<number>,
): { cos: Float32Array; sin: Float32Array } {
  const half = frequencies.length;
  const headDim = half * 2;
  const cos = new Float32Array(positions.length * headDim);
  const sin = new Float32Array(positions.length * headDim);
  for (let n = 0; n < positions.length; n++) {
    const position = positions[n] as number;
    const base = n * headDim;
    for (let i = 0; i < half; i++) {
      const angle = position * (frequencies[i] as number);
      const c = Math.cos(angle);
      const s = Math.sin(angle);
      cos[base + i] = c;
      cos[base + half + i] = c;
      sin[base + i] = -s;
      sin[base + half + i] = s;
    }
  }
  return { cos, sin };
}
