import { defineOptions, type JSONSchemaType } from '@turngym/core';
import { X_AXES, type XAxis } from './metrics-file';

/** What `renderReport` draws. Type and schema side by side so they cannot drift. */
export interface ReportOptions {
  /** Run directories (holding run.json), or directories to search for them (a few levels deep). */
  runs: string[];
  /** The page's heading and <title>; default "TurnGym training report". */
  title?: string;
  /** The metrics to chart, in this order; default every metric some run logged (known names first). */
  metrics?: string[];
  /** The x axis of every curve; default `global_step`. */
  xAxis?: XAxis;
  /** Iterations per run the rollout viewer keeps, spread over those with rollouts (first and last included); 0: none. */
  rolloutIterations?: number;
  /** Prompt groups per iteration the rollout viewer keeps (groups 0 … n − 1). */
  rolloutGroups?: number;
}

export const DEFAULT_REPORT_TITLE = 'TurnGym training report';
export const DEFAULT_ROLLOUT_ITERATIONS = 8;
export const DEFAULT_ROLLOUT_GROUPS = 8;

export const reportOptionsSchema: JSONSchemaType<ReportOptions> = {
  type: 'object',
  additionalProperties: false,
  required: ['runs'],
  properties: {
    runs: { type: 'array', minItems: 1, items: { type: 'string', minLength: 1 } },
    title: { type: 'string', nullable: true },
    metrics: { type: 'array', nullable: true, minItems: 1, items: { type: 'string', minLength: 1 } },
    xAxis: { type: 'string', enum: [...X_AXES], nullable: true },
    rolloutIterations: { type: 'integer', minimum: 0, maximum: 1000, nullable: true },
    rolloutGroups: { type: 'integer', minimum: 1, maximum: 1000, nullable: true },
  },
};

export const validateReportOptions = defineOptions<ReportOptions>('report', reportOptionsSchema);
