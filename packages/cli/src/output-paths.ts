import { accessSync, constants, statSync, type Stats } from 'node:fs';
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
 * Refuses, before any work, an output path that cannot be written: the file or directory itself, or the nearest
 * directory above it where it would be created, is on read-only storage or not writable by this user. Without it
 * `bench` and `leaderboard` went through their checks and then stopped on Node's `ENOENT: no such file or directory,
 * mkdir` (what a recursive mkdir says on a read-only file system), exit 1, naming neither the flag nor the cause. Call
 * it for commands that write; one that only reads (`leaderboard --check`) need not.
 */
export function checkWritable(flag: string, path: string): void {
  const target = resolve(path);
  const found = nearestExisting(target);
  if (!found) return;
  try {
    accessSync(found.path, constants.W_OK);
  } catch (error) {
    const where = found.path === target ? '' : ` (it would be created in ${found.path})`;
    throw new UsageError(
      `${flag} ${path} cannot be written${where}: ${(error as Error).message}. Choose a writable location.`,
    );
  }
}

/**
 * An empty path (`--out "$OUT"` with OUT unset) would resolve to the working directory, where a command would
 * write its files among the user's, or be taken as no flag at all.
 */
function refuseEmpty(flag: string, path: string, kind: 'file' | 'directory'): void {
  if (path.trim() === '') throw new UsageError(`${flag} is empty: name a ${kind}.`);
}
