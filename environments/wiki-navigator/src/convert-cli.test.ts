import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeJsonlCorpus } from './corpus/jsonl-corpus';
import { generateSyntheticArticles } from './corpus/synthetic-encyclopedia';

// The built bin, as `npx turngym-wiki-convert` runs it.
const CLI = join(__dirname, '..', 'dist', 'convert-cli.js');

const page = (title: string, text: string): string =>
  `<page><title>${title}</title><ns>0</ns><id>1</id><revision><id>2</id><text>${text}</text></revision></page>`;
const DUMP = `<mediawiki>${['Alpha', 'Beta', 'Gamma', 'Delta'].map((title) => page(title, `'''${title}''' is a letter. See [[Alpha]].`)).join('')}</mediawiki>`;

describe('turngym-wiki-convert command line', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'wiki-convert-cli-'));
    writeFileSync(join(dir, 'dump.xml'), DUMP);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const convert = (...args: string[]): { status: number | null; stdout: string; stderr: string } => {
    const result = spawnSync(process.execPath, [CLI, ...args], { cwd: dir, encoding: 'utf8' });
    return { status: result.status, stdout: result.stdout, stderr: result.stderr };
  };

  it('names the pages it converted with part of their wikitext left out, and converts the rest', () => {
    const nested = `Before. ${'{{x|'.repeat(2000)}y${'}}'.repeat(2000)} After.`;
    writeFileSync(
      join(dir, 'nested.xml'),
      `<mediawiki>${page('Nested', nested)}${page('Plain', 'A page.')}</mediawiki>`,
    );
    const result = convert('nested.xml', 'nested.jsonl');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain(
      'nested.xml: 1 pages converted with part of their wikitext left out, 0 pages not converted; the first:\n  "Nested": converted without 1 templates nested over 40 deep\n',
    );
    expect(readFileSync(join(dir, 'nested.jsonl'), 'utf8').trim().split('\n')).toHaveLength(2);
  });

  it('refuses an option it does not know instead of converting the whole dump without it', () => {
    // A typo of --max-articles: on a Wikipedia dump, hours of conversion the user did not ask for.
    const typo = convert('dump.xml', 'typo.jsonl', '--max-article', '2');
    expect(typo.status).toBe(2);
    expect(typo.stderr).toMatch(/^turngym-wiki-convert: unknown option --max-article\nusage: /);
    expect(existsSync(join(dir, 'typo.jsonl'))).toBe(false);
    const missing = convert('dump.xml', 'missing.jsonl', '--max-articles');
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/^turngym-wiki-convert: --max-articles needs a value\n/);
  });

  it('refuses a number option that is not a whole number it can use', () => {
    for (const [args, message] of [
      [['--synthetic-dump', 'x.xml', '--articles', '5', '--seed', 'abc'], '--seed needs a whole number (got "abc")'],
      [
        ['--synthetic-dump', 'x.xml', '--articles', '5', '--revisions', '0'],
        '--revisions needs a whole number of at least 1 (got "0")',
      ],
      [['--synthetic-dump', 'x.xml', '--articles', '2.5'], '--articles needs a whole number of at least 1 (got "2.5")'],
      [
        ['dump.xml', 'x.jsonl', '--max-articles', '1e3'],
        '--max-articles needs a whole number of at least 1 (got "1e3")',
      ],
    ] as const) {
      const result = convert(...args);
      expect({ args, status: result.status, message: result.stderr.split('\n')[0] }).toEqual({
        args,
        status: 2,
        message: `turngym-wiki-convert: ${message}`,
      });
    }
    expect(existsSync(join(dir, 'x.xml')) || existsSync(join(dir, 'x.jsonl'))).toBe(false);
    expect(convert('--synthetic-dump', 'neg.xml', '--articles', '3', '--seed', '-1').status).toBe(0);
  });

  it('reads --option=value as --option value', () => {
    const result = convert('dump.xml', 'two.jsonl', '--max-articles=2');
    expect({ status: result.status, stderr: result.stderr }).toEqual({ status: 0, stderr: '' });
    expect(readFileSync(join(dir, 'two.jsonl'), 'utf8').trim().split('\n')).toHaveLength(2);
  });

  const hasMkfifo = spawnSync('mkfifo', ['--version'], { stdio: 'ignore' }).status === 0;
  (hasMkfifo ? it : it.skip)(
    'removes its partial output when interrupted (Ctrl-C), and keeps the previous one',
    async () => {
      // The dump comes through a pipe that never ends, as a slow download would: the conversion is surely under
      // way, and not finished, when the signal comes.
      const fifo = join(dir, 'slow.xml');
      spawnSync('mkfifo', [fifo]);
      writeFileSync(join(dir, 'kept.jsonl'), '{"title": "Previous"}\n');
      const child = spawn(process.execPath, [CLI, 'slow.xml', 'kept.jsonl'], { cwd: dir });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      const writer = createWriteStream(fifo);
      writer.on('error', () => undefined); // the reader is gone once interrupted
      writer.write(DUMP.slice(0, DUMP.length >> 1));
      for (let waited = 0; !existsSync(join(dir, 'kept.jsonl.converting')) && waited < 200; waited++)
        await new Promise((resolve) => setTimeout(resolve, 50));
      expect(existsSync(join(dir, 'kept.jsonl.converting'))).toBe(true);
      child.kill('SIGINT');
      // Its reply comes before it exits; the pipe is then closed, as the end of a download would close it: a
      // process cannot exit while a read of a pipe that never ends is pending (a file's read always returns).
      for (let waited = 0; !stderr.includes('\n') && waited < 200; waited++)
        await new Promise((resolve) => setTimeout(resolve, 50));
      writer.end();
      expect(await exited).toBe(130);
      expect(stderr).toBe(
        'turngym-wiki-convert: slow.xml: the conversion was interrupted; kept.jsonl is left as it was\n',
      );
      expect(existsSync(join(dir, 'kept.jsonl.converting'))).toBe(false);
      expect(readFileSync(join(dir, 'kept.jsonl'), 'utf8')).toBe('{"title": "Previous"}\n');
    },
  );
  it('removes a store build interrupted during task generation (Ctrl-C, kill) and exits as the signal says', () => {
    // Task generation is synchronous: a handler never ran before the last task, so the `.building` files stayed.
    // The hook sends the signal from within it (at its first pause), so the test does not race the build.
    writeJsonlCorpus(join(dir, 'tasks.jsonl'), generateSyntheticArticles({ seed: 4, articles: 600 }), []);
    writeFileSync(join(dir, 'kept.sqlite'), 'the previous store');
    for (const [signal, code] of [
      ['SIGINT', 130],
      ['SIGTERM', 143],
    ] as const) {
      const result = spawnSync(process.execPath, [CLI, '--store', 'tasks.jsonl', 'kept.sqlite'], {
        cwd: dir,
        encoding: 'utf8',
        env: { ...process.env, TURNGYM_WIKI_CONVERT_TEST_SIGNAL: `tasks:${signal}` },
      });
      expect({ signal, status: result.status, stdout: result.stdout, stderr: result.stderr }).toEqual({
        signal,
        status: code,
        stdout: '',
        stderr: 'turngym-wiki-convert: kept.sqlite: the build was interrupted; kept.sqlite is left as it was\n',
      });
      expect(existsSync(join(dir, 'kept.sqlite.building')) || existsSync(join(dir, 'kept.sqlite.building-work'))).toBe(
        false,
      );
      expect(readFileSync(join(dir, 'kept.sqlite'), 'utf8')).toBe('the previous store');
    }
    // From a dump: the JSONL it converted is whole and kept, so `--store` builds from it without converting again.
    expect(convert('--synthetic-dump', 'many.xml', '--articles', '600').status).toBe(0);
    const fromDump = spawnSync(process.execPath, [CLI, 'many.xml', 'dumped.sqlite'], {
      cwd: dir,
      encoding: 'utf8',
      env: { ...process.env, TURNGYM_WIKI_CONVERT_TEST_SIGNAL: 'tasks:SIGINT' },
    });
    expect({ status: fromDump.status, stderr: fromDump.stderr }).toEqual({
      status: 130,
      stderr: 'turngym-wiki-convert: dumped.sqlite: the build was interrupted; dumped.sqlite is left as it was\n',
    });
    expect(readdirSync(dir).filter((name) => name.startsWith('dumped.'))).toEqual(['dumped.sqlite.jsonl']);
  });

  (hasMkfifo ? it : it.skip)('removes a store build interrupted while it reads its JSONL', async () => {
    const fifo = join(dir, 'slow.jsonl');
    spawnSync('mkfifo', [fifo]);
    const child = spawn(process.execPath, [CLI, '--store', 'slow.jsonl', 'slow.sqlite'], { cwd: dir });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const writer = createWriteStream(fifo);
    writer.on('error', () => undefined);
    writer.write(`${JSON.stringify({ title: 'Alpha', lead: 'A letter.' })}\n`);
    for (let waited = 0; !existsSync(join(dir, 'slow.sqlite.building')) && waited < 200; waited++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(existsSync(join(dir, 'slow.sqlite.building'))).toBe(true);
    child.kill('SIGTERM');
    for (let waited = 0; !stderr.includes('\n') && waited < 200; waited++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    writer.end();
    expect(await exited).toBe(143);
    expect(stderr).toBe(
      'turngym-wiki-convert: slow.sqlite: the build was interrupted; slow.sqlite is left as it was\n',
    );
    expect(existsSync(join(dir, 'slow.sqlite.building')) || existsSync(join(dir, 'slow.sqlite.building-work'))).toBe(
      false,
    );
    expect(existsSync(join(dir, 'slow.sqlite'))).toBe(false);
  });
});
