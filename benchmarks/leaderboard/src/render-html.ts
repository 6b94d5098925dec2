import type { MeanInterval } from './bench-result';
import {
  formatCount,
  formatDuration,
  formatNumber,
  formatPercent,
  formatPercentInterval,
  shortEnvId,
} from './format-values';
import { contentSecurityPolicy, escapeHtml, fragment, GENERATOR_META, isolatedText } from './internal/html';
import { BASE_CSS } from './internal/page-style';
import { isPartial, type LeaderboardRow, type SuiteBoard } from './leaderboard-model';

export const VIEWER_PAGE = 'viewer.html';

const CSS = `${BASE_CSS}
.suite { margin: 0 0 36px; }
.suite > h2 { margin: 8px 0 2px; font-size: 19px; }
.suite > .description { margin: 0 0 12px; color: var(--muted); max-width: 980px; }
.table-wrap { overflow-x: auto; background: var(--card); border: 1px solid var(--line); border-radius: 8px;
  box-shadow: 0 1px 2px rgba(16, 24, 40, .05); }
table.board { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; }
table.board th, table.board td { padding: 8px 7px; border-bottom: 1px solid var(--line); text-align: left;
  vertical-align: middle; white-space: nowrap; }
table.board tbody tr:last-child td { border-bottom: 0; }
table.board tbody tr:nth-child(even) td { background: #fafbfc; }
table.board tbody tr:hover td { background: #f1f6fc; }
table.board thead th { background: var(--head); font-size: 12px; font-weight: 600; color: #344050; position: sticky; top: 0;
  vertical-align: bottom; }
table.board th.num, table.board td.num { text-align: right; }
table.board th button { all: unset; cursor: pointer; display: inline-flex; align-items: center; gap: 4px; }
table.board th button:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
table.board th button::after { content: "↕"; color: #9aa5b4; font-size: 11px; }
table.board th[aria-sort="ascending"] button::after { content: "▲"; color: var(--accent); }
table.board th[aria-sort="descending"] button::after { content: "▼"; color: var(--accent); }
table.board th .sub { display: block; font-weight: 400; color: var(--muted); font-size: 11px; }
td.rank { color: var(--muted); width: 28px; }
td.agent { min-width: 150px; padding-left: 10px; }
/* A label is anyone's text: a right-to-left override in it must not reorder the tags after it. The agent column is
   sticky, so a long label (spaces or not) wraps within its own box instead of widening the column over the columns
   scrolled beneath it. */
td.agent .label { font-weight: 600; unicode-bidi: isolate; display: inline-block; width: max-content; max-width: 240px;
  white-space: normal; overflow-wrap: anywhere; vertical-align: middle; }
td.agent .sub { display: block; color: var(--muted); font-size: 12px; max-width: 320px; overflow: hidden; text-overflow: ellipsis; }
.rate-cell { display: block; width: 66px; color: inherit; }
a.rate-cell:hover { text-decoration: none; }
a.rate-cell:hover .rate-value { text-decoration: underline; }
.rate-value { display: block; font-weight: 600; margin-bottom: 3px; }
.rate-cell .ci { display: block; font-size: 10.5px; color: var(--muted); margin-top: 2px; line-height: 1.1; }
.rate-cell.overall { width: 84px; }
.rate-cell.overall .rate-value { font-size: 15px; }
table.board th.env { white-space: normal; min-width: 66px; max-width: 96px; line-height: 1.2; }
table.board td.agent, table.board th.agent { position: sticky; left: 0; z-index: 1; background: var(--card); box-shadow: 1px 0 0 var(--line); }
table.board th.agent { z-index: 2; background: var(--head); }
table.board tbody tr:nth-child(even) td.agent { background: #fafbfc; }
table.board tbody tr:hover td.agent { background: #f1f6fc; }
.bar { position: relative; display: block; height: 8px; border-radius: 4px; background: var(--bar-track); }
.bar .fill { position: absolute; left: 0; top: 0; bottom: 0; border-radius: 4px; background: var(--bar-fill); }
.bar .whisker { position: absolute; top: -3px; height: 14px; border-left: 2px solid var(--whisker); border-right: 2px solid var(--whisker); min-width: 2px; }
.bar .whisker::before { content: ""; position: absolute; left: 0; right: 0; top: 6px; border-top: 2px solid var(--whisker); }
.not-run { color: var(--muted); font-style: italic; }
.notes { margin: 10px 2px 0; padding-left: 18px; color: var(--muted); font-size: 13px; }
.env-section h3 { font-size: 15px; margin: 22px 0 10px; }
.env-grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(360px, 1fr)); gap: 14px; }
.env-card { margin: 0; background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 12px 14px 10px;
  box-shadow: 0 1px 2px rgba(16, 24, 40, .05); }
.env-card figcaption { display: flex; justify-content: space-between; align-items: baseline; margin-bottom: 8px; }
.env-card figcaption strong { font-size: 13px; }
.env-row { display: grid; grid-template-columns: minmax(80px, 130px) 1fr 92px; align-items: center; gap: 10px; padding: 4px 0; font-size: 12px; }
.env-row .who { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.env-row .bar { height: 12px; border-radius: 6px; }
.env-row .bar .fill { border-radius: 6px; }
.env-row .bar .whisker { top: -3px; height: 18px; }
.env-row .bar .whisker::before { top: 8px; }
.env-row .value { text-align: right; font-variant-numeric: tabular-nums; }
.env-row .value .ci { color: var(--muted); font-size: 11px; display: block; line-height: 1.1; }
.axis { display: grid; grid-template-columns: minmax(80px, 130px) 1fr 92px; gap: 10px; font-size: 10px; color: #8a94a3; }
.axis .ticks { display: flex; justify-content: space-between; border-top: 1px solid var(--line); padding-top: 2px; }
footer.explain { max-width: 980px; color: var(--muted); font-size: 13px; border-top: 1px solid var(--line); padding-top: 14px; margin-top: 10px; }
footer.explain code { font-family: var(--mono); font-size: 12px; background: var(--head); padding: 0 4px; border-radius: 3px; }
`;

