import { compileValidator, withoutByteOrderMark, type JSONSchemaType } from '@turngym/core';
import { explainedVariance } from '@turngym/rl';
import { InvalidRunError } from './report-errors';

/** The optional file of a run directory that holds its critic's held-out predictions (Self-AC's value head). */
export const CRITIC_CALIBRATION_FILE = 'critic-calibration.json';

/** Most bins of a calibration plot; fewer when there are fewer states. */
export const CALIBRATION_BINS = 10;

/**
 * `critic-calibration.json` as written by a critic's evaluation (trainers/self-ac's scripts): each held-out
 * state's predicted value V(s_k) and the return R_k that followed it.
 */
export interface CriticCalibrationFile {
  /** Where the states come from (e.g. "test": never trained on). */
  split: string;
  /** Episodes the states belong to. */
  episodes?: number;
  /** What produced the predictions (a command line, a checkpoint). */
  source?: string;
  /** [V, R] per state. */
  pairs: [number, number][];
}

export const criticCalibrationSchema: JSONSchemaType<CriticCalibrationFile> = {
  type: 'object',
  additionalProperties: true,
  required: ['split', 'pairs'],
  properties: {
    split: { type: 'string' },
    episodes: { type: 'integer', minimum: 0, nullable: true },
    source: { type: 'string', nullable: true },
    pairs: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'array',
        minItems: 2,
        maxItems: 2,
        items: [{ type: 'number' }, { type: 'number' }],
      },
    },
  },
} as unknown as JSONSchemaType<CriticCalibrationFile>;

const validate = compileValidator<CriticCalibrationFile>(
  criticCalibrationSchema,
  (problems) => new RangeError(problems.join('; ')),
  CRITIC_CALIBRATION_FILE,
);

/** States whose predicted V fell in one bin. */
export interface CalibrationBin {
  readonly states: number;
  readonly meanValue: number;
  readonly meanReturn: number;
  /** Standard error of the bin's mean return (sample std / √n; 0 for one state). */
  readonly returnError: number;
}

/** What the page draws for one run's critic. */
export interface CriticCalibration {
  readonly split: string;
  readonly episodes: number | null;
  readonly source: string | null;
  readonly states: number;
  /** 1 − Var(R − V)/Var(R) over the states; null when the returns do not vary. */
  readonly explainedVariance: number | null;
  /** Equal-count bins of V, lowest first. */
  readonly bins: readonly CalibrationBin[];
}

/**
 * Bins states by predicted V into `bins` groups of (nearly) equal size, lowest V first: equal counts rather
 * than equal widths, because a critic's values are often bunched in a narrow range (a young critic's are
 * pulled toward the mean return), where equal widths would leave two or three bins holding everything.
 */
export function calibrationBins(
  pairs: readonly (readonly [number, number])[],
  bins = CALIBRATION_BINS,
): CalibrationBin[] {
  const sorted = [...pairs].sort((a, b) => a[0] - b[0]);
  const count = Math.min(bins, sorted.length);
  const result: CalibrationBin[] = [];
  for (let bin = 0; bin < count; bin += 1) {
    const slice = sorted.slice(
      Math.floor((bin * sorted.length) / count),
      Math.floor(((bin + 1) * sorted.length) / count),
    );
    const n = slice.length;
    const meanValue = slice.reduce((sum, [value]) => sum + value, 0) / n;
    const meanReturn = slice.reduce((sum, [, target]) => sum + target, 0) / n;
    const variance = n > 1 ? slice.reduce((sum, [, target]) => sum + (target - meanReturn) ** 2, 0) / (n - 1) : 0;
    result.push({ states: n, meanValue, meanReturn, returnError: Math.sqrt(variance / n) });
  }
  return result;
}

/** 1 − Var(R − V)/Var(R) (population variances, `@turngym/rl`'s `explainedVariance`); null when R does not vary. */
export function explainedVarianceOf(pairs: readonly (readonly [number, number])[]): number | null {
  const ev = explainedVariance(
    pairs.map(([value]) => value),
    pairs.map(([, target]) => target),
  );
  return Number.isNaN(ev) ? null : ev;
}

/** Parses the text of a run's `critic-calibration.json` into what the page draws; an error names the file. */
export function parseCriticCalibration(text: string, file: string): CriticCalibration {
  let parsed: unknown;
  try {
    parsed = JSON.parse(withoutByteOrderMark(text));
  } catch (error) {
    throw new InvalidRunError(`${file}: not JSON (${(error as Error).message}).`);
  }
  let valid: CriticCalibrationFile;
  try {
    valid = validate(parsed);
  } catch (error) {
    throw new InvalidRunError(`${file}: ${(error as Error).message}.`);
  }
  return {
    split: valid.split,
    episodes: valid.episodes ?? null,
    source: valid.source ?? null,
    states: valid.pairs.length,
    explainedVariance: explainedVarianceOf(valid.pairs),
    bins: calibrationBins(valid.pairs),
  };
}
