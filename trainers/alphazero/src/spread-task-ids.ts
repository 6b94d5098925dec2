/**
 * `count` task ids spread evenly over 0 … total − 1: ⌊i·total/count⌋, every (total/count)-th task once while
 * count ≤ total (41 of the seller's 164 test tasks: 0, 4, 8, …, 160; all 164: each of them), cycling evenly past
 * it. The benchmark's `(i·4) mod 164` gave 41 distinct tasks whatever the count: 164 episodes played each of
 * those 41 four times and no other task.
 */
export function spreadTaskIds(count: number, total: number): number[] {
  if (!Number.isInteger(count) || count < 0 || !Number.isInteger(total) || total < 1) {
    throw new RangeError(`spreadTaskIds: count must be an integer ≥ 0 and total one ≥ 1 (got ${count}, ${total}).`);
  }
  return Array.from({ length: count }, (_, i) => Math.floor((i * total) / count) % total);
}
