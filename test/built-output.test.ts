import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assertBuiltUpToDate, builtPackageDirs, staleBuilds } from './helpers/built-output';

describe('the check that the built output is newer than the sources', () => {
  let root: string;
  /** Writes `file` under the fake package with its mtime `seconds` after the epoch. */
  const write = (file: string, seconds: number): void => {
    const path = join(root, 'pkg', file);
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, '');
    utimesSync(path, seconds, seconds);
  };
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'turngym-built-output-'));
    write('src/index.ts', 1000);
    write('src/deep/part.ts', 1000);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('passes a package built after its last source change', () => {
    write('dist/.tsbuildinfo', 2000);
    expect(staleBuilds(['pkg'], root)).toEqual([]);
    expect(() => assertBuiltUpToDate(['pkg'], root)).not.toThrow();
  });

  it('fails with "run npm run build" when a source changed after the build, naming the file', () => {
    write('dist/.tsbuildinfo', 2000);
    write('src/deep/part.ts', 3000);
    expect(staleBuilds(['pkg'], root)).toEqual([`pkg: ${join('src', 'deep', 'part.ts')} changed after the last build`]);
    expect(() => assertBuiltUpToDate(['pkg'], root)).toThrow(/older than the sources[\s\S]*\nrun npm run build$/);
  });

  it('fails for a package that was never built', () => {
    expect(staleBuilds(['pkg'], root)).toEqual([`pkg: not built (no ${join('dist', '.tsbuildinfo')})`]);
  });

  it('ignores tests and test fixtures, which the build does not compile', () => {
    write('dist/.tsbuildinfo', 2000);
    write('src/index.test.ts', 3000);
    write('src/__fixtures__/fake.ts', 3000);
    expect(staleBuilds(['pkg'], root)).toEqual([]);
  });
});

describe('the packages the built CLI runs', () => {
  it('are the CLI, its workspace dependencies (transitively) and every env plugin with its own', () => {
    const dirs = builtPackageDirs(['packages/cli'], { plugins: true });
    for (const dir of ['packages/cli', 'packages/core', 'packages/spec', 'packages/lm', 'benchmarks/leaderboard'])
      expect(dirs).toContain(dir);
    for (const dir of ['templates/env', 'environments/math-thought', 'environments/seller', 'packages/llm'])
      expect(dirs).toContain(dir); // env plugins, and llm through env-seller
    expect(dirs).not.toContain('benchmarks/perf');
  });
});
