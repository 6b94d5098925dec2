import { readJsonlCorpus } from './jsonl-corpus';
import { isCorpusStore, openCorpusStore } from './sqlite-corpus';
import { syntheticCorpus } from './synthetic-encyclopedia';
import type { WikiCorpus } from './wiki-corpus';

/**
 * The corpus an env's options name: `synthetic` (seeded, built in memory), an on-disk store (`.sqlite`,
 * `.db`: read one article at a time) or a JSONL file (read into memory); each cached per process.
 */
export function loadCorpus(options: { corpus: string; corpusSeed: number; articles: number }): WikiCorpus {
  if (options.corpus === 'synthetic') return syntheticCorpus({ seed: options.corpusSeed, articles: options.articles });
  return isCorpusStore(options.corpus) ? openCorpusStore(options.corpus) : readJsonlCorpus(options.corpus);
}
