import { Registry } from '@turngym/core';
import { FixedRewardDemoEnv } from '@turngym/env-seller';

export const DEMO_ID = 'turngym/fixed-reward-demo-v1';
// The reference's demo env: 4 actions with fixed rewards; 3 steps, so the best return is 3 × 0.9.
export const REWARDS = [0.2, 0.9, 0.5, 0.1];
export const HORIZON = 3;

/** A registry holding only the demo env, under DEMO_ID. */
export function demoRegistry(): Registry {
  const registry = new Registry();
  registry.register({ id: DEMO_ID, entryPoint: () => new FixedRewardDemoEnv(REWARDS, HORIZON) });
  return registry;
}
