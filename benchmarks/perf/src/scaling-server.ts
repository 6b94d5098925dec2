/**
 * The env server of the scaling benchmark, as its own process (forked by `server-scaling.ts`): one
 * `serveEnvs` process, or with `workers` > 1 a `serveWorkers` primary whose workers run this same file.
 * Its settings come in `TURNGYM_SCALING_SERVER` (JSON); it sends `{ url, pids }` to its parent over IPC and
 * closes on `'close'`.
 */
import { Registry } from '@turngym/core';
import { clusterWorkerIndex, serveAsWorker, serveEnvs, serveWorkers } from '@turngym/server';
import { registerSleepEnv, SLEEP_ENV_ID, type SleepEnvOptions } from './sleep-env';

export interface ScalingServerSettings extends SleepEnvOptions {
  readonly workers: number;
  readonly maxSessions: number;
}

async function main(): Promise<void> {
  const settings = JSON.parse(process.env.TURNGYM_SCALING_SERVER ?? '{}') as ScalingServerSettings;
  const registry = new Registry();
  registerSleepEnv(registry, settings);
  // Sessions in these batches are short and many: no idle reaper or pings to add work of their own.
  const options = {
    registry,
    ids: [SLEEP_ENV_ID],
    maxSessions: settings.maxSessions,
    heartbeatMs: 0,
    idleTimeoutMs: 0,
  };
  if (clusterWorkerIndex() !== undefined) {
    await serveAsWorker(options);
    return;
  }
  const server =
    settings.workers > 1
      ? await serveWorkers({ workers: settings.workers, exec: __filename, args: [] })
      : await serveEnvs({ ...options, port: 0 });
  const pids = 'workerPids' in server ? [process.pid, ...server.workerPids()] : [process.pid];
  process.send?.({ url: server.url, pids });
  process.once('message', () => {
    void server.close().then(() => process.exit(0));
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
