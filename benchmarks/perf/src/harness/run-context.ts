import { execFileSync } from 'node:child_process';
import { cpus, loadavg } from 'node:os';

/** Where and how a section was measured: what a reader needs to judge (or reproduce) its figures. */
export interface RunContext {
  /** Short commit hash of HEAD, `unknown` outside a git checkout. */
  readonly commit: string;
  /** Whether the working tree had uncommitted changes (the figures may be of code not in `commit`). */
  readonly dirty: boolean;
  /** ISO time the section started. */
  readonly date: string;
  readonly node: string;
  readonly cores: number;
  readonly cpu: string;
  /** `os.loadavg()` (1, 5, 15 min) when the section started and when it ended. */
  readonly loadStart: readonly number[];
  readonly loadEnd: readonly number[];
  /** The command line that measured it. */
  readonly command: string;
  readonly durationMs: number;
  readonly runs: number;
}

function git(args: string[]): string | undefined {
  try {
    return execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
}

/** The checkout's commit and whether it has uncommitted changes, read once per process. */
export function checkoutState(): { commit: string; dirty: boolean } {
  const commit = git(['rev-parse', '--short', 'HEAD']) ?? 'unknown';
  const status = git(['status', '--porcelain', '--untracked-files=no']);
  return { commit, dirty: status !== undefined && status.length > 0 };
}

/** The command as a user would type it: `npm run bench -- <the flags>`. */
export function commandLine(argv: readonly string[]): string {
  const quoted = argv.map((arg) => (/^[\w./:=,@+-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, "'\\''")}'`));
  return ['npm run bench', ...(quoted.length > 0 ? ['--', ...quoted] : [])].join(' ');
}

/** The context fields known before a section runs; `finish` adds the load at its end. */
export function startContext(
  checkout: { commit: string; dirty: boolean },
  options: { command: string; durationMs: number; runs: number },
): { finish(): RunContext } {
  const started = { date: new Date().toISOString(), loadStart: loadavg().map(round2) };
  return {
    finish: () => ({
      ...checkout,
      ...started,
      node: process.version,
      cores: cpus().length,
      cpu: cpus()[0]?.model?.trim() ?? 'unknown CPU',
      loadEnd: loadavg().map(round2),
      ...options,
    }),
  };
}

const round2 = (value: number): number => Math.round(value * 100) / 100;

/** One line of markdown under a section's title saying how it was measured. */
export function describeContext(context: RunContext): string {
  const load = (values: readonly number[]): string => values.map((value) => value.toFixed(2)).join(' / ');
  return [
    `Measured by \`${context.command}\` at ${context.commit}${context.dirty ? ' (with uncommitted changes)' : ''}`,
    `on ${context.date.slice(0, 16).replace('T', ' ')} UTC: Node ${context.node}, ${context.cores} cores (${context.cpu}),`,
    `load average (1/5/15 min) ${load(context.loadStart)} at the start, ${load(context.loadEnd)} at the end`,
    context.runs > 1 ? `; ${context.runs} runs, each figure their median [min–max].` : '; one run.',
  ]
    .join(' ')
    .replace(' ;', ';');
}
