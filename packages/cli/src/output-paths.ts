import { statSync, type Stats } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { UsageError } from './cli-errors';

/** The path itself, or its nearest ancestor that exists (what a write there would run into). */
function nearestExisting(path: string): { path: string; stats: Stats } | undefined {
  for (let current = path; ; current = dirname(current)) {
    let stats: Stats | undefined;
    try {
      stats = statSync(current, { throwIfNoEntry: false });
    } catch (error) {
      // ENOTDIR: an ancestor is a file, which the loop reaches next.
      if ((error as NodeJS.ErrnoException).code !== 'ENOTDIR') throw error;
    }
    if (stats) return { path: current, stats };
    if (dirname(current) === current) return undefined;
  }
}

/**
 * Checked before any work, so a wrong output path is a usage error naming the flag rather than a raw
 * EISDIR/ENOTDIR at the end of a run.
 */
export function checkOutputDirectory(flag: string, path: string): void {
  refuseEmpty(flag, path, 'directory');
  const found = nearestExisting(resolve(path));
  if (found && !found.stats.isDirectory()) {
    const where = found.path === resolve(path) ? path : `${path}: ${found.path}`;
    throw new UsageError(`${flag} ${where} is a file, not a directory: name a directory.`);
  }
}

/** As `checkOutputDirectory`, for a flag that names a file. */
export function checkOutputFile(flag: string, path: string): void {
  refuseEmpty(flag, path, 'file');
  const found = nearestExisting(resolve(path));
  if (!found) return;
  if (found.path === resolve(path)) {
    if (found.stats.isDirectory()) throw new UsageError(`${flag} ${path} is a directory, not a file: name a file.`);
  } else if (!found.stats.isDirectory()) {
    throw new UsageError(`${flag} ${path}: ${found.path} is a file, not a directory.`);
  }
}

/**
 * An empty path (`--out "$OUT"` with OUT unset) would resolve to the working directory, where a command would
 * write its files among the user's, or be taken as no flag at all.
 */
function refuseEmpty(flag: string, path: string, kind: 'file' | 'directory'): void {
  if (path.trim() === '') throw new UsageError(`${flag} is empty: name a ${kind}.`);
}
