export {
  WikiNavigatorEnv,
  MAX_FIND_LENGTH,
  MAX_NOTES,
  WIKI_QA_COMPACT_ID,
  type WikiNavigatorDependencies,
} from './wiki-navigator-env';
export {
  wikiNavigatorOptionsSchema,
  validateWikiNavigatorOptions,
  type WikiNavigatorOptions,
  type WikiMode,
  type ObservationStyle,
  type QuestionType,
} from './wiki-navigator-options';
export { QA_TOOLS, RACE_TOOLS } from './wiki-tools';
export { register } from './register';
export { WikiExpert } from './agents/wiki-expert';
export { RandomNavigator } from './agents/random-navigator';
export {
  articlePath,
  escapeText,
  normalizeTitle,
  parseLinks,
  splitLinks,
  stripLinks,
  unescapeText,
  type Article,
  type ArticleSection,
  type InfoboxField,
  type Redirect,
} from './corpus/article';
export { Corpus } from './corpus/corpus';
export type { CorpusDescription, SearchHit, WikiCorpus } from './corpus/wiki-corpus';
export { phraseFor, type FieldPhrase, type FieldPhrases } from './corpus/field-phrases';
export {
  generateSyntheticArticles,
  syntheticCorpus,
  SYNTHETIC_PHRASES,
  type SyntheticEncyclopediaOptions,
} from './corpus/synthetic-encyclopedia';
export {
  parseJsonlCorpus,
  parseJsonlEntry,
  readJsonlCorpus,
  writeJsonlCorpus,
  formatJsonlLine,
} from './corpus/jsonl-corpus';
export {
  convertMediaWikiDump,
  convertMediaWikiFile,
  openDumpFile,
  type Bzip2Decoder,
  wikitextToArticle,
  type MediaWikiConversionOptions,
  type MediaWikiConversionStats,
} from './corpus/mediawiki-converter';
export { loadCorpus } from './corpus/load-corpus';
export {
  SqliteCorpus,
  openCorpusStore,
  retainCorpusStore,
  releaseCorpusStore,
  isCorpusStore,
  STORE_VERSION,
} from './corpus/sqlite-corpus';
export { ftsQuery, queryWords, StoreSearch, COMMON_WORD_ARTICLES } from './corpus/store-search';
export type { CjkTerms } from './corpus/cjk-bigrams';
export { buildCorpusStore, type BuildCorpusStoreOptions, type CorpusStoreStats } from './corpus/corpus-store-builder';
export {
  writeSyntheticDump,
  writeSyntheticDumpFile,
  type SyntheticDumpOptions,
  type SyntheticDumpStats,
} from './corpus/synthetic-dump';
export { countTasks, formatTaskCounts, formatTaskStats, type TaskCount } from './tasks/task-stats';
export {
  CorpusServer,
  acquireCorpusServer,
  runningCorpusServers,
  type CorpusServerLease,
} from './server/corpus-server';
export {
  extractPage,
  type ExtractedPage,
  type PageLine,
  type PageLink,
  type PageRegion,
  type DomDocument,
  type DomNode,
} from './page/extract-page';
export { DirectPageLoader, BrowserPageLoader, type PageLoader } from './page/page-loader';
export {
  BrowserPool,
  CHROMIUM_ARGS,
  MAIN_THREAD_COMPOSITING_ARGS,
  type BrowserPoolOptions,
  type BrowserPoolStats,
} from './browser/browser-pool';
export { BrowserTab } from './browser/browser-tab';
export { findChromium, isHeadlessShell, CHROMIUM_CANDIDATES } from './browser/chromium-executable';
export {
  chromiumDescendants,
  processesInGroups,
  processGroupCpuMs,
  processGroupPssMb,
} from './browser/chromium-processes';
export {
  TaskBank,
  taskBankFor,
  taskSourceFor,
  splitOf,
  describeTaskCounts,
  DISAMBIGUATION_TYPE,
  type TaskFilter,
  type TaskSelection,
  type TaskSource,
  type CorpusWithTasks,
} from './tasks/task-bank';
export {
  parseTaskFile,
  readTaskFile,
  shortestClickPath,
  MAX_RACE_CLICKS,
  type TaskFileOptions,
} from './tasks/task-file';
export type { WikiTask, TaskKind, TaskSplit, TaskEvidence } from './tasks/wiki-task';
export { normalizeAnswer, exactMatch, tokenF1 } from './tasks/answer-metrics';
