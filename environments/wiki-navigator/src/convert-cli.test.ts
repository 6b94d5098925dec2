import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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
});
