import { TurnGymError } from '@turngym/core';

/** A bad `npm run bench` command line or results file: the message names the flag or the file. */
export class BenchArgumentError extends TurnGymError {
  constructor(message: string) {
    super('BENCH_ARGUMENTS', message);
  }
}
