import { BenchArgumentError } from './bench-error';

/** What `npm run bench -- …` asks for. Section-specific flags (`--wiki-dir`, …) are read by their sections. */
export interface BenchArguments {
  help: boolean;
  /** Milliseconds each measurement runs. */
  durationMs: number;
  /** Whether --duration was given (else --compare uses the recorded duration). */
  durationGiven: boolean;
  /** Section names to run (slow ones included when named); undefined: every section that is not slow. */
  only: string[] | undefined;
  /** Runs of each section: the tables show each figure's median and its spread (min–max). */
  runs: number;
  /** The markdown to update (the sections run are replaced, the others kept); undefined: stdout only. */
  write: string | undefined;
  /** The JSON results file beside it (default: the markdown's path with `.json`). */
  json: string | undefined;
  /** Results to compare against: the sections recorded there are re-run and each figure checked. */
  compare: string | undefined;
  /** A figure is flagged when it is worse than the recorded one by more than this fraction. */
  threshold: number;
}

/** The harness's own flags, for `--help` (sections' flags are listed with their sections). */
export const HARNESS_FLAGS: readonly (readonly [string, string])[] = [
  ['--help', 'print the sections and flags, run nothing'],
  ['--duration <ms>', 'milliseconds per measurement (default 3000)'],
  ['--only <a,b,…>', 'run only these sections (slow sections run only when named)'],
  ['--runs <n>', 'run each section n times; tables show the median [min–max] of each figure (default 1)'],
  ['--write <file.md>', 'replace the sections run in this markdown (the others are kept) and write the JSON beside it'],
  ['--json <file.json>', 'the JSON results file (default: --write with .json; with --compare, none unless given)'],
  [
    '--compare <file.json>',
    're-run the sections recorded in that file (or --only) with its duration and flag every figure more than --threshold worse; exit 1 on any',
  ],
  ['--threshold <fraction>', 'how much worse a figure may get before --compare flags it (default 0.2)'],
];

const VALUED = new Set(['duration', 'only', 'runs', 'write', 'json', 'compare', 'threshold']);

function positive(name: string, text: string | undefined, integer: boolean): number {
  const value = Number(text);
  if (text === undefined || !Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value)))
    throw new BenchArgumentError(
      `--${name} needs a positive ${integer ? 'whole number' : 'number'}, got ${text === undefined ? 'nothing' : JSON.stringify(text)}`,
    );
  return value;
}

/**
 * Parses the harness's flags from `argv` (without `node script`). Flags it does not know are left to the
 * sections (`--wiki-dir …`), so only a known flag missing its value is an error here.
 */
export function parseBenchArguments(argv: readonly string[]): BenchArguments {
  const values = new Map<string, string | undefined>();
  let help = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--help' || arg === '-h') {
      help = true;
      continue;
    }
    const name = arg.startsWith('--') ? arg.slice(2) : undefined;
    if (name === undefined || !VALUED.has(name)) continue;
    const value = argv[i + 1];
    values.set(name, value === undefined || value.startsWith('--') ? undefined : value);
    if (values.get(name) !== undefined) i += 1;
  }
  const text = (name: string): string | undefined => {
    if (!values.has(name)) return undefined;
    const value = values.get(name);
    if (value === undefined) throw new BenchArgumentError(`--${name} needs a value`);
    return value;
  };
  const only = text('only')
    ?.split(',')
    .map((name) => name.trim())
    .filter((name) => name.length > 0);
  if (only !== undefined && only.length === 0) throw new BenchArgumentError('--only needs at least one section name');
  const write = text('write');
  const compare = text('compare');
  const json = text('json') ?? (write && !compare ? write.replace(/\.md$/, '') + '.json' : undefined);
  return {
    help,
    durationMs: values.has('duration') ? positive('duration', text('duration'), false) : 3000,
    durationGiven: values.has('duration'),
    only,
    runs: values.has('runs') ? positive('runs', text('runs'), true) : 1,
    write,
    json,
    compare,
    threshold: values.has('threshold') ? positive('threshold', text('threshold'), false) : 0.2,
  };
}

/** Checks `--only` against the sections there are, naming the unknown one and listing the known. */
export function checkSectionNames(only: readonly string[], known: readonly string[]): void {
  const unknown = only.find((name) => !known.includes(name));
  if (unknown !== undefined)
    throw new BenchArgumentError(`--only: no section "${unknown}"; the sections are ${known.join(', ')}`);
}

/** The `--help` text: usage, the harness's flags, then every section with its title. */
export function formatHelp(sections: readonly { name: string; title: string; slow?: boolean }[]): string {
  const width = Math.max(...HARNESS_FLAGS.map(([flag]) => flag.length), ...sections.map((s) => s.name.length + 7));
  const lines = [
    'Usage: npm run bench -- [flags]   (or: node benchmarks/perf/dist/index.js [flags])',
    '',
    'Throughput benchmarks, each against a baseline measured in the same run. Every section records the commit,',
    'date, Node version, cores, load average at its start and end, and the command that measured it.',
    '',
    'Flags:',
    ...HARNESS_FLAGS.map(([flag, what]) => `  ${flag.padEnd(width)}  ${what}`),
    '',
    'Sections (slow: only with --only):',
    ...sections.map(
      (section) => `  ${(section.name + (section.slow ? ' (slow)' : '')).padEnd(width)}  ${section.title}`,
    ),
    '',
    'Section flags: --wiki-dir, --wiki-convert, --wiki-stores (wiki-dumps); --math-checkpoint, --wiki-checkpoint',
    '(rollouts); --schedule-prompts, --schedule-max-batch (rollout-schedule). Examples: npm run bench -- --only wiki,sandbox --runs 3 --write docs/benchmarks/perf.md',
    '                      npm run bench -- --compare docs/benchmarks/perf.json',
  ];
  return `${lines.join('\n')}\n`;
}
