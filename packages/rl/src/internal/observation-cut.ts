import type { Tokenizer } from '@turngym/lm';

/**
 * Cuts an observation to `limit` tokens the way sampled rollouts do (rollout-engine.ts `cutObservation`):
 * the first `limit` tokens decoded, then ` …[cut]`. A duplicate of that private rule, kept here so expert
 * trajectories (SFT data) show the model exactly the text it will see in rollouts; if the engine exports
 * its rule, this file should go and both should call that one.
 */
export function cutObservationAsRollouts(tokenizer: Tokenizer, observation: string, limit: number | undefined): string {
  if (limit === undefined) return observation;
  const tokens = tokenizer.encode(observation);
  if (tokens.length <= limit) return observation;
  return `${tokenizer.decode(tokens.slice(0, limit))} …[cut]`;
}
