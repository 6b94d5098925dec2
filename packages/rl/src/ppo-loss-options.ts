import { defineOptions, type JSONSchemaType } from '@turngym/core';

/** Options of the PPO-clip and GSPO losses. Type and schema side by side so they cannot drift. */
export interface PpoLossOptions {
  /** ε: the ratio is clipped to [1 − ε, 1 + ε] (ALGORITHMS.md §0: 0.2). */
  clipEpsilon: number;
  /**
   * c of dual-clip PPO: for a negative advantage the per-token loss is capped at −c·A, so a huge ratio on
   * a bad action cannot blow the update up (Ye et al. 2020, "Mastering Complex Control in MOBA Games with
   * Deep RL", eq. 5: for A < 0, max(min(ρ·A, clip(ρ)·A), c·A), c > 1). Tree-GRPO uses c = 3
   * (ALGORITHMS.md §1); unset = plain PPO.
   */
  dualClip?: number;
  /**
   * The log-ratio is clamped to ±this before exp, so a stale token cannot overflow float32 (exp(89) does);
   * the same guard as verl's and ALGORITHMS.md §2's [choice]. Past it the gradient is 0.
   */
  logRatioClamp: number;
}

/** The dual-clip constant Tree-GRPO's reference trainer uses (ALGORITHMS.md §1). */
export const TREE_GRPO_DUAL_CLIP = 3;

export const ppoLossOptionsSchema: JSONSchemaType<PpoLossOptions> = {
  type: 'object',
  additionalProperties: false,
  required: [],
  properties: {
    clipEpsilon: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1, default: 0.2 },
    dualClip: { type: 'number', exclusiveMinimum: 1, nullable: true },
    logRatioClamp: { type: 'number', exclusiveMinimum: 0, default: 20 },
  },
};

export const validatePpoLossOptions = defineOptions<PpoLossOptions>('PPO loss', ppoLossOptionsSchema);
