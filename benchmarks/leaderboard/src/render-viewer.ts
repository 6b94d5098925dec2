import { formatToolCall, readEpisodeRecords, type EpisodeRecord } from '@turngym/core';
import type { ToolCall } from '@turngym/spec';
import { contentSecurityPolicy, escapeHtml, GENERATOR_META, scriptJson } from './internal/html';
import { BASE_CSS } from './internal/page-style';
import type { LeaderboardRow, SuiteBoard } from './leaderboard-model';

/** Longest text kept per field: a page of observation is plenty to read a rollout. */
const MAX_TEXT = 20_000;

export interface ViewerStep {
  action: string;
  observation: string;
  reward: number;
  terminated: boolean;
  truncated: boolean;
  feedback: string | null;
  invalid: boolean;
  fingerprint: string | null;
  anchor: string | null;
}

export interface ViewerEpisode {
  id: string;
  envId: string;
  seed: number | null;
  success: boolean;
  totalReward: number;
  turns: number;
  complete: boolean;
  terminated: boolean;
  truncated: boolean;
  truncatedBy: string | null;
  cost: { toolCalls: number; llmTokens: number; wallMs: number };
  /** Index into the run's `instructions` (system prompts repeat across episodes). */
  instructions: number;
  task: string;
  error: { code: string; message: string } | null;
  steps: ViewerStep[];
}

export interface ViewerRun {
  id: string;
  label: string;
  suiteId: string;
  agent: string;
  instructions: string[];
  episodes: ViewerEpisode[];
}

function clip(text: string): string {
  if (text.length <= MAX_TEXT) return text;
  // Not between the two halves of a surrogate pair (an emoji): a lone half is shown as �.
  const high = text.charCodeAt(MAX_TEXT - 1);
  const end = high >= 0xd800 && high <= 0xdbff ? MAX_TEXT - 1 : MAX_TEXT;
  return `${text.slice(0, end)}\n… (${text.length - end} more characters in the records)`;
}

function textOf(value: unknown): string {
  if (typeof value === 'string') return clip(value);
  if (value === undefined || value === null) return '';
  return clip(JSON.stringify(value, null, 2));
}

function actionText(action: unknown): string {
  if (typeof action === 'number') return `option ${action}`;
  if (action && typeof action === 'object' && typeof (action as ToolCall).name === 'string') {
    return clip(formatToolCall(action as ToolCall));
  }
  return textOf(action);
}

