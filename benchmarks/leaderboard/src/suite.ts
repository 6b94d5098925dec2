import { createHash } from 'node:crypto';
import { compileValidator } from '@turngym/core';
import { lazy } from './internal/lazy';
import { InvalidSuiteError } from './leaderboard-errors';

/** `quick-v1`: a name and a version. A change that alters scores means a new version, never an edit. */
export const SUITE_ID_PATTERN = '^[a-z][a-z0-9]*(-[a-z0-9]+)*-v[1-9][0-9]*$';

/** One env of a suite, as written in the suite file. */
export interface SuiteEntry {
  /** A registered env id, e.g. `turngym/math-thought-v1`. */
  envId: string;
  /** The npm package that registers it: named in the note when it is not installed. */
  package?: string;
  /** Options for `make()` (the env's test split, its mode …), validated against the env's schema in the preflight. */
  options?: Record<string, unknown>;
  /** Turn limit through core's TimeLimit (default: the env's own). */
  maxTurns?: number;
  /** Episode i plays seed i of this list, or `start + i` of a range. */
  seeds: number[] | { start: number; count: number };
  /** Per-episode reset options (e.g. `{ "taskId": "two-sum" }`), one per seed. */
  resetOptions?: Record<string, unknown>[];
}

/** A suite file (`suites/<id>.json`). */
export interface Suite {
  /** `<name>-v<version>`. */
  id: string;
  description: string;
  entries: SuiteEntry[];
}

/** One episode of a suite: what `reset()` gets. */
export interface PlannedEpisode {
  /** `<entry index>.<episode index>`: names the episode in the journal and in its record. */
  key: string;
  seed: number;
  resetOptions?: Record<string, unknown>;
}

/** An entry with its episodes spelled out. */
export interface SuiteEnv {
  index: number;
  envId: string;
  package: string | null;
  options: Record<string, unknown>;
  maxTurns: number | null;
  episodes: PlannedEpisode[];
}

/** A loaded suite: the file, its expansion and a hash of its content (recorded in every result). */
export interface LoadedSuite {
  id: string;
  name: string;
  version: number;
  description: string;
  /** SHA-256 of the canonical JSON of its id and entries: a result names exactly the episodes it played. */
  sha256: string;
  /** Where it was read from (null when built in code). */
  path: string | null;
  envs: SuiteEnv[];
}

const integer = { type: 'integer', minimum: -2147483648, maximum: 2147483647 } as const;

// Typed loosely (a union of shapes): `validateSuite` below is what keeps the type and the schema in step.
export const suiteSchema = {
  $id: 'https://turngym.dev/schemas/leaderboard-suite-v1.json',
  type: 'object',
  additionalProperties: false,
  required: ['id', 'description', 'entries'],
  properties: {
    $schema: { type: 'string' },
    id: { type: 'string', pattern: SUITE_ID_PATTERN },
    description: { type: 'string', minLength: 1 },
    entries: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['envId', 'seeds'],
        properties: {
          envId: { type: 'string', minLength: 1 },
          package: { type: 'string', minLength: 1 },
          options: { type: 'object', required: [] },
          maxTurns: { type: 'integer', minimum: 1 },
          seeds: {
            oneOf: [
              { type: 'array', minItems: 1, items: integer },
              {
                type: 'object',
                additionalProperties: false,
                required: ['start', 'count'],
                properties: { start: integer, count: { type: 'integer', minimum: 1, maximum: 100000 } },
              },
            ],
          },
          resetOptions: { type: 'array', items: { type: 'object', required: [] } },
        },
      },
    },
  },
} as const;

const validateShape = lazy(() =>
  compileValidator<Suite>(suiteSchema, (problems) => new InvalidSuiteError(problems.join('; ')), 'suite'),
);

function seedsOf(entry: SuiteEntry): number[] {
  const seeds = entry.seeds;
  if (Array.isArray(seeds)) return seeds;
  return Array.from({ length: seeds.count }, (_, i) => seeds.start + i);
}

/** Object keys sorted at every level, so the hash does not depend on how the file was formatted. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([key, item]) => item !== undefined && key !== '$schema')
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * Validates a suite (schema, then the rules a schema cannot say: one resetOptions per seed, no seed twice in
 * an entry unless reset options tell the episodes apart) and expands it. Throws `InvalidSuiteError`.
 */
export function validateSuite(input: unknown, path: string | null = null): LoadedSuite {
  const where = path ? `${path}: ` : '';
  let suite: Suite;
  try {
    suite = validateShape()(input);
  } catch (error) {
    throw new InvalidSuiteError(`${where}${(error as Error).message}`);
  }
  const envs = suite.entries.map((entry, index): SuiteEnv => {
    const seeds = seedsOf(entry);
    if (entry.resetOptions && entry.resetOptions.length !== seeds.length) {
      throw new InvalidSuiteError(
        `${where}suite.entries[${index}] (${entry.envId}) has ${seeds.length} seeds but ${entry.resetOptions.length} resetOptions; give one per seed`,
      );
    }
    const seen = new Set<string>();
    const episodes = seeds.map((seed, episode): PlannedEpisode => {
      const resetOptions = entry.resetOptions?.[episode];
      const identity = `${seed}|${canonicalJson(resetOptions ?? {})}`;
      if (seen.has(identity)) {
        throw new InvalidSuiteError(
          `${where}suite.entries[${index}] (${entry.envId}) plays seed ${seed} twice with the same reset options`,
        );
      }
      seen.add(identity);
      return { key: `${index}.${episode}`, seed, ...(resetOptions ? { resetOptions } : {}) };
    });
    return {
      index,
      envId: entry.envId,
      package: entry.package ?? null,
      options: entry.options ?? {},
      maxTurns: entry.maxTurns ?? null,
      episodes,
    };
  });
  const match = /^(.*)-v(\d+)$/.exec(suite.id) as RegExpExecArray;
  return {
    id: suite.id,
    name: match[1] as string,
    version: Number(match[2]),
    description: suite.description,
    // What is played, not how it is described: a reworded description is the same suite.
    sha256: createHash('sha256')
      .update(canonicalJson({ id: suite.id, entries: suite.entries }))
      .digest('hex'),
    path,
    envs,
  };
}

/** Total episodes of a suite. */
export function suiteEpisodeCount(suite: LoadedSuite): number {
  return suite.envs.reduce((sum, env) => sum + env.episodes.length, 0);
}
