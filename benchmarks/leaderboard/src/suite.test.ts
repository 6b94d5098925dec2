import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { benchResultSchema } from './bench-result';
import { listSuites, loadSuite, SUITES_DIR } from './load-suite';
import { submissionSchema } from './submission';
import { suiteSchema, validateSuite } from './suite';

const SCHEMAS_DIR = join(__dirname, '..', 'schemas');

describe('suites', () => {
  it('ships quick and full, versioned, on the test split of every benchmark env, never the template', () => {
    const suites = listSuites();
    expect(suites.map((suite) => suite.id)).toEqual(['full-v1', 'quick-v1']);
    const quick = loadSuite('quick');
    expect(quick.id).toBe('quick-v1');
    expect(quick.version).toBe(1);
    expect(quick.envs.map((env) => env.envId)).toEqual([
      'turngym/math-thought-v1',
      'turngym/math-thought-calc-v1',
      'turngym/coding-sandbox-v1',
      'turngym/coding-fix-v1',
      'turngym/wiki-qa-v1',
      'turngym/wiki-race-v1',
      'turngym/seller-commander-v1',
      'turngym/seller-v1',
    ]);
    for (const suite of suites) {
      for (const env of suite.envs) {
        expect(env.options.split).toBe('test');
        expect(env.package).toMatch(/^@turngym\/env-/);
      }
      expect(suite.envs.some((env) => env.envId === 'turngym/example-v1')).toBe(false);
    }
    // quick's episodes are the first ones of full's: a quick score previews the full one.
    const full = loadSuite('full-v1');
    quick.envs.forEach((env, index) => {
      const seeds = env.episodes.map((episode) => episode.seed);
      expect(full.envs[index]?.episodes.slice(0, seeds.length).map((episode) => episode.seed)).toEqual(seeds);
    });
  });

  it('expands seed ranges and lists into keyed episodes, and hashes the content, not the formatting', () => {
    const raw = {
      id: 'mine-v2',
      description: 'x',
      entries: [
        { envId: 'a/b-v1', seeds: { start: 5, count: 2 } },
        { envId: 'a/c-v1', seeds: [9, 3], resetOptions: [{ taskId: 't1' }, { taskId: 't2' }] },
      ],
    };
    const suite = validateSuite(raw);
    expect(suite.name).toBe('mine');
    expect(suite.version).toBe(2);
    expect(suite.envs[0]?.episodes).toEqual([
      { key: '0.0', seed: 5 },
      { key: '0.1', seed: 6 },
    ]);
    expect(suite.envs[1]?.episodes[1]).toEqual({ key: '1.1', seed: 3, resetOptions: { taskId: 't2' } });
    const reordered = validateSuite({
      entries: [
        { seeds: { count: 2, start: 5 }, envId: 'a/b-v1' },
        { resetOptions: [{ taskId: 't1' }, { taskId: 't2' }], seeds: [9, 3], envId: 'a/c-v1' },
      ],
      description: 'x',
      id: 'mine-v2',
    });
    expect(reordered.sha256).toBe(suite.sha256);
    // The description is not part of what is played: rewording it keeps the hash.
    expect(validateSuite({ ...raw, description: 'reworded' }).sha256).toBe(suite.sha256);
    const changed = validateSuite({ id: 'mine-v2', description: 'x', entries: [{ envId: 'a/b-v1', seeds: [5, 7] }] });
    expect(changed.sha256).not.toBe(suite.sha256);
  });

  it('rejects a malformed suite with a message that names the field', () => {
    expect(() => validateSuite({ id: 'quick', description: 'x', entries: [{ envId: 'a-v1', seeds: [1] }] })).toThrow(
      /suite\.id must match pattern/,
    );
    expect(() => validateSuite({ id: 'q-v1', description: 'x', entries: [{ envId: 'a-v1' }] })).toThrow(
      /suite\.entries\[0\]\.seeds is required/,
    );
    expect(() =>
      validateSuite({ id: 'q-v1', description: 'x', entries: [{ envId: 'a-v1', seeds: [1], seed: 2 }] }),
    ).toThrow(/unknown field "seed"/);
    expect(() =>
      validateSuite({ id: 'q-v1', description: 'x', entries: [{ envId: 'a-v1', seeds: [1, 2], resetOptions: [{}] }] }),
    ).toThrow(/has 2 seeds but 1 resetOptions/);
    expect(() => validateSuite({ id: 'q-v1', description: 'x', entries: [{ envId: 'a-v1', seeds: [4, 4] }] })).toThrow(
      /plays seed 4 twice/,
    );
    expect(() => loadSuite('nonesuch')).toThrow(/Unknown suite "nonesuch": built-in suites are full-v1, quick-v1/);
    expect(() => loadSuite('/no/such/suite.json')).toThrow(/Cannot read suite file/);
  });

  // The JSON Schemas in schemas/ are for editors and other languages; the code's schemas are the truth.
  // UPDATE_SCHEMAS=1 npx jest benchmarks/leaderboard -t "schema files" rewrites the stale ones; the test still
  // compares the file as it was before the rewrite, so that run fails once and a run with the flag set can
  // never pass over a stale file.
  it.each([
    ['suite.schema.json', suiteSchema],
    ['bench-result.schema.json', benchResultSchema],
    ['submission.schema.json', submissionSchema],
  ])('the schema files match the code: %s', (file, schema) => {
    const path = join(SCHEMAS_DIR, file);
    const expected = { $schema: 'http://json-schema.org/draft-07/schema#', ...schema };
    const before: unknown = existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')) : '(missing)';
    if (process.env.UPDATE_SCHEMAS === '1' && !isDeepStrictEqual(before, expected))
      writeFileSync(path, `${JSON.stringify(expected, null, 2)}\n`);
    expect(before).toEqual(expected);
  });

  it('every shipped suite points editors at the suite schema', () => {
    for (const suite of listSuites()) {
      const raw = JSON.parse(readFileSync(join(SUITES_DIR, `${suite.id}.json`), 'utf8')) as { $schema?: string };
      expect(raw.$schema).toBe('../schemas/suite.schema.json');
    }
  });
});
