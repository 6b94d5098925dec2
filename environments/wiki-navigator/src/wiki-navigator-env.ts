import {
  BaseEnv,
  EnvClosedError,
  InvalidOptionsError,
  mixSeed,
  parseToolCall,
  SeededRng,
  type EnvResetOutcome,
  type EnvStepOutcome,
} from '@turngym/core';
import type { Action, Env, EnvSpec, Info, ToolCall, ToolSpec } from '@turngym/spec';
import type { BrowserPool } from './browser/browser-pool';
import { retainSharedBrowserPool } from './browser/shared-browser-pool';
import { articlePath, decodePercentEscapes } from './corpus/article';
import { releaseCorpus, retainCorpus, shareCorpus } from './corpus/load-corpus';
import type { WikiCorpus } from './corpus/wiki-corpus';
import { parseLineRanges } from './navigation/line-ranges';
import {
  formatCompactObservation,
  formatObservation,
  withoutMarkers,
  type LoadedPage,
  type Note,
} from './navigation/observation';
import { shownPage } from './navigation/shown-page';
import { firstCodePoints } from './corpus/well-formed-text';
import type { PageLink } from './page/extract-page';
import { BrowserPageLoader, DirectPageLoader, PageCache, type PageLoader } from './page/page-loader';
import {
  acquireCorpusServer,
  MAX_QUERY_LENGTH,
  type CorpusServer,
  type CorpusServerLease,
} from './server/corpus-server';
import { exactMatch, tokenF1 } from './tasks/answer-metrics';
import { describeTaskCounts, taskSourceFor, type TaskSelection } from './tasks/task-bank';
import { readTaskFile } from './tasks/task-file';
import type { TaskKind, WikiTask } from './tasks/wiki-task';
import { validateWikiNavigatorOptions, type WikiNavigatorOptions } from './wiki-navigator-options';
import {
  COMPACT_QA_EXAMPLES,
  COMPACT_QA_TOOLS,
  compactQaInstructions,
  QA_EXAMPLES,
  QA_TOOLS,
  qaInstructions,
  RACE_EXAMPLES,
  RACE_TOOLS,
  raceInstructions,
} from './wiki-tools';

/** Plain dependencies (DESIGN §4: no decorators in envs). */
export interface WikiNavigatorDependencies {
  /**
   * A browser pool shared by many envs; its owner closes it. Without one, browser-mode envs share a
   * process-wide pool that the last env's `close()` shuts down.
   */
  readonly browserPool?: BrowserPool;
}

/** Longest FIND text: beyond it a "search" is a paste, not a lookup. */
export const MAX_FIND_LENGTH = 200;
/** Notes kept at most (lines); the observation shows them all. */
export const MAX_NOTES = 40;
/** The QA id whose observations are compact (`observation: "compact"`). */
export const WIKI_QA_COMPACT_ID = 'turngym/wiki-qa-compact-v1';

interface HistoryEntry {
  readonly page: LoadedPage;
  readonly top: number;
}

/** Everything an episode changes; a fork copies it (pages are immutable and shared). */
interface NavigationState {
  page: LoadedPage | undefined;
  top: number;
  history: HistoryEntry[];
  notes: Note[];
  toolCalls: number;
  findCursor: { text: string; line: number } | undefined;
  visited: string[];
}

interface Transition {
  feedback: string[];
  /** A confirmation the compact observation leaves out: the page it opened shows what happened. */
  quiet?: boolean;
  reward: number;
  terminated: boolean;
  info: Info;
}

const pageCaches = new WeakMap<CorpusServer, PageCache>();

/** One cache per running server (that is, per corpus), shared by its direct-mode envs; the largest capacity asked wins. */
function pageCacheFor(server: CorpusServer, capacity: number): PageCache {
  let cache = pageCaches.get(server);
  if (!cache || cache.capacity < capacity) {
    cache = new PageCache(capacity);
    pageCaches.set(server, cache);
  }
  return cache;
}

const freshState = (): NavigationState => ({
  page: undefined,
  top: 1,
  history: [],
  notes: [],
  toolCalls: 0,
  findCursor: undefined,
  visited: [],
});

const copyState = (state: NavigationState): NavigationState => ({
  ...state,
  history: state.history.slice(),
  notes: state.notes.slice(),
  visited: state.visited.slice(),
  findCursor: state.findCursor ? { ...state.findCursor } : undefined,
});

function quote(text: string, max = 60): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const cut = firstCodePoints(flat, max - 1);
  return `"${cut.length < flat.length ? `${cut}…` : flat}"`;
}

