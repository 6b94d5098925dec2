import { SellerEnv, SellerExpert } from '@turngym/env-seller';
import { expertThroughput, type ExpertThroughput } from './expert-throughput';

/**
 * `turngym/seller-commander-v1` with simulated roles (executor templates, the buyer simulator, the
 * state-reading judge) and its scripted expert, in-process. Goal: ≥ 10k steps/s.
 */
export function sellerThroughput(options: { durationMs: number }): Promise<ExpertThroughput> {
  return expertThroughput(new SellerEnv(), new SellerExpert(), { durationMs: options.durationMs, warmupEpisodes: 300 });
}
