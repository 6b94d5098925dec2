import { defineOptions, type JSONSchemaType } from '@turngym/core';

/** How rollouts are sampled and what they may spend. Every budget counts what was actually spent. */
export interface RolloutOptions {
  /** Most tokens one action may have (the end-of-turn token included). */
  maxActionTokens: number;
  /** Sampling temperature (1 = the policy itself, as on-policy training needs). */
  temperature: number;
  topP: number;
  /** Most generated tokens in one episode, counted along its whole path (a branch's shared prefix too). */
  maxRolloutTokens: number;
  /** Most tool calls (the env's `info.cost.toolCalls`) in one episode; omitted = no limit. */
  maxToolCalls?: number;
  /** Most tokens all rollouts of one prompt may generate together; omitted = no limit. */
  promptTokenBudget?: number;
  /** Observations longer than this many tokens are cut (with a note); omitted = kept whole. */
  maxObservationTokens?: number;
  /** Start with the env's `info.instructions` as the system message (a tiny model trained from scratch
   *  learns the format by SFT and may do without them, which keeps its contexts short). */
  instructions: boolean;
  /** Most rows in one batched generation call (`continuous`: in the batch at once). */
  maxBatch: number;
  /**
   * How rollouts share decoder passes. `turns`: each round samples the next action of every unfinished rollout
   * in one generation, so a turn lasts as long as its longest action. `continuous`: a rollout's next action joins
   * the running batch as soon as its env has answered (continuous batching), so the passes are about the
   * longest rollout's tokens rather than the sum of each turn's longest action — what a GPU's time is counted
   * in. Same seed, same rollouts, whenever the envs answer; chains are the `turns` schedule's to float rounding.
   * Tree rollouts number their nodes in the order turns end, so after round 0 a branch may start from another
   * node than under `turns`. One policy only: rollouts with roles run by turns.
   */
  schedule: 'turns' | 'continuous';
  /** The policy's LoRA adapter; omitted = the base model. */
  adapter?: string;
  /** Seeds the sampling: same seed, same env seeds, same policy → same rollouts. */
  seed: number;
}

export const rolloutOptionsSchema: JSONSchemaType<RolloutOptions> = {
  type: 'object',
  additionalProperties: false,
  required: [],
  properties: {
    maxActionTokens: { type: 'integer', minimum: 1, default: 64 },
    temperature: { type: 'number', minimum: 0, default: 1 },
    topP: { type: 'number', exclusiveMinimum: 0, maximum: 1, default: 1 },
    maxRolloutTokens: { type: 'integer', minimum: 1, default: 512 },
    maxToolCalls: { type: 'integer', minimum: 0, nullable: true },
    promptTokenBudget: { type: 'integer', minimum: 1, nullable: true },
    maxObservationTokens: { type: 'integer', minimum: 1, nullable: true },
    instructions: { type: 'boolean', default: true },
    maxBatch: { type: 'integer', minimum: 1, default: 64 },
    schedule: { type: 'string', enum: ['turns', 'continuous'], default: 'turns' },
    adapter: { type: 'string', nullable: true },
    seed: { type: 'integer', default: 0 },
  },
};

export const validateRolloutOptions = defineOptions<RolloutOptions>('rollouts', rolloutOptionsSchema);
