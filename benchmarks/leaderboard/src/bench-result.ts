import { compileValidator } from '@turngym/core';
import type { MetricSummary } from './bootstrap';
import { lazy } from './internal/lazy';
import { InvalidResultError } from './leaderboard-errors';

export const BENCH_RESULT_SCHEMA_ID = 'turngym.bench-result/v1';

/** Per-episode metrics of one env, each over its scored (not errored) episodes. */
export interface EpisodeMetrics {
  /** 1 when `info.success` was set on the last step, else 0: the mean is the success rate. */
  success: MetricSummary;
  /** Total reward of the episode. */
  reward: MetricSummary;
  turns: MetricSummary;
  /** Tool calls the agent made (`info.cost.toolCalls`). */
  toolCalls: MetricSummary;
  /** Tokens: the agent's own (prompt + completion) plus env-side LLM roles'. */
  tokens: MetricSummary;
  /** Wall-clock ms of the episode (env and agent). */
  wallMs: MetricSummary;
}

export interface EpisodeError {
  seed: number;
  /** The error's code: `LLM_CALL`, `ENV_FAULT`, `ROLE_UNUSABLE`. */
  code: string;
  message: string;
  /** Whether the same episode may succeed if run again (a timeout, a 5xx): a resume runs it again. */
  retryable: boolean;
}

export interface EnvResult {
  envId: string;
  packageName: string | null;
  packageVersion: string | null;
  /** The options the env was built with, its defaults filled in. */
  options: Record<string, unknown>;
  maxTurns: number | null;
  /** Episode i played seed i. */
  seeds: number[];
  /** Per-episode reset options, when the suite gives them. */
  resetOptions: Record<string, unknown>[] | null;
  /** Planned episodes = scored + errored. */
  episodes: number;
  scored: number;
  /** Episodes that failed (an LLM call, an env fault): counted here, excluded from every metric. */
  errored: number;
  errors: EpisodeError[];
  /**
   * Scored episodes the agent ended because it could not go on (its model's context was full): each is a failure in
   * every metric, listed here so a short-context model's lost episodes are seen. Absent in results written before it.
   */
  agentStops?: AgentStopEntry[];
  /** Null when no episode was scored. */
  metrics: EpisodeMetrics | null;
}

export interface AgentStopEntry {
  seed: number;
  /** The agent's reason: `context-length`. */
  reason: string;
  message: string;
}

export interface MeanInterval {
  mean: number;
  low: number;
  high: number;
}

/** One run of one agent on one suite: the file the leaderboard reads. */
export interface BenchResult {
  schema: typeof BENCH_RESULT_SCHEMA_ID;
  runId: string;
  /** What the leaderboard shows (default: the agent spec). */
  label: string;
  agent: {
    spec: string;
    /** The name in the episode records. */
    name: string;
    kind: 'baseline' | 'chat-model';
    baseURL: string | null;
  };
  suite: { id: string; name: string; version: number; sha256: string };
  startedAt: string;
  finishedAt: string;
  software: { leaderboard: string; node: string; platform: string };
  /** The episode records (JSONL): a path relative to this file, or a URL; null when not shared. */
  records: string | null;
  envs: EnvResult[];
  /** Envs of the suite that did not run (not installed, not selected). */
  skipped: { envId: string; reason: string }[];
  overall: {
    envs: number;
    episodes: number;
    scored: number;
    errored: number;
    /** Mean over envs of each env's success rate (every env counts the same), stratified bootstrap interval. */
    success: MeanInterval | null;
    /** Mean over envs of each env's mean reward (envs' reward scales differ: read it per env). */
    reward: MeanInterval | null;
    /** Means over all scored episodes. */
    turns: number | null;
    toolCalls: number | null;
    tokens: { agentPrompt: number; agentCompletion: number; env: number; perEpisode: number | null };
    /** Sum of episode wall times, and the wall-clock time the run took (all attempts). */
    wallMs: { episodes: number; elapsed: number };
  };
  statistics: { interval: 'percentile-bootstrap'; confidence: 0.95; resamples: number };
}

