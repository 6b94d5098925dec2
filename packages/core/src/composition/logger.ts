/** The logger the composition layer hands out. Messages go to stderr so stdout stays machine-readable. */
export interface Logger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export class ConsoleLogger implements Logger {
  constructor(private readonly verbose = false) {}
  debug(message: string): void {
    if (this.verbose) process.stderr.write(`debug: ${message}\n`);
  }
  info(message: string): void {
    process.stderr.write(`${message}\n`);
  }
  warn(message: string): void {
    process.stderr.write(`warning: ${message}\n`);
  }
  error(message: string): void {
    process.stderr.write(`error: ${message}\n`);
  }
}
