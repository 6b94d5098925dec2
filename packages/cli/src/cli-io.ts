/**
 * The streams a command talks to. Commands never touch `process.stdout` directly, so the whole CLI can run
 * in-process against in-memory streams (and stdout stays machine-readable: logs and bars go to stderr).
 */
export interface CliIo {
  readonly stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  readonly stdout: NodeJS.WritableStream & { isTTY?: boolean };
  readonly stderr: NodeJS.WritableStream & { isTTY?: boolean };
}

export function processIo(): CliIo {
  return { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr };
}

/** Writes one line (a newline is added). */
export function writeLine(stream: NodeJS.WritableStream, text = ''): void {
  stream.write(`${text}\n`);
}