const SORT_SCRIPT = `
(function () {
  function valueOf(row, index, type) {
    var cell = row.cells[index];
    var raw = cell ? cell.getAttribute('data-value') : null;
    if (raw === null || raw === '') return null;
    return type === 'number' ? Number(raw) : raw.toLowerCase();
  }
  document.querySelectorAll('table.board').forEach(function (table) {
    var headers = Array.prototype.slice.call(table.tHead.rows[0].cells);
    headers.forEach(function (th) {
      var button = th.querySelector('button');
      if (!button) return;
      button.addEventListener('click', function () {
        var type = th.getAttribute('data-sort');
        var current = th.getAttribute('aria-sort');
        var first = th.getAttribute('data-first') || (type === 'text' ? 'ascending' : 'descending');
        var direction = current === null ? first : current === 'ascending' ? 'descending' : 'ascending';
        headers.forEach(function (other) { other.removeAttribute('aria-sort'); });
        th.setAttribute('aria-sort', direction);
        var sign = direction === 'ascending' ? 1 : -1;
        var index = th.cellIndex;
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = valueOf(a, index, type), y = valueOf(b, index, type);
          if (x === null && y === null) return 0;
          if (x === null) return 1; // rows without a value stay last either way
          if (y === null) return -1;
          return x < y ? -sign : x > y ? sign : 0;
        });
        rows.forEach(function (row) { body.appendChild(row); });
      });
    });
  });
})();
`;

function clamp01(value: number): number {
  return Math.min(1, Math.max(0, value));
}

