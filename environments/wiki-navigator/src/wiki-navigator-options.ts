import { defineOptions, type ClientOptions, type JSONSchemaType } from '@turngym/core';
import { SEARCH_RESULTS } from './server/corpus-server';

export type WikiMode = 'browser' | 'direct';
export type QuestionType = 'single' | 'bridge' | 'comparison';
/** How pages are shown: `full` (every line, framed window, question and budget each turn) or `compact`. */
export type ObservationStyle = 'full' | 'compact';

/** Options of `turngym/wiki-qa-v1` and `turngym/wiki-race-v1` (which fix `task`). */
export interface WikiNavigatorOptions {
  /** `qa`: answer a question; `race`: reach a target article by clicking. Fixed by the registered ids. */
  task: 'qa' | 'race';
  /**
   * `full`: the question, a framed window over every line of the page, notes and budget, each turn.
   * `compact` (QA only): the question once (on reset), then a whole page as its title and infobox rows —
   * every fact and link field a question asks about — with links written `[label]`, search results as titles;
   * no line numbers, budget line or confirmations, and only the tools that act on such a page (SEARCH,
   * NAVIGATE, CLICK, BACK, SUBMIT). For agents whose context holds the whole episode (small models trained on
   * packed transcripts). Fixed by the registered ids: `turngym/wiki-qa-compact-v1` is the compact one.
   */
  observation: ObservationStyle;
  /** Search results shown (BM25 order, best first); the corpus server returns at most 10. */
  maxResults: number;
  /** `direct` (default): HTML fetched over HTTP and parsed by linkedom; `browser`: Chromium through Puppeteer. */
  mode: WikiMode;
  /** `synthetic` (default), or the path of a JSONL corpus (see the README for the format). */
  corpus: string;
  /** Size of the synthetic corpus. */
  articles: number;
  /** Seed of the synthetic corpus (the world), independent of the episode seed (the task). */
  corpusSeed: number;
  /**
   * The user's own tasks instead of the generated ones: a JSON or JSONL file of questions
   * (`{"question", "answers", "titles"}`), races (`{"start", "target"}`) or HotpotQA entries (see the README).
   */
  tasks?: string;
  /** A task file's title that is not in the corpus: `error` (default, naming it) or `skip` (drop that task). */
  unknownTitles: 'error' | 'skip';
  /** Which held-out part of the tasks to draw from. */
  split: 'train' | 'test';
  /** QA only: which question types to draw. */
  questionTypes: QuestionType[];
  /** Articles to read (QA) or links to click (race): at least … */
  minHops: number;
  /** … and at most. */
  maxHops: number;
  /** Tool calls per episode; the episode is truncated when they are spent. */
  toolBudget: number;
  /** Lines of the page shown at once. */
  windowLines: number;
  /** QA reward on SUBMIT: exact match or token F1 (SQuAD normalisation). */
  reward: 'em' | 'f1';
  /** Subtracted for a malformed call, and for a QA episode that ends without an answer (ALGORITHMS.md §0). */
  formatPenalty: number;
  /** Direct mode: extracted pages memoised per corpus (a page is a pure function of corpus and path); 0 disables. */
  pageCache: number;
  /** Pages in the browser pool when the env owns its pool (no `browserPool` dependency given). */
  poolSize: number;
  /** A page load (navigation + extraction) slower than this counts as hung: retried once, then an env fault. */
  pageTimeoutMs: number;
  /** Browser executable (default: `TURNGYM_CHROMIUM`, then /usr/bin/chromium, chromium-browser, google-chrome). */
  executablePath?: string;
}

export const wikiNavigatorOptionsSchema: JSONSchemaType<WikiNavigatorOptions> = {
  type: 'object',
  additionalProperties: false,
  required: [],
  properties: {
    task: { type: 'string', enum: ['qa', 'race'], default: 'qa' },
    observation: { type: 'string', enum: ['full', 'compact'], default: 'full' },
    maxResults: { type: 'integer', minimum: 1, maximum: SEARCH_RESULTS, default: SEARCH_RESULTS },
    mode: { type: 'string', enum: ['browser', 'direct'], default: 'direct' },
    corpus: { type: 'string', minLength: 1, default: 'synthetic' },
    articles: { type: 'integer', minimum: 50, maximum: 200000, default: 2000 },
    corpusSeed: { type: 'integer', default: 1 },
    tasks: { type: 'string', nullable: true, minLength: 1 },
    unknownTitles: { type: 'string', enum: ['error', 'skip'], default: 'error' },
    split: { type: 'string', enum: ['train', 'test'], default: 'train' },
    questionTypes: {
      type: 'array',
      items: { type: 'string', enum: ['single', 'bridge', 'comparison'] },
      minItems: 1,
      uniqueItems: true,
      default: ['single', 'bridge', 'comparison'],
    },
    // Generated tasks have 1–4 hops; a task file's races may take up to MAX_RACE_CLICKS (8).
    minHops: { type: 'integer', minimum: 1, maximum: 8, default: 1 },
    maxHops: { type: 'integer', minimum: 1, maximum: 8, default: 4 },
    toolBudget: { type: 'integer', minimum: 1, maximum: 200, default: 10 },
    windowLines: { type: 'integer', minimum: 5, maximum: 500, default: 30 },
    reward: { type: 'string', enum: ['em', 'f1'], default: 'em' },
    formatPenalty: { type: 'number', minimum: 0, maximum: 1, default: 0.2 },
    pageCache: { type: 'integer', minimum: 0, maximum: 1000000, default: 4096 },
    poolSize: { type: 'integer', minimum: 1, maximum: 64, default: 4 },
    pageTimeoutMs: { type: 'integer', minimum: 100, maximum: 600000, default: 15000 },
    executablePath: { type: 'string', nullable: true, minLength: 1 },
  },
};

/**
 * What a client of the env server may set: the tasks and the episode's rules on the synthetic world, at most
 * 5,000 articles (built in ~0.5 s). Not the corpus file, the browser (mode, executable, pool), caches or
 * timeouts, which are the server's resources.
 */
export const wikiNavigatorClientOptions: ClientOptions<WikiNavigatorOptions> = {
  maxResults: true,
  articles: { maximum: 5000 },
  corpusSeed: true,
  split: true,
  questionTypes: true,
  minHops: true,
  maxHops: true,
  toolBudget: true,
  windowLines: true,
  reward: true,
  formatPenalty: true,
};

export const validateWikiNavigatorOptions = defineOptions<WikiNavigatorOptions>(
  'turngym/wiki-navigator',
  wikiNavigatorOptionsSchema,
);
