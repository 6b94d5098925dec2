import { SingleBar } from 'cli-progress';
import type { CliIo } from './cli-io';

export interface Progress {
  increment(): void;
  stop(): void;
}

const SILENT: Progress = { increment: () => {}, stop: () => {} };

/** A progress bar on stderr, only when stderr is a terminal: piped or captured output stays clean. */
export function createProgress(io: CliIo, total: number, label: string): Progress {
  if (!io.stderr.isTTY) return SILENT;
  const bar = new SingleBar({
    stream: io.stderr,
    format: `${label} [{bar}] {value}/{total} episodes | {duration_formatted} | eta {eta_formatted}`,
    hideCursor: true,
    clearOnComplete: true,
  });
  bar.start(total, 0);
  return {
    increment: () => bar.increment(),
    stop: () => bar.stop(),
  };
}
