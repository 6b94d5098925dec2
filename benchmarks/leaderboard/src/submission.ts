import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { compileValidator, withoutByteOrderMark } from '@turngym/core';
import { BENCH_RESULT_SCHEMA_ID, benchResultSchema, validateBenchResult, type BenchResult } from './bench-result';
import { lazy } from './internal/lazy';
import { InvalidResultError } from './leaderboard-errors';
import type { LoadedSuite } from './suite';

export const SUBMISSION_SCHEMA_ID = 'turngym.leaderboard-submission/v1';

/**
 * A row someone else adds to the leaderboard: the result file their run wrote (unchanged), and who they are.
 * Records can stay with them: `recordsUrl` links to the JSONL when it is published.
 */
export interface Submission {
  schema: typeof SUBMISSION_SCHEMA_ID;
  /** A name, a handle or an organisation. */
  submittedBy: string;
  /** Optional: an e-mail or a URL to reach the submitter. */
  contact?: string;
  /** What the agent is: model, prompt, scaffolding, sampling. */
  description?: string;
  /** A paper, repository or model card (http or https). */
  url?: string;
  /** Where the episode records (JSONL) can be downloaded (http or https). */
  recordsUrl?: string;
  /** The result file `turngym bench` wrote, as is. */
  result: BenchResult;
}

const httpUrl = { type: 'string', pattern: '^https?://', maxLength: 2000 } as const;

export const submissionSchema = {
  $id: 'https://turngym.dev/schemas/leaderboard-submission-v1.json',
  type: 'object',
  additionalProperties: false,
  required: ['schema', 'submittedBy', 'result'],
  properties: {
    schema: { type: 'string', const: SUBMISSION_SCHEMA_ID },
    submittedBy: { type: 'string', minLength: 1, maxLength: 200 },
    contact: { type: 'string', minLength: 1, maxLength: 200 },
    description: { type: 'string', minLength: 1, maxLength: 2000 },
    url: httpUrl,
    recordsUrl: httpUrl,
    result: { $ref: benchResultSchema.$id },
  },
} as const;

// The result is checked in full (schema and arithmetic) by validateBenchResult; here only its envelope.
const envelopeSchema = {
  ...submissionSchema,
  $id: `${submissionSchema.$id}#envelope`,
  properties: { ...submissionSchema.properties, result: { type: 'object' } },
};
const validateEnvelope = lazy(() =>
  compileValidator<Submission>(envelopeSchema, (problems) => new Error(problems.join('; ')), 'submission'),
);

/** One row's source: a result file written here, or a submission. */
export interface LeaderboardEntry {
  /** The file it came from. */
  file: string;
  result: BenchResult;
  submission: Omit<Submission, 'result' | 'schema'> | null;
  /** The records on this machine (absolute path), when they are here. */
  recordsFile: string | null;
  /** Where to fetch the records otherwise. */
  recordsUrl: string | null;
}

function checkAgainstSuite(file: string, result: BenchResult, suite: LoadedSuite): void {
  if (result.suite.sha256 !== suite.sha256) {
    throw new InvalidResultError(file, [
      `it ran a suite named ${suite.id} whose episodes differ from this ${suite.id} (sha256 ${result.suite.sha256.slice(0, 12)}… vs ${suite.sha256.slice(0, 12)}…)`,
    ]);
  }
  for (const env of result.envs) {
    const planned = suite.envs.find((other) => other.envId === env.envId);
    const seeds = planned?.episodes.map((episode) => episode.seed);
    if (!seeds || seeds.join() !== env.seeds.join()) {
      throw new InvalidResultError(file, [`${env.envId}: its seeds are not suite ${suite.id}'s`]);
    }
  }
}

/**
 * Reads a result or a submission file and validates it: the schema, the arithmetic (counts add up,
 * intervals contain their means), and — where the suite is known here — that it played the suite's episodes.
 */
