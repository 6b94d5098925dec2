import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { InvalidSuiteError } from './leaderboard-errors';
import { validateSuite, type LoadedSuite } from './suite';

/** The suites shipped with this package (`suites/*.json` beside `src/` and `dist/`). */
export const SUITES_DIR = join(__dirname, '..', 'suites');

function readSuiteFile(path: string): LoadedSuite {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new InvalidSuiteError(`Cannot read suite file ${path}: ${(error as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new InvalidSuiteError(`${path} is not JSON: ${(error as Error).message}`);
  }
  return validateSuite(parsed, path);
}

/** Every built-in suite, oldest version first within a name. */
export function listSuites(directory = SUITES_DIR): LoadedSuite[] {
  if (!existsSync(directory)) return [];
  return readdirSync(directory)
    .filter((file) => file.endsWith('.json') && !file.endsWith('.schema.json'))
    .map((file) => readSuiteFile(join(directory, file)))
    .sort((a, b) => (a.name === b.name ? a.version - b.version : a.name < b.name ? -1 : 1));
}

/**
 * A suite by reference: a built-in id (`quick-v1`), a built-in name (`quick`: its newest version), or the
 * path of a suite file (anything with a slash or ending in `.json`).
 */
export function loadSuite(reference: string, directory = SUITES_DIR): LoadedSuite {
  if (reference.endsWith('.json') || reference.includes('/') || reference.includes('\\')) {
    return readSuiteFile(resolve(reference));
  }
  const suites = listSuites(directory);
  const exact = suites.find((suite) => suite.id === reference);
  if (exact) return exact;
  const named = suites.filter((suite) => suite.name === reference);
  const newest = named[named.length - 1];
  if (newest) return newest;
  const known = suites.map((suite) => suite.id).join(', ') || 'none';
  throw new InvalidSuiteError(
    `Unknown suite "${reference}": built-in suites are ${known}, or pass the path of a suite file.`,
  );
}
