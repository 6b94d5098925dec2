import type { SeededRng } from '@turngym/core';

/** Rows of similar length are grouped within runs of this many batches (HF's group-by-length does the same). */
export const LENGTH_GROUP_BATCHES = 8;

/**
 * One epoch's batches, every item exactly once, in `rng`'s random order. With `groupByLength`, each run of
 * `batchSize × LENGTH_GROUP_BATCHES` shuffled items is sorted by length and cut into batches, and the batches
 * are shuffled: a batch is padded to its longest row, so similar lengths waste less compute, while which
 * items meet stays random.
 */
export function sftBatches<T>(
  items: readonly T[],
  lengthOf: (item: T) => number,
  batchSize: number,
  groupByLength: boolean,
  rng: SeededRng,
): T[][] {
  const cut = (list: readonly T[]): T[][] =>
    Array.from({ length: Math.ceil(list.length / batchSize) }, (_, index) =>
      list.slice(index * batchSize, (index + 1) * batchSize),
    );
  const order = rng.shuffle(items);
  if (!groupByLength) return cut(order);
  const run = batchSize * LENGTH_GROUP_BATCHES;
  const batches: T[][] = [];
  for (let from = 0; from < order.length; from += run) {
    batches.push(...cut(order.slice(from, from + run).sort((a, b) => lengthOf(b) - lengthOf(a))));
  }
  return rng.shuffle(batches);
}