/** A bar for a rate with its interval drawn as a whisker. */
function rateBar(value: MeanInterval): string {
  const fill = (clamp01(value.mean) * 100).toFixed(1);
  const left = (clamp01(value.low) * 100).toFixed(1);
  const width = ((clamp01(value.high) - clamp01(value.low)) * 100).toFixed(1);
  return (
    `<span class="bar" aria-hidden="true"><span class="fill" style="width:${fill}%"></span>` +
    `<span class="whisker" style="left:calc(${left}% - 1px);width:calc(${width}% + 2px)"></span></span>`
  );
}

function viewerHref(row: LeaderboardRow, envId?: string): string | null {
  if (row.recordsFile) return `${VIEWER_PAGE}#${fragment({ run: row.id, ...(envId ? { env: envId } : {}) })}`;
  return row.recordsUrl;
}

function rateCell(value: MeanInterval | null | undefined, href: string | null, title: string, overall = false): string {
  if (!value) return `<td class="num" data-value=""><span class="not-run">—</span></td>`;
  const body =
    `<span class="rate-value">${formatPercent(value.mean)}</span>${rateBar(value)}` +
    `<span class="ci">${formatPercentInterval(value.low, value.high)}</span>`;
  const classes = `rate-cell${overall ? ' overall' : ''}`;
  const inner = href
    ? `<a class="${classes}" href="${escapeHtml(href)}" title="${escapeHtml(title)}">${body}</a>`
    : `<span class="${classes}" title="${escapeHtml(title)}">${body}</span>`;
  return `<td data-value="${value.mean}">${inner}</td>`;
}

function numberCell(value: number | null, text: string): string {
  return value === null
    ? `<td class="num" data-value="">—</td>`
    : `<td class="num" data-value="${value}">${escapeHtml(text)}</td>`;
}

interface HeaderOptions {
  sub?: string;
  title?: string;
  className?: string;
  sorted?: 'ascending';
  /** The direction of the first click (default: descending for numbers, ascending for text). */
  first?: 'ascending';
  /** Let the label break after its dashes (long env ids). */
  breakable?: boolean;
}

function header(label: string, type: 'number' | 'text', options: HeaderOptions = {}): string {
  const attributes = [
    `data-sort="${type}"`,
    options.className ? `class="${options.className}"` : '',
    options.title ? `title="${escapeHtml(options.title)}"` : '',
    options.sorted ? `aria-sort="${options.sorted}"` : '',
    options.first ? `data-first="${options.first}"` : '',
  ].filter(Boolean);
  const sub = options.sub ? `<span class="sub">${escapeHtml(options.sub)}</span>` : '';
  const text = options.breakable ? escapeHtml(label).replace(/-/g, '-<wbr>') : escapeHtml(label);
  return `<th ${attributes.join(' ')}><button type="button">${text}</button>${sub}</th>`;
}

function agentCell(row: LeaderboardRow): string {
  const href = viewerHref(row);
  const label = href
    ? `<a class="label" href="${escapeHtml(href)}" title="Open the rollouts">${escapeHtml(row.label)}</a>`
    : `<span class="label">${escapeHtml(row.label)}</span>`;
  const tags = [`<span class="tag">${row.result.agent.kind}</span>`];
  if (isPartial(row)) {
    const why = [
      ...(row.missingEnvs.length > 0 ? [`did not run ${row.missingEnvs.join(', ')}`] : []),
      ...(row.unscoredEnvs.length > 0 ? [`every episode of ${row.unscoredEnvs.join(', ')} errored`] : []),
    ].join('; ');
    tags.push(`<span class="tag warn" title="${escapeHtml(why)}">partial</span>`);
  }
  if (row.otherVersions.length > 0) {
    const versions = row.otherVersions.map((other) => `${other.envId} ${other.version ?? '?'}`).join(', ');
    tags.push(`<span class="tag warn" title="${escapeHtml(`ran ${versions}`)}">other env version</span>`);
  }
  if (row.result.overall.errored > 0) tags.push(`<span class="tag bad">${row.result.overall.errored} errored</span>`);
  // Each part is HTML here: the spec and the submitter are a submission's own text, so they are escaped as
  // they are added (telling markup from text afterwards, by how a part starts, let a spec "<a>…" through raw).
  const subParts = [
    row.result.agent.spec !== row.label ? isolatedText(row.result.agent.spec) : '',
    row.submittedBy ? `by ${isolatedText(row.submittedBy)}` : '',
    row.url ? `<a href="${escapeHtml(row.url)}">link</a>` : '',
  ].filter(Boolean);
  const sub = subParts.length > 0 ? `<span class="sub">${subParts.join(' · ')}</span>` : '';
  const title = row.description ? ` title="${escapeHtml(row.description)}"` : '';
  return `<td class="agent" data-value="${escapeHtml(row.label)}"${title}>${label} ${tags.join(' ')}${sub}</td>`;
}