function optionalString(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

/** The viewer's data for one row: its records, compacted, with errored episodes marked (and listed even without a record). */
export function buildViewerRun(row: LeaderboardRow, records: readonly EpisodeRecord[]): ViewerRun {
  const instructions: string[] = [];
  const instructionIndex = new Map<string, number>();
  const errors = new Map<string, { code: string; message: string }>();
  for (const env of row.result.envs) for (const error of env.errors) errors.set(`${env.envId}#${error.seed}`, error);
  const episodes = records.map((record): ViewerEpisode => {
    let index = -1;
    if (record.instructions !== null) {
      index = instructionIndex.get(record.instructions) ?? instructions.length;
      if (index === instructions.length) {
        instructions.push(clip(record.instructions));
        instructionIndex.set(record.instructions, index);
      }
    }
    const last = record.steps[record.steps.length - 1];
    const error = record.complete ? null : (errors.get(`${record.envId}#${record.seed}`) ?? null);
    return {
      id: record.episodeId,
      envId: record.envId,
      seed: record.seed,
      success: record.success,
      totalReward: record.totalReward,
      turns: record.turns,
      complete: record.complete,
      terminated: record.terminated,
      truncated: record.truncated,
      truncatedBy: optionalString(last?.info.truncatedBy),
      cost: record.cost,
      instructions: index,
      task: textOf(record.initialObservation),
      error: error ? { code: error.code, message: error.message } : null,
      steps: record.steps.map((step) => ({
        action: actionText(step.action),
        observation: textOf(step.observation),
        reward: step.reward,
        terminated: step.terminated,
        truncated: step.truncated,
        feedback: optionalString(step.info.feedback),
        invalid: step.info.invalidAction === true,
        fingerprint: optionalString(step.info.fingerprint),
        anchor: optionalString(step.info.anchor),
      })),
    };
  });
  // Errored episodes whose env never wrote a record still belong in the list.
  for (const env of row.result.envs) {
    for (const error of env.errors) {
      if (episodes.some((episode) => episode.envId === env.envId && episode.seed === error.seed)) continue;
      episodes.push({
        id: `${env.envId}#${error.seed}`,
        envId: env.envId,
        seed: error.seed,
        success: false,
        totalReward: 0,
        turns: 0,
        complete: false,
        terminated: false,
        truncated: false,
        truncatedBy: null,
        cost: { toolCalls: 0, llmTokens: 0, wallMs: 0 },
        instructions: -1,
        task: '',
        error: { code: error.code, message: error.message },
        steps: [],
      });
    }
  }
  const envOrder = row.result.envs.map((env) => env.envId);
  episodes.sort((a, b) => envOrder.indexOf(a.envId) - envOrder.indexOf(b.envId) || (a.seed ?? 0) - (b.seed ?? 0));
  return {
    id: row.id,
    label: row.label,
    suiteId: row.result.suite.id,
    agent: row.result.agent.spec,
    instructions,
    episodes,
  };
}

/** Reads a row's records (validated) into viewer data; undefined when the row has no records here. */
export function loadViewerRun(row: LeaderboardRow): ViewerRun | undefined {
  if (!row.recordsFile) return undefined;
  return buildViewerRun(row, readEpisodeRecords(row.recordsFile));
}

/** A data file the viewer loads with a <script> element (which works from file:// too, unlike fetch). */
export function renderViewerData(run: ViewerRun): string {
  return `(window.TURNGYM_RUNS = window.TURNGYM_RUNS || {})[${scriptJson(run.id)}] = ${scriptJson(run)};\n`;
}

/** The data file of a run, relative to the pages. */
export function viewerDataFile(runId: string): string {
  return `viewer-data/${runId}.js`;
}

const CSS = `${BASE_CSS}
body { height: 100vh; display: flex; flex-direction: column; }
.page-header { display: flex; align-items: center; gap: 18px; flex-wrap: wrap; padding: 12px 22px; }
.page-header h1 { font-size: 18px; }
.controls { display: flex; gap: 10px; flex-wrap: wrap; align-items: center; margin-left: auto; }
.controls label { font-size: 12px; color: #b7c3d1; display: flex; align-items: center; gap: 6px; }
.controls select { font: inherit; font-size: 13px; padding: 3px 6px; border-radius: 5px; border: 1px solid #44556a; background: #27384a; color: #f3f6fa; max-width: 320px; }
.layout { flex: 1; display: grid; grid-template-columns: 340px 1fr; min-height: 0; }
.episodes { overflow-y: auto; border-right: 1px solid var(--line); background: var(--card); }
.episodes .count { padding: 8px 14px; font-size: 12px; color: var(--muted); border-bottom: 1px solid var(--line); position: sticky; top: 0; background: var(--card); }
.episode-item { display: grid; grid-template-columns: 18px 1fr auto; gap: 8px; align-items: center; width: 100%; text-align: left;
  padding: 7px 14px; border: 0; border-bottom: 1px solid #f0f2f5; background: none; font: inherit; font-size: 13px; cursor: pointer; color: var(--ink); }
.episode-item:hover { background: #f3f7fc; }
.episode-item[aria-current="true"] { background: #e3eefa; box-shadow: inset 3px 0 0 var(--accent); }
.episode-item .mark { font-weight: 700; text-align: center; }
.episode-item .mark.good { color: var(--good); } .episode-item .mark.bad { color: var(--bad); } .episode-item .mark.warn { color: var(--warn); }
.episode-item .env { display: block; font-size: 11px; color: var(--muted); overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.episode-item .stats { font-size: 11px; color: var(--muted); text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
.detail { overflow-y: auto; padding: 18px 26px 40px; }
.detail h2 { margin: 0 0 6px; font-size: 18px; }
.summary { display: flex; gap: 6px; flex-wrap: wrap; margin-bottom: 14px; }
details.instructions { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 8px 12px; margin-bottom: 14px; }
details.instructions summary { cursor: pointer; font-weight: 600; font-size: 13px; }
pre { margin: 0; white-space: pre-wrap; word-break: break-word; font-family: var(--mono); font-size: 12.5px; line-height: 1.5; }
.message { border: 1px solid var(--line); border-radius: 8px; background: var(--card); margin: 0 0 10px; overflow: hidden; }
.message .role { font-size: 11px; font-weight: 700; letter-spacing: .4px; text-transform: uppercase; padding: 5px 12px; border-bottom: 1px solid var(--line);
  display: flex; gap: 8px; align-items: center; flex-wrap: wrap; }
.message pre { padding: 9px 12px; }
.message.task .role { background: #f1f3f6; color: #3c4756; }
.message.agent { margin-left: 34px; border-color: #c9dcf2; }
.message.agent .role { background: #eaf2fc; color: #1d4f86; }
.message.env .role { background: #f3f4f6; color: #4a5565; }
.message.env pre:empty::before { content: "(empty observation)"; color: var(--muted); font-style: italic; }
.message .feedback { padding: 7px 12px; border-top: 1px dashed #efd3a6; background: #fffaf2; color: #7a4a00; font-size: 12.5px; white-space: pre-wrap; }
.message .role .tag { text-transform: none; letter-spacing: 0; font-weight: 500; }
.turn-label { font-size: 11px; color: var(--muted); margin: 14px 0 6px; display: flex; align-items: center; gap: 8px; }
.turn-label::after { content: ""; flex: 1; border-top: 1px solid var(--line); }
.ending { margin-top: 14px; padding: 10px 12px; border-radius: 8px; font-weight: 600; }
.ending.good { background: #ecf8f1; color: var(--good); border: 1px solid #bfe3d0; }
.ending.bad { background: #fbefed; color: var(--bad); border: 1px solid #efc9c4; }
.ending.warn { background: #fdf5e8; color: var(--warn); border: 1px solid #f0d7b0; }
.empty { color: var(--muted); padding: 30px; }
`;

const SCRIPT = `
(function () {
  var RUNS = JSON.parse(document.getElementById('runs').textContent);
  var state = { run: null, env: '', outcome: '', episode: null };
  var byId = function (id) { return document.getElementById(id); };
  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }
  function tag(text, kind) { return el('span', 'tag' + (kind ? ' ' + kind : ''), text); }
  function fmt(value) { var t = Number(value).toFixed(2); return t.charAt(0) === '-' && Number(t) !== 0 ? '\\u2212' + t.slice(1) : t.replace(/^-/, ''); }
  // The hash is anyone's link: a part that is not valid percent-encoding is skipped, not thrown (that stopped the page).
  function decode(text) { try { return decodeURIComponent(text); } catch (error) { return null; } }
  // Run ids come from the hash too, so lookups take own keys only ("constructor" is not a run).
  function own(object, key) { return object && Object.prototype.hasOwnProperty.call(object, key) ? object[key] : undefined; }
  function parseHash() {
    var out = {};
    location.hash.replace(/^#/, '').split('&').forEach(function (part) {
      if (!part) return;
      var at = part.indexOf('=');
      var key = decode(at < 0 ? part : part.slice(0, at));
      var value = at < 0 ? '' : decode(part.slice(at + 1));
      if (key !== null && value !== null) out[key] = value;
    });
    return { run: own(out, 'run'), env: own(out, 'env'), outcome: own(out, 'outcome'), episode: own(out, 'episode') };
  }
  function writeHash() {
    var parts = [];
    if (state.run) parts.push('run=' + encodeURIComponent(state.run));
    if (state.env) parts.push('env=' + encodeURIComponent(state.env));
    if (state.outcome) parts.push('outcome=' + encodeURIComponent(state.outcome));
    if (state.episode) parts.push('episode=' + encodeURIComponent(state.episode));
    history.replaceState(null, '', '#' + parts.join('&'));
  }
  function outcomeOf(episode) { return episode.error ? 'errored' : episode.success ? 'success' : 'failure'; }
  function load(runId, done) {
    window.TURNGYM_RUNS = window.TURNGYM_RUNS || {};
    if (own(window.TURNGYM_RUNS, runId)) return done(own(window.TURNGYM_RUNS, runId));
    var info = RUNS.filter(function (run) { return run.id === runId; })[0];
    if (!info) return done(null);
    var script = document.createElement('script');
    script.src = info.file;
    script.onload = function () { done(own(window.TURNGYM_RUNS, runId) || null); };
    script.onerror = function () { done(null); };
    document.head.appendChild(script);
  }
  function visible(run) {
    return run.episodes.filter(function (episode) {
      return (!state.env || episode.envId === state.env) && (!state.outcome || outcomeOf(episode) === state.outcome);
    });
  }
  function renderControls(run) {
    var runSelect = byId('run');
    runSelect.innerHTML = '';
    RUNS.forEach(function (info) {
      var option = el('option', null, info.label + ' \\u00b7 ' + info.suiteId);
      option.value = info.id;
      option.selected = info.id === state.run;
      runSelect.appendChild(option);
    });
    var envSelect = byId('env');
    envSelect.innerHTML = '';
    var all = el('option', null, 'all envs'); all.value = ''; envSelect.appendChild(all);
    var envs = [];
    (run ? run.episodes : []).forEach(function (episode) { if (envs.indexOf(episode.envId) < 0) envs.push(episode.envId); });
    envs.forEach(function (envId) {
      var option = el('option', null, envId); option.value = envId; option.selected = envId === state.env; envSelect.appendChild(option);
    });
    byId('outcome').value = state.outcome;
  }
  function renderList(run) {
    var list = byId('episodes');
    list.innerHTML = '';
    var shown = visible(run);
    list.appendChild(el('div', 'count', shown.length + ' of ' + run.episodes.length + ' episodes \\u00b7 ' + run.agent));
    shown.forEach(function (episode) {
      var item = el('button', 'episode-item');
      item.type = 'button';
      item.setAttribute('data-episode', episode.id);
      if (episode.id === state.episode) item.setAttribute('aria-current', 'true');
      var outcome = outcomeOf(episode);
      item.appendChild(el('span', 'mark ' + (outcome === 'success' ? 'good' : outcome === 'errored' ? 'warn' : 'bad'),
        outcome === 'success' ? '\\u2713' : outcome === 'errored' ? '!' : '\\u2717'));
      var name = el('span', null, 'seed ' + episode.seed);
      name.appendChild(el('span', 'env', episode.envId));
      item.appendChild(name);
      item.appendChild(el('span', 'stats', episode.error ? episode.error.code : fmt(episode.totalReward) + ' \\u00b7 ' + episode.turns + ' turns'));
      item.addEventListener('click', function () { state.episode = episode.id; writeHash(); render(); });
      list.appendChild(item);
    });
  }
  function message(kind, title, text, tags) {
    var box = el('div', 'message ' + kind);
    var role = el('div', 'role', title);
    (tags || []).forEach(function (t) { role.appendChild(t); });
    box.appendChild(role);
    box.appendChild(el('pre', null, text));
    return box;
  }
  function renderDetail(run) {
    var detail = byId('detail');
    detail.innerHTML = '';
    var episode = run.episodes.filter(function (e) { return e.id === state.episode; })[0];
    if (!episode) { detail.appendChild(el('p', 'empty', 'Pick an episode on the left.')); return; }
    detail.appendChild(el('h2', null, episode.envId + ' \\u00b7 seed ' + episode.seed));
    var summary = el('div', 'summary');
    var outcome = outcomeOf(episode);
    summary.appendChild(tag(outcome, outcome === 'success' ? 'good' : outcome === 'errored' ? 'warn' : 'bad'));
    summary.appendChild(tag('reward ' + fmt(episode.totalReward)));
    summary.appendChild(tag(episode.turns + ' turns'));
    summary.appendChild(tag(episode.cost.toolCalls + ' tool calls'));
    if (episode.cost.llmTokens) summary.appendChild(tag(episode.cost.llmTokens + ' env tokens'));
    summary.appendChild(tag(run.label));
    summary.appendChild(tag(episode.id));
    detail.appendChild(summary);
    if (episode.instructions >= 0) {
      var details = el('details', 'instructions');
      details.appendChild(el('summary', null, 'System prompt (info.instructions)'));
      details.appendChild(el('pre', null, run.instructions[episode.instructions]));
      detail.appendChild(details);
    }
    if (episode.task) detail.appendChild(message('task', 'Task (first observation)', episode.task));
    episode.steps.forEach(function (step, index) {
      detail.appendChild(el('div', 'turn-label', 'Turn ' + (index + 1)));
      var agentTags = [];
      if (step.fingerprint) agentTags.push(tag(step.fingerprint));
      if (step.invalid) agentTags.push(tag('invalid action', 'bad'));
      detail.appendChild(message('agent', 'Agent', step.action, agentTags));
      var envTags = [tag('reward ' + fmt(step.reward), step.reward > 0 ? 'good' : step.reward < 0 ? 'bad' : '')];
      if (step.anchor) envTags.push(tag('at ' + step.anchor));
      if (step.terminated) envTags.push(tag('terminated'));
      if (step.truncated) envTags.push(tag('truncated', 'warn'));
      var box = message('env', 'Env', step.observation, envTags);
      if (step.feedback) box.appendChild(el('div', 'feedback', step.feedback));
      detail.appendChild(box);
    });
    var ending = episode.error
      ? el('div', 'ending warn', 'Errored (' + episode.error.code + '): ' + episode.error.message + ' \\u2014 excluded from the scores.')
      : el('div', 'ending ' + (episode.success ? 'good' : 'bad'),
          (episode.success ? 'Success' : 'No success') + ' \\u00b7 ' + (episode.truncated ? 'truncated' + (episode.truncatedBy ? ' (' + episode.truncatedBy + ')' : '') : 'terminated') +
          ' \\u00b7 total reward ' + fmt(episode.totalReward));
    detail.appendChild(ending);
  }
  function render() {
    var run = state.run && own(window.TURNGYM_RUNS, state.run);
    renderControls(run);
    if (!run) {
      byId('episodes').innerHTML = '';
      byId('detail').innerHTML = '';
      byId('detail').appendChild(el('p', 'empty', RUNS.length ? 'Loading…' : 'No run with records: run turngym bench first.'));
      return;
    }
    var shown = visible(run);
    if (!shown.some(function (e) { return e.id === state.episode; })) state.episode = shown.length ? shown[0].id : null;
    renderList(run);
    renderDetail(run);
  }
  function fromHash() {
    var hash = parseHash();
    state.run = hash.run || (RUNS[0] && RUNS[0].id) || null;
    state.env = hash.env || '';
    state.outcome = hash.outcome || '';
    state.episode = hash.episode || null;
    render();
    if (state.run) load(state.run, function (run) {
      if (!run) { byId('detail').innerHTML = ''; byId('detail').appendChild(el('p', 'empty', 'Could not load the records of ' + state.run + '.')); return; }
      render();
      writeHash();
    });
  }
  byId('run').addEventListener('change', function (event) { state.run = event.target.value; state.env = ''; state.episode = null; writeHash(); fromHash(); });
  byId('env').addEventListener('change', function (event) { state.env = event.target.value; state.episode = null; writeHash(); render(); });
  byId('outcome').addEventListener('change', function (event) { state.outcome = event.target.value; state.episode = null; writeHash(); render(); });
  window.addEventListener('hashchange', fromHash);
  fromHash();
})();
`;

/** The rollout viewer: one static page; each run's episodes come from its data file, loaded on demand. */
export function renderViewerPage(
  runs: readonly { id: string; label: string; suiteId: string; file: string }[],
  options: { title?: string; leaderboard?: string } = {},
): string {
  const title = options.title ?? 'TurnGym rollout viewer';
  const back = options.leaderboard ? `<a href="${escapeHtml(options.leaderboard)}">← Leaderboard</a>` : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
${GENERATOR_META}
${contentSecurityPolicy([SCRIPT], { self: true })}
<title>${escapeHtml(title)}</title>
<style>${CSS}</style>
<script type="application/json" id="runs">${scriptJson(runs)}</script>
</head>
<body>
<header class="page-header"><h1>${escapeHtml(title)}</h1><span class="meta">${back}</span>
<div class="controls">
<label>run <select id="run"></select></label>
<label>env <select id="env"></select></label>
<label>outcome <select id="outcome"><option value="">all</option><option value="success">success</option><option value="failure">failure</option><option value="errored">errored</option></select></label>
</div></header>
<div class="layout"><nav class="episodes" id="episodes" aria-label="Episodes"></nav><section class="detail" id="detail" aria-live="polite"></section></div>
<script>${SCRIPT}</script>
</body>
</html>
`;
}

/** Rows of the boards that have records here, in page order. */
export function viewerRows(boards: readonly SuiteBoard[]): LeaderboardRow[] {
  return boards.flatMap((board) => board.rows.filter((row) => row.recordsFile !== null));
}
