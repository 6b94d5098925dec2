import { checkSeed, mixSeed } from '@turngym/core';

export type Split = 'train' | 'test' | 'all';

/**
 * Generator seed ranges of the splits: disjoint, so no generator seed is shared. `all` spans both.
 * An index into a split (a `taskId`) is an offset into its range.
 */
export const SPLIT_SEED_RANGES: Readonly<Record<Split, { readonly start: number; readonly size: number }>> = {
  train: { start: 0, size: 2 ** 30 },
  test: { start: 2 ** 30, size: 2 ** 24 },
  all: { start: 0, size: 2 ** 30 + 2 ** 24 },
};

/**
 * Disjoint by content too: different seeds can produce the same small question ("Compute 3 + 4 × 2."), so
 * a question belongs to the test split exactly when a hash of its text falls in one bucket of 8. The
 * generator redraws until the class matches its split; files are partitioned by the same rule.
 */
export function contentSplit(question: string): 'train' | 'test' {
  return (mixSeed('math-thought-split', question) >>> 0) % 8 === 0 ? 'test' : 'train';
}

/**
 * The task index that an episode seed selects within a split of `size` tasks. The seed is checked as `reset()`
 * checks it: hashed as text, NaN or 1.5 would silently select some task no integer seed replays.
 */
export function taskIndexForSeed(seed: number, size: number): number {
  checkSeed(seed, 'taskIndexForSeed()');
  return (mixSeed('math-thought-task', seed) >>> 0) % size;
}