const number = { type: 'number' } as const;
const metric = {
  type: 'object',
  additionalProperties: false,
  required: ['mean', 'low', 'high', 'std', 'min', 'max'],
  properties: {
    mean: number,
    low: number,
    high: number,
    std: { type: 'number', minimum: 0 },
    min: number,
    max: number,
  },
} as const;
const meanInterval = {
  type: 'object',
  nullable: true,
  additionalProperties: false,
  required: ['mean', 'low', 'high'],
  properties: { mean: number, low: number, high: number },
} as const;
const count = { type: 'integer', minimum: 0 } as const;

// Typed loosely (nullable objects, open option objects); the tests validate every result the runner writes
// against it, which keeps the two in step.
export const benchResultSchema = {
  $id: 'https://turngym.dev/schemas/bench-result-v1.json',
  type: 'object',
  additionalProperties: false,
  required: [
    'schema',
    'runId',
    'label',
    'agent',
    'suite',
    'startedAt',
    'finishedAt',
    'software',
    'records',
    'envs',
    'skipped',
    'overall',
    'statistics',
  ],
  properties: {
    schema: { type: 'string', const: BENCH_RESULT_SCHEMA_ID },
    runId: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$', maxLength: 200 },
    label: { type: 'string', minLength: 1, maxLength: 200 },
    agent: {
      type: 'object',
      additionalProperties: false,
      required: ['spec', 'name', 'kind', 'baseURL'],
      properties: {
        spec: { type: 'string', minLength: 1 },
        name: { type: 'string', minLength: 1 },
        kind: { type: 'string', enum: ['baseline', 'chat-model'] },
        baseURL: { type: 'string', nullable: true },
      },
    },
    suite: {
      type: 'object',
      additionalProperties: false,
      required: ['id', 'name', 'version', 'sha256'],
      properties: {
        id: { type: 'string', minLength: 1 },
        name: { type: 'string', minLength: 1 },
        version: { type: 'integer', minimum: 1 },
        sha256: { type: 'string', pattern: '^[0-9a-f]{64}$' },
      },
    },
    startedAt: { type: 'string', format: 'date-time' },
    finishedAt: { type: 'string', format: 'date-time' },
    software: {
      type: 'object',
      additionalProperties: false,
      required: ['leaderboard', 'node', 'platform'],
      properties: { leaderboard: { type: 'string' }, node: { type: 'string' }, platform: { type: 'string' } },
    },
    records: { type: 'string', nullable: true },
    envs: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        additionalProperties: false,
        required: [
          'envId',
          'packageName',
          'packageVersion',
          'options',
          'maxTurns',
          'seeds',
          'resetOptions',
          'episodes',
          'scored',
          'errored',
          'errors',
          'metrics',
        ],
        properties: {
          envId: { type: 'string', minLength: 1 },
          packageName: { type: 'string', nullable: true },
          packageVersion: { type: 'string', nullable: true },
          options: { type: 'object', required: [] },
          maxTurns: { type: 'integer', minimum: 1, nullable: true },
          seeds: { type: 'array', minItems: 1, items: { type: 'integer' } },
          resetOptions: { type: 'array', nullable: true, items: { type: 'object', required: [] } },
          episodes: { type: 'integer', minimum: 1 },
          scored: count,
          errored: count,
          errors: {
            type: 'array',
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['seed', 'code', 'message', 'retryable'],
              properties: {
                seed: { type: 'integer' },
                code: { type: 'string' },
                message: { type: 'string' },
                retryable: { type: 'boolean' },
              },
            },
          },
          agentStops: {
            type: 'array',
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['seed', 'reason', 'message'],
              properties: {
                seed: { type: 'integer' },
                reason: { type: 'string', minLength: 1 },
                message: { type: 'string' },
              },
            },
          },
          metrics: {
            type: 'object',
            nullable: true,
            additionalProperties: false,
            required: ['success', 'reward', 'turns', 'toolCalls', 'tokens', 'wallMs'],
            properties: {
              success: metric,
              reward: metric,
              turns: metric,
              toolCalls: metric,
              tokens: metric,
              wallMs: metric,
            },
          },
        },
      },
    },
    skipped: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['envId', 'reason'],
        properties: { envId: { type: 'string' }, reason: { type: 'string' } },
      },
    },
    overall: {
      type: 'object',
      additionalProperties: false,
      required: [
        'envs',
        'episodes',
        'scored',
        'errored',
        'success',
        'reward',
        'turns',
        'toolCalls',
        'tokens',
        'wallMs',
      ],
      properties: {
        envs: count,
        episodes: count,
        scored: count,
        errored: count,
        success: meanInterval,
        reward: meanInterval,
        turns: { type: 'number', nullable: true },
        toolCalls: { type: 'number', nullable: true },
        tokens: {
          type: 'object',
          additionalProperties: false,
          required: ['agentPrompt', 'agentCompletion', 'env', 'perEpisode'],
          properties: {
            agentPrompt: count,
            agentCompletion: count,
            env: count,
            perEpisode: { type: 'number', nullable: true },
          },
        },
        wallMs: {
          type: 'object',
          additionalProperties: false,
          required: ['episodes', 'elapsed'],
          properties: { episodes: { type: 'number', minimum: 0 }, elapsed: { type: 'number', minimum: 0 } },
        },
      },
    },
    statistics: {
      type: 'object',
      additionalProperties: false,
      required: ['interval', 'confidence', 'resamples'],
      properties: {
        interval: { type: 'string', const: 'percentile-bootstrap' },
        confidence: { type: 'number', const: 0.95 },
        resamples: { type: 'integer', minimum: 100 },
      },
    },
  },
} as const;