export function readLeaderboardEntry(path: string, suites: readonly LoadedSuite[] = []): LeaderboardEntry {
  const file = resolve(path);
  let parsed: unknown;
  try {
    // A submission is edited by hand; Windows editors save a byte order mark first, which JSON.parse rejects.
    parsed = JSON.parse(withoutByteOrderMark(readFileSync(file, 'utf8')));
  } catch (error) {
    throw new InvalidResultError(file, [`not a readable JSON file (${(error as Error).message})`]);
  }
  const schema = (parsed as { schema?: unknown } | null)?.schema;
  let result: BenchResult;
  let submission: LeaderboardEntry['submission'] = null;
  if (schema === SUBMISSION_SCHEMA_ID) {
    let envelope: Submission;
    try {
      envelope = validateEnvelope()(parsed);
    } catch (error) {
      throw new InvalidResultError(file, [(error as Error).message]);
    }
    result = validateBenchResult(envelope.result, `${file} (result)`);
    submission = {
      submittedBy: envelope.submittedBy,
      ...(envelope.contact ? { contact: envelope.contact } : {}),
      ...(envelope.description ? { description: envelope.description } : {}),
      ...(envelope.url ? { url: envelope.url } : {}),
      ...(envelope.recordsUrl ? { recordsUrl: envelope.recordsUrl } : {}),
    };
  } else if (schema === BENCH_RESULT_SCHEMA_ID) {
    result = validateBenchResult(parsed, file);
  } else {
    // "got undefined" named neither the fault nor the field: a list of results, or a file with no schema at all.
    const got =
      typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)
        ? `the file holds ${Array.isArray(parsed) ? 'an array' : parsed === null ? 'null' : `a ${typeof parsed}`}, not a JSON object (one result or submission per file)`
        : schema === undefined
          ? 'it has no "schema" field'
          : `got ${JSON.stringify(schema)}`;
    throw new InvalidResultError(file, [
      `"schema" must be "${BENCH_RESULT_SCHEMA_ID}" (a result) or "${SUBMISSION_SCHEMA_ID}" (a submission); ${got}`,
    ]);
  }
  const suite = suites.find((candidate) => candidate.id === result.suite.id);
  if (suite) checkAgainstSuite(file, result, suite);
  let recordsFile: string | null = null;
  let recordsUrl: string | null = submission?.recordsUrl ?? null;
  if (result.records !== null) {
    if (/^https?:\/\//.test(result.records)) recordsUrl ??= result.records;
    // A submission's local path is a path on the submitter's machine: read here, it would name this machine's
    // files (a run of the same id beside the submissions, or anything else), shown as their episodes.
    else if (submission === null) {
      const candidate = resolve(dirname(file), result.records);
      if (existsSync(candidate)) recordsFile = candidate;
    }
  }
  return { file, result, submission, recordsFile, recordsUrl };
}

/**
 * Result and submission files: each path is a file, or a directory whose `*.json` files are read (a folder
 * named `x.json` in it is no file and is passed over). Paths that hold no such file at all are refused
 * (`InvalidResultError`): a leaderboard of nothing is a mistyped folder far more often than a wish.
 */
export function readLeaderboardEntries(
  paths: readonly string[],
  suites: readonly LoadedSuite[] = [],
): LeaderboardEntry[] {
  const files: string[] = [];
  for (const path of paths) {
    const full = resolve(path);
    if (!existsSync(full)) throw new InvalidResultError(full, ['no such file or directory']);
    if (statSync(full).isDirectory()) {
      for (const name of readdirSync(full).sort()) {
        // statSync, not the entry's type: a link to a result file is read like the file.
        if (name.endsWith('.json') && statSync(join(full, name)).isFile()) files.push(join(full, name));
      }
    } else {
      files.push(full);
    }
  }
  if (paths.length > 0 && files.length === 0) {
    throw new InvalidResultError(paths.join(', '), [
      'no result or submission files (*.json) here: pass the results directory `turngym bench` wrote (<out>/results), a submissions directory, or the files themselves',
    ]);
  }
  return files.map((file) => readLeaderboardEntry(file, suites));
}
