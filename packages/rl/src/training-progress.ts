import { SingleBar } from 'cli-progress';
import { defineOptions, type JSONSchemaType } from '@turngym/core';

export interface TrainingProgressOptions {
  /** Iterations in the whole run. */
  total: number;
  /** The first iteration this process runs: a resumed run's bar starts there, and its ETA counts from it. */
  start: number;
  /** Print nothing. */
  quiet: boolean;
  /** Without a terminal (CI, a pipe, a file): one plain line every this many iterations, and after the last. */
  logEvery: number;
  /** Shown before the bar. */
  label: string;
  /** Metrics shown beside the bar, as label → metrics-row key; a key the row lacks is left out. */
  show: Record<string, string>;
}

/** What the bar shows by default: the metrics a trainer is watched by (CleanRL's names where they exist). */
export const DEFAULT_PROGRESS_METRICS: Readonly<Record<string, string>> = {
  return: 'charts/episodic_return',
  success: 'charts/success_rate',
  'tok/s': 'charts/tokens_per_second',
};

export const trainingProgressOptionsSchema: JSONSchemaType<TrainingProgressOptions> = {
  type: 'object',
  additionalProperties: false,
  required: ['total'],
  properties: {
    total: { type: 'integer', minimum: 0 },
    start: { type: 'integer', minimum: 0, default: 0 },
    quiet: { type: 'boolean', default: false },
    logEvery: { type: 'integer', minimum: 1, default: 10 },
    label: { type: 'string', default: 'train' },
    show: {
      type: 'object',
      required: [],
      additionalProperties: { type: 'string' },
      default: { ...DEFAULT_PROGRESS_METRICS },
    },
  },
};

const validateOptions = defineOptions<TrainingProgressOptions>('TrainingProgress', trainingProgressOptionsSchema);

/** Where the progress goes (stderr by default); a test passes its own stream and clock. */
export interface ProgressOutput {
  readonly stream?: NodeJS.WritableStream & { isTTY?: boolean };
  /** Milliseconds; `Date.now` by default. */
  readonly now?: () => number;
}

/** 3 significant digits, whole numbers from 100 up: enough to watch a run, short enough for one line. */
export function formatMetric(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  if (Math.abs(value) >= 100) return value.toFixed(0);
  return Number(value.toPrecision(3)).toString();
}

/** Seconds as 45s, 3m07s or 2h05m. */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '?';
  const whole = Math.round(seconds);
  if (whole < 60) return `${whole}s`;
  if (whole < 3600) return `${Math.floor(whole / 60)}m${String(whole % 60).padStart(2, '0')}s`;
  return `${Math.floor(whole / 3600)}h${String(Math.floor((whole % 3600) / 60)).padStart(2, '0')}m`;
}

/**
 * Progress over a run's iterations on stderr. On a terminal, a redrawn bar (cli-progress) with
 * iteration/total, elapsed time, ETA and a few live metrics; elsewhere (CI logs, pipes) a plain line every
 * `logEvery` iterations, since redraw codes would fill a log with garbage. Call `stop()` when the run
 * ends, also on error: the bar's redraw timer keeps the process alive until then.
 */
export class TrainingProgress {
  readonly options: TrainingProgressOptions;
  private readonly stream: NodeJS.WritableStream & { isTTY?: boolean };
  private readonly now: () => number;
  private readonly startedAt: number;
  private readonly bar: SingleBar | null = null;
  private done: number;
  private stopped = false;

  constructor(options: Partial<TrainingProgressOptions> & { total: number }, output: ProgressOutput = {}) {
    this.options = validateOptions(options);
    if (this.options.start > this.options.total) {
      throw new RangeError(`TrainingProgress: start ${this.options.start} is past total ${this.options.total}.`);
    }
    this.stream = output.stream ?? process.stderr;
    this.now = output.now ?? Date.now;
    this.startedAt = this.now();
    this.done = this.options.start;
    if (!this.options.quiet && this.stream.isTTY) {
      this.bar = new SingleBar({
        stream: this.stream,
        format: `${this.options.label} [{bar}] {value}/{total} | {duration_formatted} | eta {eta_formatted}{metrics}`,
        barsize: 24,
        hideCursor: true,
        clearOnComplete: false,
      });
      this.bar.start(this.options.total, this.options.start, { metrics: '' });
    }
  }

  /** Reports that `iteration` (0-based) finished, with its metrics row (or any numbers to show). */
  update(iteration: number, metrics: Readonly<Record<string, number>> = {}): void {
    if (this.stopped) return;
    this.done = Math.min(iteration + 1, this.options.total);
    const shown = this.metricsText(metrics);
    if (this.bar) {
      this.bar.update(this.done, { metrics: shown });
      return;
    }
    if (this.options.quiet) return;
    const sinceStart = this.done - this.options.start;
    if (sinceStart > 0 && (sinceStart % this.options.logEvery === 0 || this.done === this.options.total)) {
      this.stream.write(`${this.line()}${shown}\n`);
    }
  }

  /** Ends the bar (leaving its last state on screen). Safe to call twice. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.bar?.stop();
  }

  private line(): string {
    const { total, start, label } = this.options;
    const elapsed = (this.now() - this.startedAt) / 1000;
    const ran = this.done - start;
    const eta = ran > 0 ? (elapsed / ran) * (total - this.done) : NaN;
    return `${label} ${this.done}/${total} | ${formatDuration(elapsed)} | eta ${formatDuration(eta)}`;
  }

  private metricsText(metrics: Readonly<Record<string, number>>): string {
    return Object.entries(this.options.show)
      .filter(([, key]) => typeof metrics[key] === 'number')
      .map(([label, key]) => ` | ${label} ${formatMetric(metrics[key] as number)}`)
      .join('');
  }
}
