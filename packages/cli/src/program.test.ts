import { PassThrough } from 'node:stream';
import type { CliIo } from './cli-io';
import { runCli } from './program';

interface CapturedIo extends CliIo {
  output(): { stdout: string; stderr: string };
}

function captureIo(options: { stderrIsTty?: boolean } = {}): CapturedIo {
  const stdout = new PassThrough();
  const stderr = Object.assign(new PassThrough(), { isTTY: options.stderrIsTty ?? false, columns: 120 });
  const stdin = new PassThrough();
  stdin.end();
  let out = '';
  let err = '';
  stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  return { stdin, stdout, stderr, output: () => ({ stdout: out, stderr: err }) };
}

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
});
