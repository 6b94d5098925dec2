/** The logger the composition layer hands out. Messages go to stderr so stdout stays machine-readable. */
export interface Logger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** Writes to a stream (default: the process's stderr); debug lines only when verbose. */
export class ConsoleLogger implements Logger {
  constructor(
    private readonly verbose = false,
    private readonly stream: NodeJS.WritableStream = process.stderr,
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