/**
 * A search-and-read agent's web browser over an offline encyclopedia (`turngym/wiki-qa-v1`,
 * `turngym/wiki-race-v1`).
 *
 * Pages come from a local HTTP corpus server; in `browser` mode Chromium loads them (Puppeteer, a shared page
 * pool), in `direct` mode a light DOM parses the same HTML, and one extraction function turns either DOM into
 * numbered lines with link markers. The navigation state (page, window, history, notes, budget) lives here,
 * not in a tab, so `fork()` is a native snapshot with no browser replay.
 */
export class WikiNavigatorEnv extends BaseEnv<string, Action> {
  readonly spec: EnvSpec;
  readonly options: WikiNavigatorOptions;
  private readonly dependencies: WikiNavigatorDependencies;
  private readonly tools: readonly ToolSpec[];
  private readonly instructions: string;
  private loadedCorpus: WikiCorpus | undefined;
  /** The corpus this env counts itself a user of until `close()` (a store's handle is closed after its last). */
  private retainedCorpus: WikiCorpus | undefined;
  private taskPool: TaskSelection | undefined;

  private lease: CorpusServerLease | undefined;
  private leasing: Promise<CorpusServerLease> | undefined;
  private retainedPool: BrowserPool | undefined;
  private loader: PageLoader | undefined;

  private task: WikiTask | undefined;
  private state: NavigationState = freshState();

  constructor(options: Partial<WikiNavigatorOptions> = {}, dependencies: WikiNavigatorDependencies = {}) {
    super();
    this.options = validateWikiNavigatorOptions(options);
    if (this.options.minHops > this.options.maxHops) {
      throw new InvalidOptionsError('turngym/wiki-navigator', [
        `options.minHops (${this.options.minHops}) must not exceed options.maxHops (${this.options.maxHops})`,
      ]);
    }
    const race = this.options.task === 'race';
    const compact = this.options.observation === 'compact';
    if (race && compact) {
      // A race is won through body links and back-link lists, which a compact page leaves out.
      throw new InvalidOptionsError('turngym/wiki-navigator', [
        'options.observation "compact" is for QA (task "qa"); races need the full page: use "full"',
      ]);
    }
    this.dependencies = dependencies;
    this.tools = race ? RACE_TOOLS : compact ? COMPACT_QA_TOOLS : QA_TOOLS;
    const { toolBudget, windowLines, formatPenalty } = this.options;
    this.instructions = race
      ? raceInstructions(toolBudget, windowLines, formatPenalty)
      : compact
        ? compactQaInstructions(toolBudget, formatPenalty)
        : qaInstructions(toolBudget, windowLines, formatPenalty);
    this.spec = {
      specificationVersion: 'v1',
      id: race ? 'turngym/wiki-race-v1' : compact ? WIKI_QA_COMPACT_ID : 'turngym/wiki-qa-v1',
      summary: race
        ? 'Reach a target article from a start article by clicking links in an offline encyclopedia.'
        : compact
          ? 'Answer a (multi-hop) question by reading an offline encyclopedia, shown compactly (title and infobox).'
          : 'Answer a (multi-hop) question by searching and reading an offline encyclopedia in a browser.',
      observationSpace: { type: 'text' },
      actionSpace: {
        type: 'tools',
        tools: this.tools,
        examples: race ? RACE_EXAMPLES : compact ? COMPACT_QA_EXAMPLES : QA_EXAMPLES,
      },
      tools: this.tools,
      maxTurns: toolBudget,
      rewardRange: [-formatPenalty, 1],
      docs: race ? RACE_DOCS : compact ? COMPACT_QA_DOCS : QA_DOCS,
      packageName: PACKAGE.name,
      packageVersion: PACKAGE.version,
    };
    // A corpus file or a task file is the user's: find out now, not at the first reset(), when it yields no
    // task for these options (the synthetic world always yields some, and stays lazy).
    if (this.options.corpus !== 'synthetic' || this.options.tasks !== undefined) {
      try {
        this.checkTasks();
      } catch (error) {
        // No env comes of it, so none will close(): the store it opened is let go of here.
        if (this.retainedCorpus) releaseCorpus(this.retainedCorpus);
        this.retainedCorpus = undefined;
        throw error;
      }
    }
  }

  /** The corpus (built or read on first use, then shared by every env with the same corpus options). */
  get corpus(): WikiCorpus {
    if (!this.loadedCorpus) {
      this.loadedCorpus = retainCorpus(this.options);
      // Read after close(), it is let go of at once: close() has run and will not again.
      if (this.isClosed) releaseCorpus(this.loadedCorpus);
      else this.retainedCorpus = this.loadedCorpus;
    }
    return this.loadedCorpus;
  }

  /** The current task (privileged: the scripted expert and analysis read it; agents must not). */
  get currentTask(): WikiTask | undefined {
    return this.task;
  }

