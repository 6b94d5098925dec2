import type { Tokenizer } from '@turngym/lm';

/**
 * Cuts an observation to `limit` tokens: the first `limit` tokens decoded, then ` …[cut]`. The one rule for
 * sampled rollouts and expert trajectories alike, so SFT data shows the model exactly the text rollouts will.
 */
export function cutObservation(tokenizer: Tokenizer, observation: string, limit: number | undefined): string {
  if (limit === undefined) return observation;
  const tokens = tokenizer.encode(observation);
  if (tokens.length <= limit) return observation;
  return `${tokenizer.decode(tokens.slice(0, limit))} …[cut]`;
}
