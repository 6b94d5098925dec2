import type { SeededRng } from '@turngym/core';

export interface SamplingSettings {
  /** 0 = greedy. */
  readonly temperature: number;
  /** Nucleus sampling: keep the smallest set of tokens whose probability reaches topP. */
  readonly topP: number;
}

/** log Σ exp(logits): the normaliser of the model's own distribution. */
export function logSumExp(logits: ArrayLike<number>): number {
  let max = -Infinity;
  for (let i = 0; i < logits.length; i++) max = Math.max(max, logits[i] as number);
  let sum = 0;
  for (let i = 0; i < logits.length; i++) sum += Math.exp((logits[i] as number) - max);
  return max + Math.log(sum);
}

/**
 * Draws a token id from logits with temperature and top-p, using only `rng` (seeded: the same stream
 * draws the same tokens). Returns the token and its logprob under the model's own (temperature 1,
 * untruncated) distribution — the π_old a trainer compares against.
 */
export function sampleToken(
  logits: ArrayLike<number>,
  settings: SamplingSettings,
  rng: SeededRng,
): { token: number; logprob: number } {
  const V = logits.length;
  const normaliser = logSumExp(logits);
  let token = 0;
  if (settings.temperature <= 0) {
    for (let i = 1; i < V; i++) if ((logits[i] as number) > (logits[token] as number)) token = i;
  } else {
    let max = -Infinity;
    for (let i = 0; i < V; i++) max = Math.max(max, logits[i] as number);
    const weights = new Float64Array(V);
    let total = 0;
    for (let i = 0; i < V; i++) {
      weights[i] = Math.exp(((logits[i] as number) - max) / settings.temperature);
      total += weights[i] as number;
    }
    let candidates: number[] | null = null;
    if (settings.topP < 1) {
      const order = Array.from({ length: V }, (_, i) => i).sort(
        (a, b) => (weights[b] as number) - (weights[a] as number) || a - b,
      );
      candidates = [];
      let mass = 0;
      for (const index of order) {
        candidates.push(index);
        mass += (weights[index] as number) / total;
        if (mass >= settings.topP) break;
      }
      total = candidates.reduce((sum, index) => sum + (weights[index] as number), 0);
    }
    let threshold = rng.next() * total;
    const count = candidates ? candidates.length : V;
    token = candidates ? (candidates[count - 1] as number) : V - 1;
    for (let j = 0; j < count; j++) {
      const index = candidates ? (candidates[j] as number) : j;
      threshold -= weights[index] as number;
      if (threshold < 0) {
        token = index;
        break;
      }
    }
  }
  return { token, logprob: (logits[token] as number) - normaliser };
}
