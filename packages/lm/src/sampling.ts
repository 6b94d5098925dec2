import type { SeededRng } from '@turngym/core';

export interface SamplingSettings {
  /** 0 = greedy. */
  readonly temperature: number;
  /** Nucleus sampling: keep the smallest set of tokens whose probability reaches topP. */
  readonly topP: number;
  /** vLLM's `top_k`: draw from the k likeliest tokens only. 0, null or absent: every token. */
  readonly topK?: number | null;
  /**
   * vLLM's `min_p`: drop the tokens whose probability (after temperature) is below minP times the likeliest one's.
   * 0, null or absent: none dropped.
   */
  readonly minP?: number | null;
  /**
   * vLLM's `repetition_penalty` (CTRL's): every token already in the prompt or the completion has its logit divided
   * by it when positive, multiplied by it when negative, before temperature; it changes greedy picks too. Above 1
   * discourages repeats, below 1 encourages them. 1, null or absent: off.
   */
  readonly repetitionPenalty?: number | null;
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
 * The logits the draw is made from: `logits` itself without a repetition penalty (no copy, so generation without
 * one is what it always was), else a copy with every id in `seen` penalised once, however often it occurs.
 */
function penalised(
  logits: ArrayLike<number>,
  penalty: number | null | undefined,
  seen: Iterable<number> | undefined,
): ArrayLike<number> {
  if (penalty === undefined || penalty === null || penalty === 1 || seen === undefined) return logits;
  const scores = Float64Array.from(logits as ArrayLike<number>);
  const done = new Set<number>();
  for (const id of seen) {
    if (done.has(id) || id < 0 || id >= scores.length) continue;
    done.add(id);
    const score = scores[id] as number;
    scores[id] = score > 0 ? score / penalty : score * penalty;
  }
  return scores;
}

/**
 * The ids a draw may pick, likeliest first, after vLLM's filters in vLLM's order: min-p (relative to the likeliest
 * weight), then top-k, then top-p over what is left (its mass renormalised). Null when no filter is on: every id,
 * with no sort. Top-p alone keeps the order and sums it has always had, so its draws are unchanged.
 */
function candidateIds(weights: Float64Array, total: number, settings: SamplingSettings): number[] | null {
  const V = weights.length;
  const minP = settings.minP ?? 0;
  const topK = settings.topK ?? 0;
  const filtersBefore = minP > 0 || (topK > 0 && topK < V);
  if (!filtersBefore && settings.topP >= 1) return null;
  let order = Array.from({ length: V }, (_, i) => i).sort(
    (a, b) => (weights[b] as number) - (weights[a] as number) || a - b,
  );
  if (minP > 0) {
    const floor = minP * (weights[order[0]!] as number);
    order = order.filter((index) => (weights[index] as number) >= floor);
  }
  if (topK > 0 && topK < order.length) order = order.slice(0, topK);
  if (settings.topP >= 1) return order;
  const mass = filtersBefore ? order.reduce((sum, index) => sum + (weights[index] as number), 0) : total;
  const candidates: number[] = [];
  let cumulative = 0;
  for (const index of order) {
    candidates.push(index);
    cumulative += (weights[index] as number) / mass;
    if (cumulative >= settings.topP) break;
  }
  return candidates;
}

/**
 * Draws a token id from logits with temperature, top-p and vLLM's top-k, min-p and repetition penalty (the ids of
 * `seen`, the prompt's and the completion's so far), using only `rng` (seeded: the same stream draws the same
 * tokens). Returns the token and its logprob under the model's own (temperature 1, unpenalised, untruncated)
 * distribution — the π_old a trainer compares against, and what vLLM reports by default.
 */
export function sampleToken(
  logits: ArrayLike<number>,
  settings: SamplingSettings,
  rng: SeededRng,
  seen?: Iterable<number>,
): { token: number; logprob: number } {
  const V = logits.length;
  const normaliser = logSumExp(logits);
  const scores = penalised(logits, settings.repetitionPenalty, seen);
  let token = 0;
  if (settings.temperature <= 0) {
    for (let i = 1; i < V; i++) if ((scores[i] as number) > (scores[token] as number)) token = i;
  } else {
    let max = -Infinity;
    for (let i = 0; i < V; i++) max = Math.max(max, scores[i] as number);
    const weights = new Float64Array(V);
    let total = 0;
    for (let i = 0; i < V; i++) {
      weights[i] = Math.exp(((scores[i] as number) - max) / settings.temperature);
      total += weights[i] as number;
    }
    const candidates = candidateIds(weights, total, settings);
    if (candidates) total = candidates.reduce((sum, index) => sum + (weights[index] as number), 0);
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
