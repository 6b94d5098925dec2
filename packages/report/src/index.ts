export {
  renderReport,
  writeReport,
  buildReportData,
  readRuns,
  renderReportHtml,
  type WrittenReport,
} from './render-report';
export {
  reportOptionsSchema,
  validateReportOptions,
  DEFAULT_REPORT_TITLE,
  DEFAULT_ROLLOUT_ITERATIONS,
  DEFAULT_ROLLOUT_GROUPS,
  type ReportOptions,
} from './report-options';
export { InvalidRunError, ForeignOutputError } from './report-errors';
export { updateMarkdownSections, type MarkdownSection } from './markdown-sections';
export { runInfoSchema, parseRunInfo, type RunInfo } from './run-info';
export { X_AXES, parseMetricLine, readMetrics, type XAxis, type MetricRow } from './metrics-file';
export { findRunDirectories, readRun, type TrainingRun, type FoundRun, type ReadRunOptions } from './run-directory';
export {
  MAX_TURN_TEXT,
  iterationOf,
  toRolloutRecord,
  readSelectedRollouts,
  scanTrajectoryIterations,
  spreadIterations,
  type RolloutRecord,
  type RolloutSelection,
  type SelectedRollouts,
} from './rollout-records';
export {
  MAX_CURVE_POINTS,
  groupRuns,
  metricNames,
  metricSeries,
  interpolate,
  aggregateSeeds,
  thinSeries,
  learningCurves,
  type RunSeries,
  type RunGroup,
  type BandPoint,
  type Point,
  type GroupCurve,
  type MetricCurves,
} from './learning-curves';
export { summarizeGroups, finalValue, type GroupSummary, type SeedStatistic } from './summary-table';
export { buildPromptGroups, type PromptGroupView, type RolloutNode, type RolloutView } from './rollout-tree';
export type { ReportData, ReportGroup, ReportRun, ReportRollouts, ReportCalibration } from './report-data';
export {
  CRITIC_CALIBRATION_FILE,
  CALIBRATION_BINS,
  criticCalibrationSchema,
  calibrationBins,
  explainedVarianceOf,
  parseCriticCalibration,
  type CriticCalibrationFile,
  type CriticCalibration,
  type CalibrationBin,
} from './critic-calibration';