function renderRow(board: SuiteBoard, row: LeaderboardRow): string {
  const overall = row.result.overall;
  const cells = [
    `<td class="num rank" data-value="${row.rank}">${row.rank}</td>`,
    agentCell(row),
    rateCell(overall.success, viewerHref(row), `${row.label}: mean success over ${overall.envs} envs`, true),
    ...board.envIds.map((envId) => {
      const env = row.envs.get(envId);
      if (!env) return `<td data-value=""><span class="not-run">not run</span></td>`;
      const metrics = env.metrics;
      const title =
        `${envId}${env.packageVersion ? ` ${env.packageVersion}` : ''} · ${row.label}: ${env.scored} scored` +
        (env.errored > 0 ? `, ${env.errored} errored` : '') +
        (metrics
          ? ` · mean reward ${formatNumber(metrics.reward.mean)} · ${formatNumber(metrics.turns.mean, 1)} turns`
          : '');
      // Every episode errored: the cell says so (a bare "—" looked like a cell with nothing to show) and still
      // links to the errored episodes.
      if (!metrics) {
        const href = viewerHref(row, envId);
        const body = `${env.errored} errored`;
        return `<td data-value=""><span class="not-run">${
          href ? `<a href="${escapeHtml(href)}" title="${escapeHtml(title)}">${body}</a>` : body
        }</span></td>`;
      }
      return rateCell(metrics.success, viewerHref(row, envId), title);
    }),
    numberCell(overall.reward?.mean ?? null, overall.reward ? formatNumber(overall.reward.mean) : ''),
    numberCell(overall.turns, overall.turns !== null ? formatNumber(overall.turns, 1) : ''),
    numberCell(
      overall.tokens.perEpisode,
      overall.tokens.perEpisode !== null ? formatCount(overall.tokens.perEpisode) : '',
    ),
    numberCell(overall.errored, String(overall.errored)),
    numberCell(overall.wallMs.elapsed, formatDuration(overall.wallMs.elapsed)),
  ];
  return `<tr data-run="${escapeHtml(row.id)}">${cells.join('')}</tr>`;
}