const validateShape = lazy(() =>
  compileValidator<BenchResult>(benchResultSchema, (problems) => new Error(problems.join('; ')), 'result'),
);

const TOLERANCE = 1e-9;

/** What a schema cannot say: the counts and intervals add up. */
function consistencyProblems(result: BenchResult): string[] {
  const problems: string[] = [];
  const inside = (name: string, value: { mean: number; low: number; high: number } | null): void => {
    if (value && !(value.low <= value.mean + TOLERANCE && value.mean <= value.high + TOLERANCE)) {
      problems.push(`${name}: the interval [${value.low}, ${value.high}] does not contain the mean ${value.mean}`);
    }
  };
  let episodes = 0;
  let scored = 0;
  let errored = 0;
  result.envs.forEach((env, index) => {
    const at = `result.envs[${index}] (${env.envId})`;
    if (env.scored + env.errored !== env.episodes) problems.push(`${at}: scored + errored must equal episodes`);
    if (env.seeds.length !== env.episodes) problems.push(`${at}: one seed per episode`);
    if (env.errors.length !== env.errored) problems.push(`${at}: one entry in errors per errored episode`);
    if ((env.metrics === null) !== (env.scored === 0))
      problems.push(`${at}: metrics are null exactly when no episode was scored`);
    if (env.metrics) {
      for (const [name, value] of Object.entries(env.metrics)) inside(`${at}.metrics.${name}`, value);
      if (env.metrics.success.min < 0 || env.metrics.success.max > 1)
        problems.push(`${at}.metrics.success must lie in [0, 1]`);
      // A success rate is successes / scored episodes: any other value was not computed from episodes.
      const successes = env.metrics.success.mean * env.scored;
      if (Math.abs(successes - Math.round(successes)) > 1e-6)
        problems.push(
          `${at}.metrics.success.mean ${env.metrics.success.mean} is not a whole number of successes out of ${env.scored} scored episodes`,
        );
    }
    episodes += env.episodes;
    scored += env.scored;
    errored += env.errored;
  });
  const overall = result.overall;
  if (overall.envs !== result.envs.length) problems.push('result.overall.envs must equal the number of envs');
  if (overall.episodes !== episodes || overall.scored !== scored || overall.errored !== errored) {
    problems.push("result.overall's episode counts must be the sums over envs");
  }
  inside('result.overall.success', overall.success);
  inside('result.overall.reward', overall.reward);
  for (const [name, value] of [
    ...result.envs.map(
      (env, index) => [`result.envs[${index}] (${env.envId}).metrics.success`, env.metrics?.success] as const,
    ),
    ['result.overall.success', overall.success] as const,
  ]) {
    if (value && (value.low < 0 || value.high > 1))
      problems.push(`${name}: the interval [${value.low}, ${value.high}] must lie in [0, 1]`);
  }
  problems.push(...episodeMeanProblems(result));
  // The headline figures rank the row: each must be the mean over the scored envs of their own means, so a
  // hand-edited overall rate (a tampered result or submission) is refused rather than ranked.
  const scoredEnvs = result.envs.flatMap((env) => (env.metrics ? [env.metrics] : []));
  for (const name of ['success', 'reward'] as const) {
    const stated = overall[name];
    if ((stated === null) !== (scoredEnvs.length === 0)) {
      problems.push(`result.overall.${name} is null exactly when no env has a scored episode`);
    } else if (stated !== null) {
      const expected = scoredEnvs.reduce((sum, metrics) => sum + metrics[name].mean, 0) / scoredEnvs.length;
      if (Math.abs(stated.mean - expected) > 1e-9 * Math.max(1, Math.abs(expected))) {
        problems.push(
          `result.overall.${name}.mean is ${stated.mean}, but the mean over envs of their ${name} means is ${expected}`,
        );
      }
    }
  }
  return problems;
}

