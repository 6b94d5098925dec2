import {
  formatCount,
  formatDuration,
  formatNumber,
  formatPercent,
  formatPercentInterval,
  shortEnvId,
} from './format-values';
import { isPartial, type LeaderboardRow, type SuiteBoard } from './leaderboard-model';

/**
 * Text from a result or a submission as literal markdown in a table cell. Labels, submitters and error codes are
 * anyone's text, and leaderboard.md is rendered (GitHub, a docs site): a line break (`\r` as much as `\n`) would
 * end the row and let the text draw rows of its own, `<…>` would be raw HTML, `[…](…)` a link, a backslash
 * would undo the escapes after it. Backslash escapes keep every character visible as written.
 */
function text(value: string): string {
  return withoutBidiControls(value)
    .replace(/\r\n|[\r\n\u2028\u2029]/g, ' ')
    .replace(/[\\`<>[\]|]/g, '\\$&');
}

/**
 * The bidi embedding, override and isolate controls (U+202A–U+202E, U+2066–U+2069) are invisible, and one left open
 * runs on to the end of the line: in leaderboard.md read as text (an editor, a pull request's diff) a label's
 * U+202E showed the row's own figures reversed, "84% [80–88]" as "]88–08[ %48". Letters of a right-to-left script
 * need none of them.
 */
function withoutBidiControls(value: string): string {
  return value.replace(/[\u202a-\u202e\u2066-\u2069]/g, '');
}

/** A link target that stays one: characters that would end it, or the table cell, are percent-encoded. */
function linkTarget(url: string): string {
  return url.replace(/[\s()<>[\]\\|`"'\u202a-\u202e\u2066-\u2069]/g, (char) =>
    [...Buffer.from(char, 'utf8')].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join(''),
  );
}

/** An env id in backticks; one with a backtick of its own cannot be a code span, and is escaped text instead. */
function codeSpan(value: string): string {
  return value.includes('`')
    ? text(value)
    : `\`${withoutBidiControls(value).replace(/\r\n|[\r\n\u2028\u2029]/g, ' ')}\``;
}

/** Cells built here are markdown already; only a line break could still split the row. */
function cell(markdown: string): string {
  return markdown.replace(/\r\n|[\r\n]/g, ' ');
}

function successCell(value: { mean: number; low: number; high: number } | null | undefined): string {
  return value ? `${formatPercent(value.mean)} [${formatPercentInterval(value.low, value.high)}]` : '—';
}

function agentCell(row: LeaderboardRow): string {
  const by = row.submittedBy ? ` (${text(row.submittedBy)})` : '';
  const name = row.url ? `[${text(row.label)}](${linkTarget(row.url)})` : text(row.label);
  const partial = isPartial(row) ? ' *(partial)*' : '';
  return `${name}${by}${partial}`;
}

function renderBoard(board: SuiteBoard): string {
  const header = [
    '#',
    'Agent',
    'Success (mean over envs)',
    ...board.envIds.map((envId) => text(shortEnvId(envId))),
    'Reward',
    'Turns',
    'Tokens/ep',
    'Episodes',
    'Errored',
    'Wall',
  ];
  const lines = [
    `## ${text(board.suiteId)}`,
    '',
    ...(board.description ? [board.description, ''] : []),
    `| ${header.join(' | ')} |`,
    `|${header.map((_, index) => (index < 2 ? '---' : '---:')).join('|')}|`,
  ];
  for (const row of board.rows) {
    const overall = row.result.overall;
    const cells = [
      String(row.rank),
      agentCell(row),
      successCell(overall.success),
      ...board.envIds.map((envId) => {
        const env = row.envs.get(envId);
        if (!env) return 'not run';
        // Every episode errored: "—" alone read like a row with nothing to say; the terminal table says the same.
        if (!env.metrics) return `— (${env.errored} errored)`;
        return successCell(env.metrics.success);
      }),
      overall.reward ? formatNumber(overall.reward.mean) : '—',
      overall.turns !== null ? formatNumber(overall.turns, 1) : '—',
      overall.tokens.perEpisode !== null ? formatCount(overall.tokens.perEpisode) : '—',
      String(overall.episodes),
      String(overall.errored),
      formatDuration(overall.wallMs.elapsed),
    ];
    lines.push(`| ${cells.map(cell).join(' | ')} |`);
  }
  lines.push('');
  const versions = [...board.envVersions].map(
    ([envId, version]) => `${codeSpan(envId)}${version ? ` ${text(version)}` : ''}`,
  );
  lines.push(`Env versions: ${versions.join(', ')}.`);
  const notes: string[] = [];
  for (const row of board.rows) {
    if (row.missingEnvs.length > 0) notes.push(`${row.label}: partial, did not run ${row.missingEnvs.join(', ')}.`);
    if (row.unscoredEnvs.length > 0)
      notes.push(
        `${row.label}: partial, every episode of ${row.unscoredEnvs.join(', ')} errored: its overall rate leaves them out.`,
      );
    for (const other of row.otherVersions)
      notes.push(`${row.label}: ran ${other.envId} ${other.version ?? '(unknown version)'}.`);
    if (row.duplicates.length > 0)
      notes.push(`${row.label}: the same run is also in ${row.duplicates.join(', ')}; shown once.`);
    const errored = row.result.envs.filter((env) => env.errored > 0);
    if (errored.length > 0) {
      const codes = [...new Set(errored.flatMap((env) => env.errors.map((error) => error.code)))].join(', ');
      notes.push(`${row.label}: ${row.result.overall.errored} errored episodes (${codes}), excluded from the scores.`);
    }
    const stopped = row.result.envs.flatMap((env) =>
      (env.agentStops ?? []).length > 0 ? [`${env.envId} ${(env.agentStops ?? []).length}`] : [],
    );
    if (stopped.length > 0)
      notes.push(`${row.label}: episodes the agent stopped (context full), scored as failures: ${stopped.join(', ')}.`);
  }
  if (notes.length > 0) lines.push('', ...notes.map((note) => `- ${text(note)}`));
  return lines.join('\n');
}

/**
 * The leaderboard as markdown: one table per suite. Success rates are percentages with the 95% percentile
 * bootstrap interval in brackets; the first column of rates is the mean over envs.
 */
export function renderMarkdown(
  boards: readonly SuiteBoard[],
  options: { title?: string; generatedAt?: Date } = {},
): string {
  const title = options.title ?? 'TurnGym leaderboard';
  const when = (options.generatedAt ?? new Date()).toISOString().replace(/\.\d+Z$/, 'Z');
  const intro = [
    `# ${title}`,
    '',
    `Generated ${when} by \`turngym leaderboard\`. Success rates in %, with the 95% percentile bootstrap interval ` +
      '(seeded resampling of the episodes) in brackets; the overall rate is the mean over envs, each env counting ' +
      'the same. Reward is the mean over envs of the mean episode reward (scales differ by env). Errored episodes ' +
      '(failed model calls, env faults) are counted and excluded from the scores. Wall is the time the run took.',
  ];
  if (boards.length === 0)
    return [...intro, '', 'No results yet: run `turngym bench <suite> --agent <agent>`.', ''].join('\n');
  return [...intro, '', ...boards.map(renderBoard).join('\n\n').split('\n'), ''].join('\n');
}
