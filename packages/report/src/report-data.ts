import type { CriticCalibration } from './critic-calibration';
import type { MetricCurves } from './learning-curves';
import type { PromptGroupView } from './rollout-tree';
import type { GroupSummary } from './summary-table';

/**
 * Everything the page draws, embedded in it as JSON (the page fetches nothing). The page script builds
 * the DOM from it with `textContent` and attributes only, so no text from a run (a model's action, an
 * observation, a label) is ever parsed as HTML.
 */
export interface ReportData {
  readonly title: string;
  readonly xAxis: string;
  readonly groups: readonly ReportGroup[];
  readonly runs: readonly ReportRun[];
  /** Ranked rows of the summary table. */
  readonly summary: readonly GroupSummary[];
  readonly charts: readonly MetricCurves[];
  /** Runs that have rollouts to view (tree or chain), in run order. */
  readonly rollouts: readonly ReportRollouts[];
  /** Runs with a critic-calibration.json (a critic's held-out V against R), in run order. */
  readonly calibrations: readonly ReportCalibration[];
}

export interface ReportCalibration extends CriticCalibration {
  /** Index in `runs`. */
  readonly run: number;
}

export interface ReportGroup {
  readonly name: string;
  readonly algorithm: string;
  readonly envId: string;
  readonly label: string | null;
  /** CSS colour of the group's curves and legend entry. */
  readonly color: string;
  /** Indexes in `runs`. */
  readonly runs: readonly number[];
}

export interface ReportRun {
  readonly name: string;
  readonly algorithm: string;
  readonly envId: string;
  readonly seed: number;
  readonly label: string | null;
  readonly startedAt: string;
  /** Index in `groups`. */
  readonly group: number;
}

export interface ReportRollouts {
  /** Index in `runs`. */
  readonly run: number;
  /** The least and greatest reward of the kept rollouts: the ends of the leaf colour scale. */
  readonly rewardRange: readonly [number, number];
  readonly iterations: readonly {
    readonly iteration: number;
    /** Prompt groups of this iteration left out of the page. */
    readonly hiddenGroups: number;
    readonly groups: readonly PromptGroupView[];
  }[];
}
