import { Registry } from '@turngym/core';
import { UsageError } from './cli-errors';
import { loadServer } from './optional-modules';

/** What `--remote`, `--token` and `--options` say about the env server a command runs against. */
export interface RemoteTarget {
  readonly url: string;
  readonly token?: string;
  /** Sent to the server, which validates them against the env's schema and its client-options policy. */
  readonly envOptions?: Record<string, unknown>;
}

/** `--remote` must name a `turngym serve` server: ws(s):// or http(s)://, as `check --remote` takes it. */
export function checkRemoteUrl(url: string): void {
  if (!/^(wss?|https?):\/\/./.test(url))
    throw new UsageError(`--remote must be a ws:// (or http://) URL of a turngym server, got "${url}".`);
}

/**
 * A registry holding one id whose every `make()` opens a new session on the server (`RemoteEnv`), so the code that
 * runs local envs (wrappers, recorder, concurrency, errored episodes) runs remote ones unchanged: each worker's env
 * is its own connection, and a connection that drops (`ENV_FAULT`) voids only its episode. The env need not be
 * installed here; its own baselines (an expert that reads the env's state) cannot run against it.
 */
export function remoteRegistry(id: string, target: RemoteTarget): Registry {
  const { RemoteEnv } = loadServer();
  const registry = new Registry();
  registry.register({
    id,
    entryPoint: () =>
      RemoteEnv.connect(target.url, {
        envId: id,
        ...(target.token !== undefined ? { token: target.token } : {}),
        ...(target.envOptions !== undefined ? { envOptions: target.envOptions } : {}),
      }),
  });
  return registry;
}
