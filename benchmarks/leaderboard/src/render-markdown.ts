import {
  formatCount,
  formatDuration,
  formatNumber,
  formatPercent,
  formatPercentInterval,
  shortEnvId,
} from './format-values';
import type { LeaderboardRow, SuiteBoard } from './leaderboard-model';

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function successCell(value: { mean: number; low: number; high: number } | null | undefined): string {
  return value ? `${formatPercent(value.mean)} [${formatPercentInterval(value.low, value.high)}]` : '—';
}

function agentCell(row: LeaderboardRow): string {
  const by = row.submittedBy ? ` (${row.submittedBy})` : '';
  const name = row.url ? `[${row.label}](${row.url})` : row.label;
  const partial = row.missingEnvs.length > 0 ? ' *(partial)*' : '';
  return `${name}${by}${partial}`;
}

function renderBoard(board: SuiteBoard): string {
  const header = [
    '#',
    'Agent',
    'Success (mean over envs)',
    ...board.envIds.map(shortEnvId),
    'Reward',
    'Turns',
    'Tokens/ep',
    'Episodes',
    'Errored',
    'Wall',
  ];
  const lines = [
    `## ${board.suiteId}`,
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
        return successCell(env.metrics?.success);
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
  const versions = [...board.envVersions].map(([envId, version]) => `\`${envId}\`${version ? ` ${version}` : ''}`);
  lines.push(`Env versions: ${versions.join(', ')}.`);
  const notes: string[] = [];
  for (const row of board.rows) {
    if (row.missingEnvs.length > 0) notes.push(`${row.label}: partial, did not run ${row.missingEnvs.join(', ')}.`);
    for (const other of row.otherVersions)
      notes.push(`${row.label}: ran ${other.envId} ${other.version ?? '(unknown version)'}.`);
    const errored = row.result.envs.filter((env) => env.errored > 0);
    if (errored.length > 0) {
      const codes = [...new Set(errored.flatMap((env) => env.errors.map((error) => error.code)))].join(', ');
      notes.push(`${row.label}: ${row.result.overall.errored} errored episodes (${codes}), excluded from the scores.`);
    }
  }
  if (notes.length > 0) lines.push('', ...notes.map((note) => `- ${cell(note)}`));
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