/**
 * The overall per-episode figures (turns, tool calls, tokens per episode) are means over every
 * scored episode, so each must follow from the envs' own means weighted by their scored episodes. They are sortable
 * columns of the page: a hand-edited "−1e9 tokens per episode" otherwise went first, and "−5 turns" was shown as is.
 */
function episodeMeanProblems(result: BenchResult): string[] {
  const problems: string[] = [];
  const overall = result.overall;
  const scored = result.envs.reduce((sum, env) => sum + env.scored, 0);
  const weighted = (name: 'turns' | 'toolCalls' | 'tokens'): number =>
    result.envs.reduce((sum, env) => sum + (env.metrics ? env.metrics[name].mean * env.scored : 0), 0);
  const close = (stated: number, expected: number): boolean =>
    Math.abs(stated - expected) <= 1e-9 * Math.max(1, Math.abs(expected));
  result.envs.forEach((env, index) => {
    for (const name of ['turns', 'toolCalls', 'tokens', 'wallMs'] as const) {
      const metric = env.metrics?.[name];
      if (metric && (metric.min < 0 || metric.mean < metric.min - 1e-9 || metric.mean > metric.max + 1e-9)) {
        problems.push(
          `result.envs[${index}] (${env.envId}).metrics.${name}: its min must be >= 0 (a count per episode) and its mean within [min, max]`,
        );
      }
    }
  });
  const tokens = overall.tokens;
  const checks: [name: string, stated: number | null, expected: number][] = [
    ['result.overall.turns', overall.turns, weighted('turns') / scored],
    ['result.overall.toolCalls', overall.toolCalls, weighted('toolCalls') / scored],
    ['result.overall.tokens.perEpisode', tokens.perEpisode, weighted('tokens') / scored],
    [
      'result.overall.tokens.perEpisode',
      tokens.perEpisode,
      (tokens.agentPrompt + tokens.agentCompletion + tokens.env) / scored,
    ],
  ];
  for (const [name, stated, expected] of checks) {
    if ((stated === null) !== (scored === 0)) problems.push(`${name} is null exactly when no episode was scored`);
    else if (stated !== null && !close(stated, expected)) {
      problems.push(`${name} is ${stated}, but the envs' scored episodes give ${expected}`);
    }
  }
  return [...new Set(problems)];
}

/** Validates a result (schema, then its arithmetic); throws `InvalidResultError` naming `file` and the fields. */
export function validateBenchResult(input: unknown, file = 'result'): BenchResult {
  let result: BenchResult;
  try {
    result = validateShape()(input);
  } catch (error) {
    throw new InvalidResultError(file, [(error as Error).message]);
  }
  const problems = consistencyProblems(result);
  if (problems.length > 0) throw new InvalidResultError(file, problems);
  return result;
}