  /** A task of this env's corpus by id (privileged). */
  taskById(id: string): WikiTask | undefined {
    if (this.options.tasks === undefined) return taskSourceFor(this.corpus).get(id);
    return this.userTasks().find((task) => task.id === id);
  }

  /**
   * The tasks `reset()` draws from with these options, in the order the seed indexes them. On an on-disk
   * store this reads every one of them: `taskCount()` and `reset()` do not.
   */
  availableTasks(): readonly WikiTask[] {
    const pool = this.taskSelection();
    return Array.from({ length: pool.size }, (_, index) => pool.at(index));
  }

  /** How many tasks `reset()` draws from. */
  taskCount(): number {
    return this.taskSelection().size;
  }

  /** The tasks these options select (computed once: the options and the corpus are fixed). */
  private taskSelection(): TaskSelection {
    if (!this.taskPool) {
      const kinds: TaskKind[] = this.options.task === 'race' ? ['race'] : this.options.questionTypes;
      const filter = { kinds, split: this.options.split, minHops: this.options.minHops, maxHops: this.options.maxHops };
      if (this.options.tasks === undefined) {
        this.taskPool = taskSourceFor(this.corpus).select(filter);
      } else {
        const tasks = this.userTasks().filter(
          (task) =>
            kinds.includes(task.kind) &&
            task.split === filter.split &&
            task.hops >= filter.minHops &&
            task.hops <= filter.maxHops,
        );
        this.taskPool = { size: tasks.length, at: (index) => tasks[index] as WikiTask };
      }
    }
    return this.taskPool;
  }

  /** Every task of the task file (`options.tasks`), checked against the corpus. */
  private userTasks(): readonly WikiTask[] {
    return readTaskFile(this.options.tasks as string, this.corpus, { unknownTitles: this.options.unknownTitles });
  }

  /** Throws, naming the options that would help, when these options leave no task to draw. */
  private checkTasks(): void {
    if (this.taskCount() > 0) return;
    // Counted, not read: a store's 900,000 tasks would be parsed into memory to say how many there are.
    const all = this.options.tasks === undefined ? { counts: taskSourceFor(this.corpus).counts() } : this.userTasks();
    const what = this.options.task === 'race' ? 'race' : `question of types ${this.options.questionTypes.join(', ')}`;
    const other = this.options.split === 'train' ? 'test' : 'train';
    throw new InvalidOptionsError(this.spec.id, [
      `no ${this.options.split} ${what} with ${this.options.minHops}–${this.options.maxHops} hops in ${this.options.tasks ?? this.corpus.description.name}; it has ${describeTaskCounts(all)}. Use options.split "${other}", other questionTypes or hops where there are some, or pose your own with options.tasks (a task file: see the README, "Your own tasks"); \`turngym-wiki-convert --stats\` prints a corpus's counts`,
    ]);
  }

  /** The page open now (undefined before the first page of a QA episode). */
  get currentPage(): LoadedPage | undefined {
    return this.state.page;
  }

  protected async onReset(
    seed: number,
    options: Record<string, unknown> | undefined,
  ): Promise<EnvResetOutcome<string>> {
    const task = this.chooseTask(seed, options);
    const state = freshState();
    if (task.kind === 'race') {
      state.page = await this.load(articlePath(task.start as string));
      state.visited.push(state.page.view.title);
    }
    this.task = task;
    this.state = state;
    return {
      observation: this.observe([], true),
      instructions: this.instructions,
      info: {
        taskId: task.id,
        taskKind: task.kind,
        hops: task.hops,
        split: task.split,
        toolCallsLeft: this.options.toolBudget,
      },
    };
  }

  protected async onStep(action: Action): Promise<EnvStepOutcome<string>> {
    const transition = await this.transition(action as string | ToolCall);
    this.state.toolCalls += 1;
    const task = this.task as WikiTask;
    let { reward } = transition;
    const { terminated } = transition;
    const info: Info = { ...transition.info };
    let truncated = false;
    const feedback = transition.quiet && this.options.observation === 'compact' ? [] : transition.feedback;
    if (!terminated && this.state.toolCalls >= this.options.toolBudget) {
      truncated = true;
      info.truncatedBy = 'tool-calls';
      if (task.kind !== 'race') {
        reward = -this.options.formatPenalty; // ended without an answer (ALGORITHMS.md §0)
        feedback.push(`Out of tool calls without an answer. The episode is over (reward ${reward}).`);
      } else {
        feedback.push(`Out of tool calls before reaching "${task.target}". The episode is over.`);
      }
    }
    if (terminated || truncated) {
      info.success ??= false;
      info.goldAnswers = [...task.answers];
      info.goldPath = [...task.goldPath];
    }
    info.page = this.state.page?.view.title ?? null;
    info.toolCallsLeft = this.options.toolBudget - this.state.toolCalls;
    return { observation: this.observe(feedback), reward, terminated, truncated, info, toolCalls: 1 };
  }

