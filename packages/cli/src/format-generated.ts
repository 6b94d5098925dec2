import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

/** The part of prettier's API used here (prettier 3). */
interface Prettier {
  resolveConfig(file: string): Promise<Record<string, unknown> | null>;
  getFileInfo(
    file: string,
    options?: { ignorePath?: string },
  ): Promise<{ ignored: boolean; inferredParser: string | null }>;
  format(text: string, options: Record<string, unknown>): Promise<string>;
}

/** The prettier installed where `directory` is (its own node_modules or a parent's), if any. */
function projectPrettier(directory: string): Prettier | undefined {
  try {
    return createRequire(join(directory, 'package.json'))('prettier') as Prettier;
  } catch {
    return undefined;
  }
}

/**
 * Formats the files a command generated in `directory` (paths relative to it) with the prettier of the project they
 * land in, under that project's own settings: renamed template text (a long env name lengthens imports and calls)
 * and JSON written by `JSON.stringify` would otherwise fail the project's `prettier --check` before anyone touched
 * them. Nothing happens where no prettier is installed. Returns whether one was.
 */
export async function formatWithProjectPrettier(directory: string, files: readonly string[]): Promise<boolean> {
  const prettier = projectPrettier(directory);
  if (!prettier) return false;
  for (const file of files) {
    const path = join(directory, file);
    const info = await prettier.getFileInfo(path);
    if (info.ignored || !info.inferredParser) continue;
    const text = readFileSync(path, 'utf8');
    const formatted = await prettier.format(text, { ...(await prettier.resolveConfig(path)), filepath: path });
    if (formatted !== text) writeFileSync(path, formatted);
  }
  return true;
}