function renderEnvCards(board: SuiteBoard): string {
  const cards = board.envIds.map((envId) => {
    const version = board.envVersions.get(envId);
    const rows = board.rows
      .map((row) => ({ row, env: row.envs.get(envId) }))
      .filter(({ env }) => env !== undefined)
      .sort((a, b) => (b.env?.metrics?.success.mean ?? -1) - (a.env?.metrics?.success.mean ?? -1))
      .map(({ row, env }) => {
        const success = env?.metrics?.success;
        const href = viewerHref(row, envId);
        const who = href ? `<a href="${escapeHtml(href)}">${escapeHtml(row.label)}</a>` : escapeHtml(row.label);
        const bar = success ? rateBar(success) : '<span class="bar"></span>';
        const value = success
          ? `${formatPercent(success.mean)}<span class="ci">${formatPercentInterval(success.low, success.high)} · n=${env?.scored}</span>`
          : `<span class="not-run">no score · ${env?.errored ?? 0} errored</span>`;
        return `<div class="env-row" data-run="${escapeHtml(row.id)}"><span class="who" title="${escapeHtml(row.label)}">${who}</span>${bar}<span class="value">${value}</span></div>`;
      });
    return (
      `<figure class="env-card" data-env="${escapeHtml(envId)}"><figcaption><strong title="${escapeHtml(envId)}">${escapeHtml(envId)}</strong>` +
      `<span class="tag">${escapeHtml(version ?? 'version ?')}</span></figcaption>${rows.join('')}` +
      `<div class="axis"><span></span><span class="ticks"><span>0%</span><span>50%</span><span>100%</span></span><span></span></div></figure>`
    );
  });
  return `<div class="env-section"><h3>Success rate by environment (95% bootstrap intervals)</h3><div class="env-grid">${cards.join('')}</div></div>`;
}

/** Notes as HTML: a result's own text (label, env id, reason, error codes) each in an isolate, the rest escaped. */
function renderNotes(board: SuiteBoard): string {
  const notes: string[] = [];
  for (const row of board.rows) {
    const label = isolatedText(row.label);
    if (row.duplicates.length > 0) {
      notes.push(`${label}: the same run is also in ${row.duplicates.map(isolatedText).join(', ')}; shown once.`);
    }
    const skipped = row.result.skipped.filter(
      (env) => board.envIds.includes(env.envId) || env.reason !== 'not selected',
    );
    for (const env of skipped) {
      notes.push(`${label}: ${isolatedText(env.envId)} skipped (${isolatedText(env.reason)}).`);
    }
    for (const env of row.result.envs) {
      if (env.errored > 0) {
        const codes = [...new Set(env.errors.map((error) => error.code))].map(isolatedText).join(', ');
        notes.push(
          `${label}: ${env.errored} of ${env.episodes} ${isolatedText(env.envId)} episodes errored (${codes}); excluded from the scores.`,
        );
      }
    }
  }
  return notes.length > 0 ? `<ul class="notes">${notes.map((note) => `<li>${note}</li>`).join('')}</ul>` : '';
}

function suiteFacts(board: SuiteBoard): string {
  const episodes = [...new Set(board.rows.map((row) => row.result.overall.episodes))].sort((a, b) => a - b);
  const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;
  return escapeHtml(
    `${plural(board.rows.length, 'agent')} · ${plural(board.envIds.length, 'env')} · ${episodes.join('/')} episodes per run`,
  );
}

function renderBoard(board: SuiteBoard): string {
  const headers = [
    header('#', 'number', { className: 'num', sorted: 'ascending', first: 'ascending' }),
    header('Agent', 'text', { className: 'agent' }),
    header('Success', 'number', {
      sub: 'over envs',
      title: 'Mean over envs of the success rate, with its 95% bootstrap interval',
    }),
    ...board.envIds.map((envId) =>
      header(shortEnvId(envId).replace(/-v\d+$/, ''), 'number', {
        className: 'env',
        breakable: true,
        sub: [/-(v\d+)$/.exec(envId)?.[1], board.envVersions.get(envId)].filter(Boolean).join(' · '),
        title: `${envId}: success rate, 95% bootstrap interval`,
      }),
    ),
    header('Reward', 'number', { className: 'num', sub: 'over envs' }),
    header('Turns', 'number', { className: 'num', sub: 'per ep.', first: 'ascending' }),
    header('Tokens', 'number', { className: 'num', sub: 'per ep.', first: 'ascending' }),
    header('Errored', 'number', { className: 'num', first: 'ascending' }),
    header('Wall', 'number', { className: 'num', sub: 'run time', first: 'ascending' }),
  ];
  return (
    `<section class="suite" data-suite="${escapeHtml(board.suiteId)}">` +
    `<h2>${escapeHtml(board.suiteId)}</h2>` +
    (board.description ? `<p class="description">${escapeHtml(board.description)}</p>` : '') +
    `<p class="description">${suiteFacts(board)}</p>` +
    `<div class="table-wrap"><table class="board" data-suite="${escapeHtml(board.suiteId)}">` +
    `<thead><tr>${headers.join('')}</tr></thead>` +
    `<tbody>${board.rows.map((row) => renderRow(board, row)).join('')}</tbody></table></div>` +
    renderNotes(board) +
    renderEnvCards(board) +
    `</section>`
  );
}

