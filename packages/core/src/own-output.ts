import { closeSync, openSync, readSync } from 'node:fs';
import { ForeignOutputError, type OutputOwner } from './errors';

/**
 * Refuses to overwrite `path` unless its first `headBytes` bytes hold one of `markers` (a generator tag, or a
 * sign of an earlier version's page): a slip in `--out` must not cost the user a file the tool did not write.
 * A missing file is fine. Only the head is read: the path may name a huge JSONL by mistake.
 */
export function assertOwnOutput(
  path: string,
  markers: readonly string[],
  owner: OutputOwner,
  headBytes = 64 * 1024,
): void {
  let descriptor: number;
  try {
    descriptor = openSync(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  let head: string;
  try {
    const buffer = Buffer.alloc(headBytes);
    head = buffer.toString('utf8', 0, readSync(descriptor, buffer, 0, buffer.length, 0));
  } finally {
    closeSync(descriptor);
  }
  if (!markers.some((marker) => head.includes(marker))) throw new ForeignOutputError(path, owner);
}
