import { open, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/**
 * File writes that survive a kill or a power cut. A rename is atomic, but without fsync the renamed file's
 * bytes (or the rename itself) may still be only in the page cache; so data is synced before the rename
 * and the directory after it.
 */

/** Flushes a file's (or a directory's entries') writes to disk. */
export async function fsyncPath(path: string): Promise<void> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  try {
    await handle.sync();
  } catch (error) {
    // Windows cannot fsync a directory handle; its renames are durable on their own (NTFS journal).
    const code = (error as NodeJS.ErrnoException).code;
    if (process.platform !== 'win32' || (code !== 'EPERM' && code !== 'EISDIR')) throw error;
  } finally {
    await handle.close();
  }
}

/** fsyncs every file under `dir`, then every directory, deepest first. */
export async function fsyncTree(dir: string): Promise<void> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await fsyncTree(path);
    else if (entry.isFile()) await fsyncPath(path);
  }
  await fsyncPath(dir);
}

let temporaries = 0;

/**
 * Replaces `path` with `data` all at once: a reader sees the old file or the new one, never a mix. Each call writes
 * its own temporary file (process id and a counter): named by the process alone, two writes of one path at once
 * shared it, and one failed with ENOENT at its rename. A write that fails removes its temporary file.
 */
export async function writeFileAtomically(path: string, data: string | Uint8Array): Promise<void> {
  const temporary = `${path}.tmp-${process.pid}-${(temporaries += 1)}`;
  try {
    await writeFile(temporary, data);
    await fsyncPath(temporary);
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true }).catch(() => undefined);
    throw error;
  }
  await fsyncPath(dirname(path));
}

/** The size of a file, 0 when it does not exist. */
export async function sizeOf(path: string): Promise<number> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
  try {
    return (await handle.stat()).size;
  } finally {
    await handle.close();
  }
}

/** Whether a file is absent, empty, or ends in a newline: a JSONL file whose last write finished. */
export async function endsCleanly(path: string): Promise<boolean> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return true;
    throw error;
  }
  try {
    const { size } = await handle.stat();
    if (size === 0) return true;
    const last = Buffer.alloc(1);
    await handle.read(last, 0, 1, size - 1);
    return last[0] === 0x0a;
  } finally {
    await handle.close();
  }
}