export interface RenderHtmlOptions {
  title?: string;
  generatedAt?: Date;
  /** Whether a viewer page sits beside this one (links in the header). */
  viewer?: boolean;
  /** The markdown twin's file name, linked in the header. */
  markdown?: string;
}

/**
 * The leaderboard as one static, self-contained HTML page: a sortable table per suite (click a header;
 * rows without a value stay last), success-rate bars with their 95% intervals in every cell and per env,
 * and links into the rollout viewer where the records are at hand.
 */
export function renderHtml(boards: readonly SuiteBoard[], options: RenderHtmlOptions = {}): string {
  const title = options.title ?? 'TurnGym leaderboard';
  const when = (options.generatedAt ?? new Date())
    .toISOString()
    .replace(/\.\d+Z$/, 'Z')
    .replace('T', ' ');
  const links = [
    options.viewer !== false ? `<a href="${VIEWER_PAGE}">Rollout viewer</a>` : '',
    options.markdown ? `<a href="${escapeHtml(options.markdown)}">Markdown</a>` : '',
  ].filter(Boolean);
  // The resample count each result states, not a constant: a result may be made with another (at least 100).
  const resamples = [
    ...new Set(boards.flatMap((board) => board.rows.map((row) => row.result.statistics.resamples))),
  ].sort((a, b) => b - a);
  const resampling = `${resamples.length > 0 ? `${resamples.join(' or ')} ` : ''}seeded resamples of the episodes${
    resamples.length > 1 ? ', as each result states' : ''
  }`;
  const body =
    boards.length > 0
      ? boards.map(renderBoard).join('')
      : '<p class="muted">No results yet: run <code>turngym bench &lt;suite&gt; --agent &lt;agent&gt;</code>.</p>';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
${GENERATOR_META}
${contentSecurityPolicy([SORT_SCRIPT])}
<title>${escapeHtml(title)}</title>
<style>${CSS}</style>
</head>
<body>
<header class="page-header"><h1>${escapeHtml(title)}</h1><p class="meta">Generated ${escapeHtml(when)} UTC${links.length > 0 ? ` · ${links.join(' · ')}` : ''}</p></header>
<main>
${body}
<footer class="explain">
<p><strong>Reading the table.</strong> Success is the share of episodes whose last step set <code>info.success</code>; each cell shows it with its
95% percentile bootstrap interval (${escapeHtml(resampling)}; the whisker on the bar)${
    options.viewer !== false ? ' and links to those episodes in the rollout viewer' : ''
  }. The overall rate is the mean over envs, each env counting the same, with a stratified bootstrap interval. Episodes that
failed for infrastructure reasons (a model call, an env fault) are counted as errored and excluded from every score. Rows that did not run
every env, or where every episode of an env errored, are marked partial and ranked after complete ones. Click a column header to sort.</p>
<p><strong>Adding a row.</strong> Run <code>turngym bench &lt;suite&gt; --agent &lt;spec&gt;</code>, then wrap the result file in a
<code>turngym.leaderboard-submission/v1</code> JSON (see the @turngym/leaderboard README) and render with
<code>turngym leaderboard &lt;results and submissions…&gt;</code>.</p>
</footer>
</main>
<script>${SORT_SCRIPT}</script>
</body>
</html>
`;
}
