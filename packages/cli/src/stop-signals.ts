import { writeLine } from './cli-io';

/** The shell's exit codes for a command stopped by a signal: 128 + SIGINT (Ctrl-C), 128 + SIGTERM. */
const EXIT_INTERRUPTED = 130;
const EXIT_TERMINATED = 143;

export function exitCodeForSignal(signal: NodeJS.Signals): number {
  return signal === 'SIGTERM' ? EXIT_TERMINATED : EXIT_INTERRUPTED;
}

export interface StopSignals {
  /** Aborts when the first SIGINT or SIGTERM arrives (with `finishing`): the command finishes what is in flight. */
  readonly signal: AbortSignal;
  /** The signal that stopped the command, once one arrived. */
  readonly stoppedBy: NodeJS.Signals | undefined;
  /** Stops listening for the signals (Node's defaults apply again). */
  dispose(): void;
}

/**
 * How a long command (`run`, `bench`, `train`) stops on a signal. A terminal's Ctrl-C sends SIGINT, a container
 * stop or a job scheduler SIGTERM: both are taken alike (under Node's default, SIGTERM killed a run mid-write and
 * said nothing). With `finishing` (what is in flight, e.g. "the episodes in flight"), the first signal aborts
 * `signal` and says so, and a second one quits at once; without it (work that cannot stop between its steps), the
 * first one quits at once. Quitting prints `quitHint(signal)` to stderr and exits 130 or 143; the process's exit
 * hooks still release run locks.
 */
export function watchStopSignals(
  stderr: NodeJS.WritableStream,
  options: { finishing?: string; quitHint: (signal: NodeJS.Signals) => string },
): StopSignals {
  const abort = new AbortController();
  let stoppedBy: NodeJS.Signals | undefined;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (options.finishing !== undefined && stoppedBy === undefined) {
      stoppedBy = signal;
      const again = signal === 'SIGINT' ? 'Ctrl-C' : signal;
      writeLine(stderr, `${signal}: finishing ${options.finishing}; ${again} again quits now`);
      abort.abort(signal);
      return;
    }
    writeLine(stderr, options.quitHint(signal));
    process.exit(exitCodeForSignal(signal));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    signal: abort.signal,
    get stoppedBy() {
      return stoppedBy;
    },
    dispose: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}
