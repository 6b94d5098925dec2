import { SingleBar } from 'cli-progress';
import type { EpisodeProgress, RunStart } from './run-suite';

export interface SuiteProgress {
  start(start: RunStart): void;
  episode(progress: EpisodeProgress): void;
  stop(): void;
}

const SILENT: SuiteProgress = { start: () => {}, episode: () => {}, stop: () => {} };

/**
 * A progress bar for `runSuite` on `stream` (stderr), only when it is a terminal: piped or captured output
 * stays clean. Shows the env being played and the errored count.
 */
export function createSuiteProgress(stream: NodeJS.WritableStream & { isTTY?: boolean }, label: string): SuiteProgress {
  if (!stream.isTTY) return SILENT;
  const bar = new SingleBar({
    stream,
    format: `${label} [{bar}] {value}/{total} episodes | {env} | errored {errored} | {duration_formatted} | eta {eta_formatted}`,
    hideCursor: true,
    clearOnComplete: true,
    etaBuffer: 50,
  });
  let started = false;
  return {
    start: ({ total, done, plan }) => {
      bar.start(total, done, { env: plan.envs[0]?.envId ?? '', errored: 0 });
      started = true;
    },
    episode: ({ done, envId, errored }) => bar.update(done, { env: envId, errored }),
    stop: () => {
      if (started) bar.stop();
    },
  };
}
