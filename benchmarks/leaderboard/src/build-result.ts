import { mean, type EpisodeOutcome } from '@turngym/core';
import { BENCH_RESULT_SCHEMA_ID, type BenchResult, type EnvResult, type EpisodeMetrics } from './bench-result';
import { DEFAULT_RESAMPLES, summarizeMacroMean, summarizeMetrics } from './bootstrap';
import type { PreflightPlan } from './preflight';
import type { JournalEntry, RunManifest } from './run-directory';
import type { LoadedSuite } from './suite';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const manifest = require('../package.json') as { version: string };

export const LEADERBOARD_VERSION = manifest.version;

export interface BuildResultInput {
  manifest: RunManifest;
  suite: LoadedSuite;
  plan: PreflightPlan;
  /** Every planned episode's journal entry, by key. */
  journal: ReadonlyMap<string, JournalEntry>;
  /** Where the records are, relative to the result file (or a URL); null when not shared. */
  records: string | null;
  finishedAt: Date;
  elapsedMs: number;
  resamples?: number;
}

const METRICS: Record<keyof EpisodeMetrics, (outcome: EpisodeOutcome) => number> = {
  success: (outcome) => (outcome.success ? 1 : 0),
  reward: (outcome) => outcome.totalReward,
  turns: (outcome) => outcome.turns,
  toolCalls: (outcome) => outcome.toolCalls,
  tokens: (outcome) => outcome.agentPromptTokens + outcome.agentCompletionTokens + outcome.llmTokens,
  wallMs: (outcome) => outcome.wallMs,
};

/** Error messages are kept short: the records hold the rest. */
function shorten(message: string): string {
  const line = message.replace(/\s*\n\s*/g, ' ').trim();
  return line.length > 300 ? `${line.slice(0, 297)}...` : line;
}

/**
 * The result of a finished run: per env, every metric over its scored episodes with a 95% percentile
 * bootstrap interval (SeededRng resampling seeded by suite, env and metric, so the same episodes give the
 * same interval anywhere) and the spread across seeds; errored episodes are counted, never scored.
 */
export function buildBenchResult(input: BuildResultInput): BenchResult {
  const resamples = input.resamples ?? DEFAULT_RESAMPLES;
  const suiteId = input.suite.id;
  const outcomesByEnv: EpisodeOutcome[][] = [];
  const envs = input.plan.envs.map((env): EnvResult => {
    const entries = env.episodes.map((episode) => {
      const entry = input.journal.get(episode.key);
      if (!entry) throw new Error(`internal: episode ${episode.key} of ${env.envId} has not run`);
      return entry;
    });
    const outcomes = entries.flatMap((entry) => (entry.status === 'ok' && entry.outcome ? [entry.outcome] : []));
    outcomesByEnv.push(outcomes);
    const errors = entries.flatMap((entry) =>
      entry.status === 'errored'
        ? [
            {
              seed: entry.seed,
              code: entry.error?.code ?? 'UNKNOWN',
              message: shorten(entry.error?.message ?? 'unknown error'),
              retryable: entry.error?.retryable ?? false,
            },
          ]
        : [],
    );
    const columns = Object.fromEntries(
      (Object.keys(METRICS) as (keyof EpisodeMetrics)[]).map((name) => [name, outcomes.map(METRICS[name])]),
    ) as Record<keyof EpisodeMetrics, number[]>;
    const metrics: EpisodeMetrics | null = summarizeMetrics(
      columns,
      ['turngym-leaderboard', suiteId, env.envId, env.index],
      resamples,
    );
    const hasResetOptions = env.episodes.some((episode) => episode.resetOptions !== undefined);
    return {
      envId: env.envId,
      packageName: env.packageName,
      packageVersion: env.packageVersion,
      options: env.resolvedOptions,
      maxTurns: env.maxTurns,
      seeds: env.episodes.map((episode) => episode.seed),
      resetOptions: hasResetOptions ? env.episodes.map((episode) => episode.resetOptions ?? {}) : null,
      episodes: env.episodes.length,
      scored: outcomes.length,
      errored: errors.length,
      errors,
      agentStops: outcomes.flatMap((outcome) =>
        outcome.agentStop
          ? [{ seed: outcome.seed, reason: outcome.agentStop.reason, message: shorten(outcome.agentStop.message) }]
          : [],
      ),
      metrics,
    };
  });
  const all = outcomesByEnv.flat();
  const sum = (values: number[]): number => values.reduce((total, value) => total + value, 0);
  const agentPrompt = sum(all.map((outcome) => outcome.agentPromptTokens));
  const agentCompletion = sum(all.map((outcome) => outcome.agentCompletionTokens));
  const envTokens = sum(all.map((outcome) => outcome.llmTokens));
  return {
    schema: BENCH_RESULT_SCHEMA_ID,
    runId: input.manifest.runId,
    label: input.manifest.label,
    agent: input.manifest.agent,
    suite: { id: suiteId, name: input.suite.name, version: input.suite.version, sha256: input.suite.sha256 },
    startedAt: input.manifest.startedAt,
    finishedAt: input.finishedAt.toISOString(),
    software: {
      leaderboard: LEADERBOARD_VERSION,
      node: process.version,
      platform: `${process.platform}-${process.arch}`,
    },
    records: input.records,
    envs,
    skipped: input.plan.skipped,
    overall: {
      envs: envs.length,
      episodes: sum(envs.map((env) => env.episodes)),
      scored: sum(envs.map((env) => env.scored)),
      errored: sum(envs.map((env) => env.errored)),
      success: summarizeMacroMean(
        outcomesByEnv.map((outcomes) => outcomes.map(METRICS.success)),
        ['turngym-leaderboard', suiteId, 'overall', 'success'],
        resamples,
      ),
      reward: summarizeMacroMean(
        outcomesByEnv.map((outcomes) => outcomes.map(METRICS.reward)),
        ['turngym-leaderboard', suiteId, 'overall', 'reward'],
        resamples,
      ),
      turns: all.length > 0 ? mean(all.map(METRICS.turns)) : null,
      toolCalls: all.length > 0 ? mean(all.map(METRICS.toolCalls)) : null,
      tokens: {
        agentPrompt,
        agentCompletion,
        env: envTokens,
        perEpisode: all.length > 0 ? (agentPrompt + agentCompletion + envTokens) / all.length : null,
      },
      wallMs: { episodes: sum(all.map(METRICS.wallMs)), elapsed: input.elapsedMs },
    },
    statistics: { interval: 'percentile-bootstrap', confidence: 0.95, resamples },
  };
}
