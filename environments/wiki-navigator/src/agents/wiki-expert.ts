import type { Action, Agent, AgentEpisodeStart, Env, Info } from '@turngym/spec';
import { withoutMarkers } from '../navigation/observation';
import type { WikiTask } from '../tasks/wiki-task';
import type { WikiNavigatorEnv } from '../wiki-navigator-env';

/**
 * The page title in an observation's window header: `--- Morrow Bay (place) · lines 1–30 of 42 ---`, or the
 * compact style's `# Morrow Bay`.
 */
export function pageTitleOf(observation: string): string | undefined {
  const header = /^--- (.*?)(?: \(([^()]*)\))? · lines /m.exec(observation) ?? /^# (.*)$/m.exec(observation);
  return header?.[1];
}

/** Visible link markers of an observation: target label → number. */
export function visibleLinks(observation: string): Map<string, number> {
  const links = new Map<string, number>();
  for (const match of observation.matchAll(/\[#(\d+) ([^\]]*)\]/g)) {
    const label = match[2] as string;
    if (!links.has(label)) links.set(label, Number(match[1]));
  }
  return links;
}

const YEAR = /\b(1\d{3}|20\d{2})\b/;

function numberIn(value: string, prefer: 'smaller' | 'larger'): number {
  if (prefer === 'smaller') return Number(YEAR.exec(value)?.[1] ?? Number.NaN);
  return Number((/^-?[\d,]+(\.\d+)?/.exec(value.trim())?.[0] ?? 'NaN').replace(/,/g, ''));
}

/**
 * The scripted expert (privileged: it knows the task's gold path and which infobox fields to read, through
 * `env.unwrapped`). It still reads every fact from the observations — the page must show it — and acts only
 * through the tools: NAVIGATE to the first article, CLICK along the path (NAVIGATE when the next article is
 * not linked, as between the two sides of a comparison), SAVE_LINE_IDS the evidence lines, SUBMIT the value
 * read (or the winner of a comparison). Races: CLICK along the shortest path. A task file's question (no
 * evidence fields) is answered with its first gold answer once its gold articles are open.
 *
 * With compact observations (whose tools are SEARCH, NAVIGATE, CLICK, BACK, SUBMIT) it saves no notes — the
 * agent's context holds every page it read — and clicks links by label: every action then copies a name the
 * observation or the question shows, which is what a small model warm-started on these episodes imitates.
 */
export class WikiExpert implements Agent<string, Action> {
  readonly name = 'scripted';
  private task: WikiTask | undefined;
  private readings = new Map<string, string>();
  private saved = new Set<string>();
  private searched = new Set<string>();
  private visited = new Set<string>();
  private compact = false;

  constructor(private readonly env: Env<string, Action>) {}

  async start(episode: AgentEpisodeStart<string>): Promise<void> {
    const navigator = (this.env.unwrapped ?? this.env) as WikiNavigatorEnv;
    const id = episode.info.taskId;
    this.task = typeof id === 'string' ? navigator.taskById(id) : undefined;
    if (!this.task) throw new Error('WikiExpert: the reset info carries no known taskId');
    this.compact = navigator.options.observation === 'compact';
    this.readings = new Map();
    this.saved = new Set();
    this.searched = new Set();
    this.visited = new Set();
  }

  async act(observation: string, _info: Info): Promise<Action> {
    const task = this.task as WikiTask;
    if (task.goldPath.length === 0) return this.finish(task); // a task file's question with no gold articles
    const title = pageTitleOf(observation);
    if (title !== undefined) this.visited.add(title);
    const position = title === undefined ? -1 : task.goldPath.lastIndexOf(title);
    if (position < 0) {
      // Not on the path (QA start, or somewhere unexpected): open the first article not read yet.
      const next = task.goldPath.find((page) => !this.pageDone(page)) ?? (task.goldPath[0] as string);
      return `NAVIGATE(${next})`;
    }
    const here = task.goldPath[position] as string;
    for (const evidence of task.evidence) {
      if (evidence.title !== here || evidence.role === 'bridge') continue;
      const key = `${evidence.title}\u0000${evidence.field}`;
      if (this.readings.has(key)) continue;
      // Full lines are numbered (`L4 Born: 1843`); compact ones are not (the group then matches nothing).
      const number = this.compact ? '()' : 'L(\\d+) ';
      const line = new RegExp(`^${number}${escapeRegExp(evidence.field)}: (.*)$`, 'm').exec(observation);
      if (!line) {
        // Not on the page at all: give up on this field (a compact page is shown whole: nothing to find).
        if (this.compact || this.searched.has(key)) continue;
        this.searched.add(key);
        return `FIND(${evidence.field}:)`;
      }
      if (!this.compact && !this.saved.has(key)) {
        this.saved.add(key);
        return `SAVE_LINE_IDS(${line[1]})`;
      }
      const value = line[2] as string;
      this.readings.set(key, (this.compact ? value.replace(/\[([^\]]*)\]/g, '$1') : withoutMarkers(value)).trim());
    }
    if (position === task.goldPath.length - 1) return this.finish(task);
    const next = task.goldPath[position + 1] as string;
    if (
      task.kind === 'race' ||
      task.evidence.some((evidence) => evidence.title === here && evidence.role === 'bridge')
    ) {
      const number = this.compact ? undefined : visibleLinks(observation).get(next);
      return number === undefined ? `CLICK(${next})` : `CLICK(${number})`;
    }
    return `NAVIGATE(${next})`;
  }

  private pageDone(page: string): boolean {
    const task = this.task as WikiTask;
    if (!this.visited.has(page)) return false;
    return task.evidence
      .filter((evidence) => evidence.title === page && evidence.role !== 'bridge')
      .every((evidence) => this.readings.has(`${evidence.title}\u0000${evidence.field}`));
  }

  private finish(task: WikiTask): Action {
    // A task file names the gold articles but not the fields that hold the answer: the expert opens them in
    // order (a navigation demonstration) and submits the gold answer.
    if (task.evidence.length === 0) return `SUBMIT(${task.answers[0] ?? ''})`;
    if (task.kind === 'comparison') {
      const [first, second] = task.evidence.filter((evidence) => evidence.role === 'compare');
      const prefer = task.prefer ?? 'larger';
      const value = (evidence: typeof first): number =>
        numberIn(this.readings.get(`${evidence?.title}\u0000${evidence?.field}`) ?? '', prefer);
      const a = value(first);
      const b = value(second);
      const firstWins = prefer === 'smaller' ? a < b : a > b;
      return `SUBMIT(${(firstWins ? first : second)?.title ?? ''})`;
    }
    const answer = task.evidence.find((evidence) => evidence.role === 'answer');
    return `SUBMIT(${answer ? (this.readings.get(`${answer.title}\u0000${answer.field}`) ?? '') : ''})`;
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