  /** A native snapshot: same task, page, window, history, notes and budget; no page is reloaded. */
  override async fork(): Promise<Env<string, Action>> {
    if (this.isClosed) throw new EnvClosedError(this.spec.id);
    const twin = this.spawn();
    this.copyEpisodeStateTo(twin);
    twin.task = this.task;
    twin.state = copyState(this.state);
    return twin;
  }

  /**
   * The action type and its abstract target, evaluated against the current state: `SEARCH`,
   * `NAVIGATE(person)` (the target's article type, or `missing`), `CLICK(infobox)` (where the link sits:
   * infobox, lead, body, results; `none` if there is no such link), `FIND`, `SCROLL`, `SAVE_LINE_IDS`, `BACK`,
   * `SUBMIT`, or `INVALID`.
   */
  fingerprint(action: Action): string {
    if (typeof action !== 'string' && (typeof action !== 'object' || action === null)) return 'INVALID';
    const parsed = parseToolCall(action as string | ToolCall, this.tools);
    if (!parsed.ok) return 'INVALID';
    const { name, arguments: args } = parsed.call;
    if (name === 'NAVIGATE') return `NAVIGATE(${this.corpus.get(String(args.title))?.type ?? 'missing'})`;
    if (name === 'CLICK') return `CLICK(${this.findLink(String(args.link))?.region ?? 'none'})`;
    return name;
  }

  /** The abstract location: `<article type>#<section at the top of the window>`, e.g. `person#early-life`. */
  anchor(): string {
    const page = this.state.page;
    if (!page) return 'start#question';
    const line = page.view.lines[this.state.top - 1];
    return `${page.view.type}#${line?.section ?? 'empty'}`;
  }

  protected spawn(): WikiNavigatorEnv {
    const twin = new WikiNavigatorEnv(this.options, this.dependencies);
    // The parent's version of a store, even if the file was rebuilt since: the twin uses it, and lets go of the
    // one its constructor opened.
    const corpus = this.loadedCorpus;
    if (corpus && twin.retainedCorpus !== corpus) {
      shareCorpus(corpus);
      if (twin.retainedCorpus) releaseCorpus(twin.retainedCorpus);
      twin.retainedCorpus = corpus;
    }
    twin.loadedCorpus = corpus ?? twin.loadedCorpus;
    twin.taskPool = this.taskPool;
    return twin;
  }

  protected override async onClose(): Promise<void> {
    this.loader = undefined;
    const pool = this.retainedPool;
    this.retainedPool = undefined;
    const leasing = this.leasing;
    this.leasing = undefined;
    this.lease = undefined;
    if (pool) await pool.release();
    if (leasing) await (await leasing.catch(() => undefined))?.release();
    // After the server's lease: the corpus server stops with its last lease, and reads the corpus until then.
    const corpus = this.retainedCorpus;
    this.retainedCorpus = undefined;
    if (corpus) releaseCorpus(corpus);
  }

  private chooseTask(seed: number, options: Record<string, unknown> | undefined): WikiTask {
    const unknown = Object.keys(options ?? {}).filter((key) => key !== 'taskId');
    if (unknown.length > 0)
      throw new InvalidOptionsError(`${this.spec.id} reset()`, [
        `options has unknown field "${unknown[0]}"; allowed fields: taskId`,
      ]);
    const taskId = options?.taskId;
    if (taskId !== undefined) {
      const task = typeof taskId === 'string' ? this.taskById(taskId) : undefined;
      const expected = this.options.task === 'race' ? 'race' : 'question';
      if (!task || (task.kind === 'race') !== (this.options.task === 'race')) {
        throw new InvalidOptionsError(`${this.spec.id} reset()`, [
          `options.taskId: no ${expected} task ${JSON.stringify(taskId)} in this corpus`,
        ]);
      }
      return task;
    }
    const tasks = this.taskSelection();
    if (tasks.size === 0) this.checkTasks();
    // A stream of its own for the task choice, so it never depends on other draws from the episode's rng
    // (`int(0, size − 1)` draws the index `pick` would).
    return tasks.at(new SeededRng(mixSeed('wiki-navigator-task', seed)).int(0, tasks.size - 1));
  }

  /** The observation after reset (`first`) or a step; the compact style states the question only once. */
  private observe(feedback: readonly string[], first = false): string {
    const task = this.task as WikiTask;
    const compact = this.options.observation === 'compact';
    return (compact ? formatCompactObservation : formatObservation)({
      header: task.kind === 'race' ? `Race: ${task.question}` : compact && !first ? '' : `Question: ${task.question}`,
      feedback,
      page: this.state.page,
      top: this.state.top,
      windowLines: this.options.windowLines,
      notes: this.state.notes,
      toolCallsLeft: this.options.toolBudget - this.state.toolCalls,
      toolBudget: this.options.toolBudget,
    });
  }

