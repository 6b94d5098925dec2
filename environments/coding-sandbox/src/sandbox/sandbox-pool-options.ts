import { defineOptions, type JSONSchemaType } from '@turngym/core';

/** Options of a `SandboxPool`. */
export interface SandboxPoolOptions {
  /** Worker processes (each runs one evaluation at a time). Default: min(2, available cores). */
  workers?: number;
  /** Extra time the host waits past an evaluation's own limits before it kills the worker (ms). Default 3000. */
  graceMs?: number;
  /** A worker whose resident memory grows past this is replaced after its current request (MB). Default 400. */
  recycleRssMb?: number;
  /** A worker is replaced after this many evaluations, so nothing accumulates in it. Default 20000. */
  maxEvaluationsPerWorker?: number;
}

/**
 * Validated (ajv), because every one of them bounds something: `workers: NaN` (a `Number(process.env.X)` left unset)
 * passed `Math.max(1, NaN)` and started one worker process per queued evaluation, without a bound, and `graceMs: NaN`
 * made the watchdog kill every worker at once, so `1` was answered "time limit exceeded".
 */
export const sandboxPoolOptionsSchema: JSONSchemaType<SandboxPoolOptions> = {
  type: 'object',
  additionalProperties: false,
  required: [],
  properties: {
    workers: { type: 'integer', minimum: 1, maximum: 64, nullable: true },
    graceMs: { type: 'integer', minimum: 0, maximum: 600000, nullable: true },
    recycleRssMb: { type: 'number', minimum: 64, maximum: 1048576, nullable: true },
    maxEvaluationsPerWorker: { type: 'integer', minimum: 1, nullable: true },
  },
};

export const validateSandboxPoolOptions = defineOptions<SandboxPoolOptions>('sandbox pool', sandboxPoolOptionsSchema);
