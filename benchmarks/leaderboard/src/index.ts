/** @turngym/leaderboard — seeded suites, any agent, resumable runs with bootstrap intervals, markdown and HTML leaderboards. */
export {
  InvalidSuiteError,
  PreflightError,
  InvalidResultError,
  RunMismatchError,
  RunAbortedError,
  ForeignOutputError,
} from './leaderboard-errors';
export {
  SUITE_ID_PATTERN,
  suiteSchema,
  validateSuite,
  suiteEpisodeCount,
  type Suite,
  type SuiteEntry,
  type LoadedSuite,
  type SuiteEnv,
  type PlannedEpisode,
} from './suite';
export { SUITES_DIR, listSuites, loadSuite } from './load-suite';
export {
  DEFAULT_RESAMPLES,
  bootstrapInterval,
  summarizeMetric,
  summarizeMetrics,
  summarizeMacroMean,
  type MetricSummary,
} from './bootstrap';
export {
  playEpisodes,
  runAgentEpisodes,
  type AgentSource,
  type AgentEpisodes,
  type AgentEpisodesOptions,
  type EpisodeResult,
  type PlayEpisodesOptions,
} from './run-agent-episodes';
export { DEFAULT_MAX_CONSECUTIVE_ERRORS } from './error-streak';
export { resolveSuiteAgent, isEpisodeError, type ChatAgentSettings, type SuiteAgent } from './suite-agent';
export {
  preflightSuite,
  type PreflightOptions,
  type PreflightPlan,
  type RunnableEnv,
  type SkippedEnv,
} from './preflight';
export {
  BENCH_RESULT_SCHEMA_ID,
  benchResultSchema,
  validateBenchResult,
  type BenchResult,
  type EnvResult,
  type EpisodeMetrics,
  type EpisodeError,
  type MeanInterval,
} from './bench-result';
export { buildBenchResult, LEADERBOARD_VERSION, type BuildResultInput } from './build-result';
export { RunDirectory, RUN_MANIFEST_SCHEMA_ID, type JournalEntry, type RunManifest } from './run-directory';
export {
  runSuite,
  defaultRunId,
  DEFAULT_OUT_DIR,
  type RunSuiteOptions,
  type RunStart,
  type EpisodeProgress,
  type SuiteRun,
} from './run-suite';
export { createSuiteProgress, type SuiteProgress } from './suite-progress';
export {
  SUBMISSION_SCHEMA_ID,
  submissionSchema,
  readLeaderboardEntry,
  readLeaderboardEntries,
  type Submission,
  type LeaderboardEntry,
} from './submission';
export { buildLeaderboard, type LeaderboardRow, type SuiteBoard } from './leaderboard-model';
export { renderMarkdown } from './render-markdown';
export { renderHtml, VIEWER_PAGE, type RenderHtmlOptions } from './render-html';
export { buildViewerRun, renderViewerPage, type ViewerRun, type ViewerEpisode, type ViewerStep } from './render-viewer';
export { writeLeaderboard, type WriteLeaderboardOptions, type WrittenLeaderboard } from './write-leaderboard';
export { formatResultsTable } from './format-results-table';
