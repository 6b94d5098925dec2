import { PassThrough } from 'node:stream';
import type { CliIo } from '../cli-io';

/** Streams for `runCli` in a test: stdin ended, stdout and stderr captured as text (stderr `columns` wide). */
export function captureIo(options: { stderrIsTty?: boolean; columns?: number } = {}): CliIo & {
  output(): { stdout: string; stderr: string };
} {
  const stdout = new PassThrough();
  const stderr = Object.assign(new PassThrough(), {
    isTTY: options.stderrIsTty ?? false,
    columns: options.columns ?? 160,
  });
  const stdin = new PassThrough();
  stdin.end();
  let out = '';
  let err = '';
  stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  return { stdin, stdout, stderr, output: () => ({ stdout: out, stderr: err }) };
}
