import { readJsonlCorpus } from './jsonl-corpus';
import {
  isCorpusStore,
  openCorpusStore,
  releaseCorpusStore,
  retainCorpusStore,
  shareCorpusStore,
  SqliteCorpus,
} from './sqlite-corpus';
import { syntheticCorpus } from './synthetic-encyclopedia';
import type { WikiCorpus } from './wiki-corpus';

interface CorpusOptions {
  corpus: string;
  corpusSeed: number;
  articles: number;
}

/**
 * The corpus an env's options name: `synthetic` (seeded, built in memory), an on-disk store (`.sqlite`,
 * `.db`: read one article at a time) or a JSONL file (read into memory); each cached per process. A store
 * opened here stays open for the process's life: an env uses `retainCorpus` and `releaseCorpus`.
 */
export function loadCorpus(options: CorpusOptions): WikiCorpus {
  if (options.corpus === 'synthetic') return syntheticCorpus({ seed: options.corpusSeed, articles: options.articles });
  return isCorpusStore(options.corpus) ? openCorpusStore(options.corpus) : readJsonlCorpus(options.corpus);
}

/** `loadCorpus`, counting one use of a store until `releaseCorpus` (so a replaced store's handle is closed). */
export function retainCorpus(options: CorpusOptions): WikiCorpus {
  return isCorpusStore(options.corpus) ? retainCorpusStore(options.corpus) : loadCorpus(options);
}

/** One more use of a corpus already retained (a fork's). */
export function shareCorpus(corpus: WikiCorpus): void {
  if (corpus instanceof SqliteCorpus) shareCorpusStore(corpus);
}

/** Ends one use `retainCorpus` or `shareCorpus` counted; in-memory corpora stay cached as before. */
export function releaseCorpus(corpus: WikiCorpus): void {
  if (corpus instanceof SqliteCorpus) releaseCorpusStore(corpus);
}
