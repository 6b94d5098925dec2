import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { captureIo as captureIoAt } from './__fixtures__/capture-io';
import { runCli } from './program';

/** The CLI's streams, 120 columns wide as these tests' progress lines were written for. */
const captureIo = (options: { stderrIsTty?: boolean } = {}) => captureIoAt({ ...options, columns: 120 });

describe('runCli (in-process)', () => {
  it('shows a progress bar on stderr only when stderr is a terminal', async () => {
    const terminal = captureIo({ stderrIsTty: true });
    expect(await runCli(['run', 'turngym/example-v1', '--agent', 'scripted', '--episodes', '4'], terminal)).toBe(0);
    expect(terminal.output().stderr).toMatch(/turngym\/example-v1 · scripted \[.*\] \d\/4 episodes/);
    expect(terminal.output().stdout).toMatch(/success rate\s+1\.000/);

    const piped = captureIo();
    expect(await runCli(['run', 'turngym/example-v1', '--agent', 'scripted', '--episodes', '4', '--json'], piped)).toBe(
      0,
    );
    expect(piped.output().stderr).not.toMatch(/episodes/);
    expect(JSON.parse(piped.output().stdout)).toMatchObject({ summary: { successRate: 1 } });
  });

  it('answers --version and --help on stdout with exit code 0', async () => {
    const io = captureIo();
    expect(await runCli(['--version'], io)).toBe(0);
    expect(io.output().stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    const help = captureIo();
    expect(await runCli(['--help'], help)).toBe(0);
    for (const command of ['list', 'info', 'check', 'play', 'run', 'serve', 'new-env', 'quickstart'])
      expect(help.output().stdout).toContain(command);
  });

  it('play shows what the env echoes with its terminal escapes made visible, never sent to the terminal', async () => {
    const io = captureIo();
    const stdin = new PassThrough();
    // (a carriage return would end the line for readline)
    stdin.end('LOOKUP(a\u001b]0;pwned\u0007\u001b[2J\u009b2Jb)\n');
    expect(await runCli(['play', 'turngym/example-v1'], { ...io, stdin })).toBe(0);
    const { stdout } = io.output();
    expect(stdout).toContain('LOOKUP a\\u001b]0;pwned\\u0007\\u001b[2J\\u009b2Jb: no such key.');
    // eslint-disable-next-line no-control-regex -- no control character but line feeds reaches the terminal
    expect(stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
  });

  it("run takes a chat model's timeout and retries, as bench does", async () => {
    const server = createServer(() => undefined); // accepts, never answers
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const io = captureIo();
      const argv = ['run', 'turngym/example-v1', '--agent', 'openai:m', '--base-url', `http://127.0.0.1:${port}/v1`];
      expect(await runCli([...argv, '--timeout-ms', '300', '--max-retries', '0', '--temperature', '0.5'], io)).toBe(2);
      expect(io.output().stderr).toContain('no answer within 300 ms');
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('names the flag and exits 2 for a --set without "="', async () => {
    const io = captureIo();
    expect(await runCli(['train', 'grpo', '--env', 'turngym/example-v1', '--set', 'noequals'], io)).toBe(2);
    expect(io.output().stderr).toContain('--set expects key=value, got "noequals".');
  });

  it('names the flag when an output path is a file where a directory goes, or the reverse', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'turngym-cli-out-'));
    const file = join(dir, 'somefile');
    writeFileSync(file, 'mine');
    try {
      for (const [argv, message] of [
        [['run', 'turngym/example-v1', '--agent', 'scripted', '--out', dir], `--out ${dir} is a directory, not a file`],
        [['report', dir, '--out', dir], `--out ${dir} is a directory, not a file`],
        [['bench', 'quick', '--agent', 'scripted', '--out', file], `--out ${file} is a file, not a directory`],
        [['leaderboard', '--out', file], `--out ${file} is a file, not a directory`],
        [
          ['train', 'grpo', '--env', 'turngym/example-v1', '--run-dir', join(file, 'run')],
          `--run-dir ${join(file, 'run')}: ${file} is a file`,
        ],
      ] as const) {
        const io = captureIo();
        const code = await runCli([...argv], io);
        expect(io.output().stderr).toContain(message);
        expect(code).toBe(2);
      }
      expect(readFileSync(file, 'utf8')).toBe('mine');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
