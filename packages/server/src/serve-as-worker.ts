import cluster from 'node:cluster';
import type { Socket } from 'node:net';
import { registry as defaultRegistry } from '@turngym/core';
import { EnvServer } from './env-server';
import type { ServerHandle } from './serve-envs';
import { validateServeSettings, type ServeOptions } from './server-options';
import { WorkerStartError } from './server-errors';
import type { WorkerMessage } from './serve-workers';
import { workerSessionPrefix } from './worker-routing';

/** The index `serveWorkers` gave this process (`TURNGYM_WORKER_INDEX`), or undefined outside its cluster. */
export function clusterWorkerIndex(): number | undefined {
  const index = process.env.TURNGYM_WORKER_INDEX;
  return cluster.isWorker && index !== undefined && /^\d+$/.test(index) ? Number(index) : undefined;
}

/**
 * The worker side of `serveWorkers`: a whole env server (the same options as `serveEnvs`; `port` and `host`
 * are the primary's business) that takes the connections the primary hands it, with session ids prefixed by
 * its index so the primary can route fork claims and side requests back to it. It tells the primary when it
 * is ready (or why it could not start), closes gracefully when the primary asks, and exits if the primary
 * goes away. Signals are the primary's to handle (a terminal's Ctrl-C reaches every process of the group).
 */
export async function serveAsWorker(options: ServeOptions): Promise<ServerHandle> {
  const index = clusterWorkerIndex();
  const send = (message: WorkerMessage): void => void process.send?.(message);
  if (index === undefined || !process.send) {
    throw new WorkerStartError('serveAsWorker runs in a worker that serveWorkers started (TURNGYM_WORKER_INDEX)');
  }
  const { registry = defaultRegistry, logger, onSessionClosed, clock, ...rest } = options;
  let server: EnvServer;
  try {
    const settings = validateServeSettings(
      Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined)),
    );
    server = new EnvServer(settings, registry, logger, onSessionClosed, clock, workerSessionPrefix(index));
    await server.start({ listen: false });
  } catch (error) {
    send({ turngym: 'failed', message: error instanceof Error ? error.message : String(error) });
    throw error;
  }
  const ignore = (): void => undefined;
  process.on('SIGINT', ignore);
  process.on('SIGTERM', ignore);
  let closing: Promise<void> | undefined;
  const shutdown = (): Promise<void> =>
    (closing ??= (async () => {
      await server.close();
      if (process.connected) process.disconnect();
      process.exit(0);
    })());
  process.on('message', (message: WorkerMessage, socket?: Socket) => {
    if (message?.turngym === 'connection' && socket) server.adopt(socket, Buffer.from(message.head, 'base64'));
    else if (message?.turngym === 'shutdown') void shutdown();
  });
  // The primary died without asking: nobody can route to this worker any more.
  process.on('disconnect', () => void shutdown());
  send({ turngym: 'ready' });
  return {
    url: server.url,
    port: server.port,
    close: () => server.close(),
    liveSessions: () => server.liveSessions(),
  };
}
