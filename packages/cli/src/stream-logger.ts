import type { Logger } from '@turngym/core';

/** Core's Logger on the CLI's stderr: stdout carries only results (tables, JSON). */
export class StreamLogger implements Logger {
  constructor(
    private readonly stream: NodeJS.WritableStream,
    private readonly verbose: boolean,
  ) {}

  debug(message: string): void {
    if (this.verbose) this.stream.write(`debug: ${message}\n`);
  }

  info(message: string): void {
    this.stream.write(`${message}\n`);
  }

  warn(message: string): void {
    this.stream.write(`warning: ${message}\n`);
  }

  error(message: string): void {
    this.stream.write(`error: ${message}\n`);
  }
}