  private async ensureLoader(): Promise<PageLoader> {
    if (this.loader) return this.loader;
    this.leasing ??= acquireCorpusServer(this.corpus);
    const lease = await this.leasing;
    if (this.isClosed) throw new EnvClosedError(this.spec.id);
    this.lease = lease;
    const origin = (): string => lease.server.origin;
    if (this.options.mode === 'browser') {
      let pool = this.dependencies.browserPool;
      if (!pool) {
        pool = retainSharedBrowserPool({
          size: this.options.poolSize,
          taskTimeoutMs: this.options.pageTimeoutMs,
          ...(this.options.executablePath ? { executablePath: this.options.executablePath } : {}),
        });
        this.retainedPool = pool;
      }
      this.loader = new BrowserPageLoader(pool, origin);
    } else {
      this.loader = new DirectPageLoader(
        origin,
        this.options.pageTimeoutMs,
        this.options.pageCache > 0 ? pageCacheFor(lease.server, this.options.pageCache) : undefined,
        (path) => lease.server.page(path).html,
      );
    }
    return this.loader;
  }

  private async load(path: string): Promise<LoadedPage> {
    const loader = await this.ensureLoader();
    const view = await loader.load(path);
    return { path, view: shownPage(view, this.options) };
  }

  /**
   * The link a CLICK argument means: `3` / `#3`, else a label (case-insensitive), else a title. A number that names
   * no link is read as a label too: a year link `[#5 1843]` (common in a real wiki's dates) was out of reach as
   * `CLICK(1843)`, "no link", while the agent read it on the page. The compact style shows no numbers, so there a
   * label `[3]` comes before the third link. A link copied whole, `[#7 the river]` (brackets or not), is link 7
   * when that is its label: it was the first link labelled "the river", another page than the one the agent chose.
   */
  private findLink(argument: string): (PageLink & { number: number }) | undefined {
    const page = this.state.page;
    if (!page) return undefined;
    const links = page.view.links;
    const text = argument.trim();
    const compact = this.options.observation === 'compact';
    // No two parts of the pattern take the same characters (a label holds no bracket): linear on any argument.
    const written = compact ? null : /^\[?#(\d+) ([^\][]*)\]?$/.exec(text);
    if (written) {
      const number = Number(written[1]);
      const wanted = (written[2] as string).trim().normalize('NFC').toLowerCase();
      const link = links[number - 1];
      const label = link?.labels.find((candidate) => candidate.normalize('NFC').toLowerCase() === wanted);
      if (link && label !== undefined) return { ...link, label, number };
    }
    const numbered = /^\[?#?(\d+)\]?$/.exec(text);
    const byNumber = (): (PageLink & { number: number }) | undefined => {
      if (!numbered) return undefined;
      const number = Number(numbered[1]);
      const link = links[number - 1];
      return link ? { ...link, number } : undefined;
    };
    if (compact) return this.linkByText(links, text) ?? byNumber();
    return byNumber() ?? this.linkByText(links, text);
  }

  /** The link labelled `text` (case-insensitive), else the link whose target is the article `text` names. */
  private linkByText(links: readonly PageLink[], text: string): (PageLink & { number: number }) | undefined {
    // The compact style writes links as [label]; an agent may copy the brackets too.
    const unbracketed = this.options.observation === 'compact' ? /^\[([^\]]*)\]$/.exec(text)?.[1] : undefined;
    const lower = (unbracketed ?? withoutMarkers(text)).toLowerCase();
    let index = -1;
    let label: string | undefined;
    for (let i = 0; i < links.length && index < 0; i++) {
      // A corpus's text need not be NFC (its titles are made so): the label is compared as the action was.
      label = (links[i] as PageLink).labels.find((text) => text.normalize('NFC').toLowerCase() === lower);
      if (label !== undefined) index = i;
    }
    if (index < 0) {
      const resolved = this.corpus.resolve(unbracketed ?? text);
      index = links.findIndex(
        (link) =>
          link.target.toLowerCase() === lower ||
          (resolved !== undefined && this.corpus.resolve(link.target) === resolved),
      );
    }
    // Named by one of its texts, the link is reported with that text (`Followed [#4 his wife]`).
    return index >= 0 ? { ...(links[index] as PageLink), ...(label ? { label } : {}), number: index + 1 } : undefined;
  }

  /** Opens a page: the old one goes on the history, the window goes to the top. */
  private open(page: LoadedPage): void {
    if (this.state.page) this.state.history.push({ page: this.state.page, top: this.state.top });
    this.state.page = page;
    this.state.top = 1;
    this.state.findCursor = undefined;
    if (page.view.kind === 'article') this.state.visited.push(page.view.title);
  }

  private ordinary(feedback: string, info: Info = {}, quiet = false): Transition {
    return { feedback: [feedback], reward: 0, terminated: false, info: { ...info, feedback }, quiet };
  }

  private invalid(feedback: string): Transition {
    return {
      feedback: [`Invalid action: ${feedback}`],
      reward: -this.options.formatPenalty,
      terminated: false,
      info: { invalidAction: true, feedback },
    };
  }

  /** What one call does. A page load that fails twice throws `EnvFaultError` with the state untouched. */
  private async transition(action: string | ToolCall): Promise<Transition> {
    const parsed = parseToolCall(action, this.tools);
    if (!parsed.ok) return this.invalid(parsed.feedback);
    const { name } = parsed.call;
    // Made well-formed once, here, so that no action can reach `encodeURIComponent` with a lone surrogate; and
    // NFC, as the corpus's titles are, so that `Café` typed with a combining accent finds the same page and text.
    const args = Object.fromEntries(
      Object.entries(parsed.call.arguments).map(([key, value]) => [
        key,
        typeof value === 'string' ? value.toWellFormed().normalize('NFC') : value,
      ]),
    );
    const task = this.task as WikiTask;
    const page = this.state.page;
    const needsPage = name === 'CLICK' || name === 'FIND' || name === 'SCROLL' || name === 'SAVE_LINE_IDS';
    if (needsPage && !page)
      return this.ordinary(`${name}: no page is open yet. Open one with SEARCH(query) or NAVIGATE(title).`);

    switch (name) {
      case 'SEARCH': {
        let query = String(args.query).replace(/\s+/g, ' ').trim();
        if (!query) return this.ordinary('SEARCH needs words to look for, e.g. SEARCH(Glass Orchard).');
        const notes: string[] = [];
        const cut = firstCodePoints(query, MAX_QUERY_LENGTH);
        if (cut !== query) {
          query = cut;
          notes.push(`(query cut to its first ${MAX_QUERY_LENGTH} characters)`);
        }
        const results = await this.load(`/search?q=${encodeURIComponent(query)}`);
        this.open(results);
        const count = results.view.links.length;
        return this.ordinary(
          `SEARCH ${quote(query)}: ${count === 0 ? 'no results' : `${count} results`}${notes.length ? ` ${notes.join(' ')}` : ''}.`,
          {},
          notes.length === 0,
        );
      }
      case 'NAVIGATE': {
        const requested = String(args.title);
        // `Paris#History` (a link's target, a URL's end) opens Paris, as the wiki does: no title holds a `#`.
        const resolve = (text: string): string | undefined => {
          const hash = text.indexOf('#');
          return this.corpus.resolve(text) ?? (hash > 0 ? this.corpus.resolve(text.slice(0, hash)) : undefined);
        };
        // A title copied from a URL (`Caf%C3%A9`, `New%20York`), when it is no title as written (`100%` is one).
        const unescaped = decodePercentEscapes(requested);
        const title = resolve(requested) ?? (unescaped !== requested ? resolve(unescaped) : undefined);
        if (title === undefined) {
          // Cut like a search: fuzzy matching allocates the square of a word's length (a 50,000-letter title: 2.5 GB).
          const similar = requested.trim()
            ? this.corpus.similarTitles(firstCodePoints(requested, MAX_QUERY_LENGTH), 5)
            : [];
          return this.ordinary(
            `NAVIGATE: no article titled ${quote(requested)}.${similar.length > 0 ? ` Similar titles: ${similar.join('; ')}.` : ''}`,
          );
        }
        const opened = await this.load(articlePath(title));
        this.open(opened);
        return this.ordinary(`Opened ${quote(opened.view.title, 100)}.`, {}, true);
      }
      case 'CLICK': {
        const link = this.findLink(String(args.link));
        const compact = this.options.observation === 'compact';
        if (!link) {
          return this.ordinary(
            `CLICK: no link ${quote(String(args.link))} on this page. ${compact ? 'Links look like [Morrow Bay]: CLICK(Morrow Bay).' : 'Links look like [#3 Morrow Bay]: CLICK(3) or CLICK(Morrow Bay).'}`,
          );
        }
        const target = this.corpus.resolve(link.target);
        if (target === undefined)
          return this.ordinary(
            `CLICK: ${compact ? `[${link.label}]` : `[#${link.number} ${link.label}]`} leads to ${quote(link.target)}, which has no article (a red link).`,
          );
        const opened = await this.load(articlePath(target));
        this.open(opened);
        if (task.kind === 'race' && opened.view.title === task.target) {
          const feedback = `Followed [#${link.number} ${link.label}] and reached the target ${quote(task.target as string, 100)}. You win!`;
          return { feedback: [feedback], reward: 1, terminated: true, info: { success: true, feedback } };
        }
        return this.ordinary(`Followed [#${link.number} ${link.label}] to ${quote(opened.view.title, 100)}.`, {}, true);
      }
      case 'FIND': {
        const text = String(args.text).replace(/\s+/g, ' ').trim();
        if (!text) return this.ordinary('FIND needs text to look for, e.g. FIND(Born).');
        if (text.length > MAX_FIND_LENGTH)
          return this.ordinary(
            `FIND: the text is ${text.length} characters long; look for at most ${MAX_FIND_LENGTH}.`,
          );
        const needle = text.toLowerCase();
        const lines = (page as LoadedPage).view.lines;
        const matches: number[] = [];
        lines.forEach((line, i) => {
          if (withoutMarkers(line.text).normalize('NFC').toLowerCase().includes(needle)) matches.push(i + 1);
        });
        if (matches.length === 0) return this.ordinary(`FIND ${quote(text)}: not on this page.`);
        const cursor = this.state.findCursor;
        const after = cursor && cursor.text === needle ? cursor.line + 1 : this.state.top;
        const line = matches.find((match) => match >= after) ?? (matches[0] as number);
        this.state.top = line;
        this.state.findCursor = { text: needle, line };
        const shown = matches
          .slice(0, 8)
          .map((match) => `L${match}`)
          .join(', ');
        return this.ordinary(
          `FIND ${quote(text)}: ${matches.length} matching line${matches.length === 1 ? '' : 's'} (${shown}${matches.length > 8 ? ', …' : ''}); showing from L${line}.`,
        );
      }
      case 'SCROLL': {
        const to = String(args.to).trim().toLowerCase();
        // As the feedback names it: a 100,000-digit line number was echoed whole into the observation.
        const named = to.length > 20 ? quote(to, 20) : to;
        const total = (page as LoadedPage).view.lines.length;
        const window = this.options.windowLines;
        const last = Math.max(1, total - window + 1);
        let top: number;
        if (to === 'down') top = Math.min(this.state.top + window, last);
        else if (to === 'up') top = Math.max(1, this.state.top - window);
        else if (to === 'top') top = 1;
        else if (to === 'bottom') top = last;
        else if (/^l?\d+$/.test(to)) top = Math.min(Math.max(1, Number(to.replace(/^l/, ''))), Math.max(1, total));
        else
          return this.invalid(
            `SCROLL takes "down", "up", "top", "bottom" or a line number, not ${quote(String(args.to))}.`,
          );
        if (top === this.state.top)
          return this.ordinary(
            `SCROLL ${named}: the window did not move (lines ${top}–${Math.min(total, top + window - 1)} of ${total}).`,
          );
        this.state.top = top;
        return this.ordinary(`SCROLL ${named}: showing from L${top}.`);
      }
      case 'SAVE_LINE_IDS': {
        const parsedRanges = parseLineRanges(String(args.ranges), MAX_NOTES);
        if (!parsedRanges.ok) return this.invalid(parsedRanges.feedback);
        const view = (page as LoadedPage).view;
        const missing = parsedRanges.lines.filter((line) => line > view.lines.length);
        const saved: number[] = [];
        let full = false;
        for (const line of parsedRanges.lines) {
          if (line > view.lines.length) continue;
          if (this.state.notes.some((note) => note.title === view.title && note.line === line)) continue;
          if (this.state.notes.length >= MAX_NOTES) {
            full = true;
            break;
          }
          this.state.notes.push({
            title: view.title,
            line,
            text: withoutMarkers((view.lines[line - 1] as { text: string }).text),
          });
          saved.push(line);
        }
        const parts = [`SAVE_LINE_IDS: saved ${saved.length} line${saved.length === 1 ? '' : 's'}.`];
        if (missing.length > 0)
          parts.push(
            `The page has ${view.lines.length} lines; L${missing[0]}${missing.length > 1 ? ' and more' : ''} do not exist.`,
          );
        if (full) parts.push(`Notes are full (${MAX_NOTES} lines).`);
        return this.ordinary(parts.join(' '));
      }
      case 'BACK': {
        const previous = this.state.history.pop();
        if (!previous) return this.ordinary('BACK: there is no previous page.');
        this.state.page = previous.page;
        this.state.top = previous.top;
        this.state.findCursor = undefined;
        return this.ordinary(`Back to ${quote(previous.page.view.title, 100)}.`);
      }
      case 'SUBMIT': {
        const answer = String(args.answer).trim();
        const em = exactMatch(answer, task.answers);
        const f1 = tokenF1(answer, task.answers);
        const reward = this.options.reward === 'em' ? em : f1;
        const feedback =
          em === 1
            ? `Answer ${quote(answer)} is correct.`
            : `Answer ${quote(answer)} is not correct (F1 ${f1.toFixed(2)}). The episode is over.`;
        return {
          feedback: [feedback],
          reward,
          terminated: true,
          info: { success: em === 1, answer, em, f1, feedback },
        };
      }
      default:
        return this.invalid(`unknown tool ${name}`);
    }
  }
}

// eslint-disable-next-line @typescript-eslint/no-require-imports
const PACKAGE = require('../package.json') as { name: string; version: string };

const COMMON_OBSERVATION =
  'Text: the task, what the last call did, a window of the current page as numbered lines (L1, L2, …) with links written [#k label], the saved notes, and the tool calls left.';

const QA_DOCS: EnvSpec['docs'] = {
  description:
    'A search-and-read agent answers questions over an offline encyclopedia (a seeded synthetic one by default, or a JSONL corpus) served on 127.0.0.1 and read through Chromium (mode "browser") or an HTML parser in-process (mode "direct"): single-hop facts and 2–4-hop bridge and comparison questions with gold answers and gold paths.',
  actionSpace:
    'Tools: SEARCH(query), NAVIGATE(title), CLICK(link), FIND(text), SCROLL(to), SAVE_LINE_IDS(ranges), BACK, SUBMIT(answer); text syntax NAME(arg) or NAME({json}), or function calls.',
  observationSpace: COMMON_OBSERVATION,
  rewards:
    'SUBMIT: exact match (default) or token F1 against the gold answers after SQuAD normalisation. −formatPenalty (0.2) for a malformed call and for running out of calls without an answer.',
  startingState: 'The question of the task drawn by the seed from the split; no page open.',
  episodeEnd:
    'Terminates on SUBMIT (info.success = exact match); truncates when the tool-call budget (default 10) is spent.',
  arguments:
    'mode (direct), corpus (synthetic, a JSONL file or an on-disk .sqlite store), articles (2000), corpusSeed (1), tasks (a task file of your own questions or races; HotpotQA JSON as is), unknownTitles (error), split (train), questionTypes, minHops (1), maxHops (4), toolBudget (10), windowLines (30), maxResults (10), reward (em), formatPenalty (0.2), pageCache (4096), poolSize (4), pageTimeoutMs (15000), executablePath; observation (full) is fixed by the id.',
  versionHistory: 'v1: first version. Later: maxResults; the compact variant turngym/wiki-qa-compact-v1.',
};

const COMPACT_QA_DOCS: EnvSpec['docs'] = {
  ...QA_DOCS,
  description: `${QA_DOCS.description} The compact variant of turngym/wiki-qa-v1 (same tasks and rewards), sized for small models trained on whole episodes.`,
  actionSpace:
    'Tools: SEARCH(query), NAVIGATE(title), CLICK(link label), BACK, SUBMIT(answer); text syntax NAME(arg) or NAME({json}), or function calls.',
  observationSpace:
    'Text: the question (on reset only), what the last call did (confirmations of an opened page left out), and the whole page as "# Title" and its infobox rows "Field: value" with links written [label] (search results: titles only); no line numbers, notes or budget line.',
  arguments: 'Those of turngym/wiki-qa-v1; observation is fixed to "compact".',
  versionHistory: 'v1: first version (the compact observation of turngym/wiki-qa-v1).',
};

const RACE_DOCS: EnvSpec['docs'] = {
  description:
    'A navigation race in an offline encyclopedia: reach a target article from a start article by clicking links (shortest path 2–4 clicks).',
  actionSpace: 'Tools: CLICK(link), FIND(text), SCROLL(to), BACK.',
  observationSpace: COMMON_OBSERVATION,
  rewards: '1 when the target opens; −formatPenalty (0.2) for a malformed call; else 0.',
  startingState: 'The start article of the race drawn by the seed from the split.',
  episodeEnd:
    'Terminates when the target opens (info.success = true); truncates when the tool-call budget (default 10) is spent.',
  arguments:
    'mode (direct), corpus (synthetic, a JSONL file or an on-disk .sqlite store), articles (2000), corpusSeed (1), tasks (a task file of your own questions or races; HotpotQA JSON as is), unknownTitles (error), split (train), minHops (1), maxHops (4), toolBudget (10), windowLines (30), formatPenalty (0.2), pageCache (4096), poolSize (4), pageTimeoutMs (15000), executablePath.',
  versionHistory: 'v1: first version.',
};
