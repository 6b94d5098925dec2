import { registry as defaultRegistry } from '@turngym/core';
import { EnvServer } from './env-server';
import { validateServeSettings, type ServeOptions } from './server-options';

/** A running env server. */
export interface ServerHandle {
  /** Base URL, e.g. `http://127.0.0.1:8000`: HTTP routes hang off it, and `/ws` is the WebSocket session. */
  readonly url: string;
  readonly port: number;
  /** Graceful shutdown: every session's client is told (close code 1001) and every env is closed. */
  close(): Promise<void>;
  /** Envs alive right now: connected sessions, unclaimed forks, envs of in-flight HTTP requests. */
  liveSessions(): number;
}

/**
 * Serves registered envs over OpenEnv's protocol (WebSocket `/ws`, HTTP `/health`, `/metadata`, `/schema`,
 * `/reset`, `/step`) plus TurnGym's extensions (fork, per-session env id, budgets). Every id is built once
 * before the port opens, so a typo fails here and not on the first client.
 *
 * ```ts
 * const server = await serveEnvs({ registry, ids: ['turngym/example-v1'], port: 8000 });
 * const env = await RemoteEnv.connect(server.url);
 * ```
 */
export async function serveEnvs(options: ServeOptions): Promise<ServerHandle> {
  const { registry = defaultRegistry, logger, onSessionClosed, clock, ...rest } = options;
  const settings = validateServeSettings(
    Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined)),
  );
  const server = new EnvServer(settings, registry, logger, onSessionClosed, clock);
  await server.start();
  return {
    url: server.url,
    port: server.port,
    close: () => server.close(),
    liveSessions: () => server.liveSessions(),
  };
}
