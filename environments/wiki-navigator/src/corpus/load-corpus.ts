import type { Corpus } from './corpus';
import { readJsonlCorpus } from './jsonl-corpus';
import { syntheticCorpus } from './synthetic-encyclopedia';

/** The corpus an env's options name: `synthetic` (seeded, built in memory) or a JSONL file; cached per process. */
export function loadCorpus(options: { corpus: string; corpusSeed: number; articles: number }): Corpus {
  return options.corpus === 'synthetic'
    ? syntheticCorpus({ seed: options.corpusSeed, articles: options.articles })
    : readJsonlCorpus(options.corpus);
}
