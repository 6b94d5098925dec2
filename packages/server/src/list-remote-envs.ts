import { EnvFaultError, TurnGymError } from '@turngym/core';
import type { EnvSpec } from '@turngym/spec';
import { readReplyWithin } from './bounded-reply';
import { UnauthorizedError, RemoteProtocolError } from './server-errors';

/** Far above any real listing (every spec with its tool schemas), far below what would strain a client's memory. */
const MAX_LISTING_BYTES = 16 * 1024 * 1024;

export interface RemoteEnvListing {
  readonly id: string;
  readonly summary: string;
  readonly spec: EnvSpec;
}

/** The HTTP base URL of a server given any of the URL forms RemoteEnv accepts. */
function httpBaseOf(url: string): string {
  const parsed = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(url) ? url : `http://${url}`);
  if (parsed.protocol === 'ws:') parsed.protocol = 'http:';
  if (parsed.protocol === 'wss:') parsed.protocol = 'https:';
  // A per-env base (/envs/<id>) or a /ws URL still lists the whole server.
  parsed.pathname = parsed.pathname
    .replace(/\/+$/, '')
    .replace(/\/ws$/, '')
    .replace(/\/envs\/.+$/, '');
  parsed.search = '';
  return parsed.toString().replace(/\/+$/, '');
}

/** The envs a server serves (`GET /envs`): what `turngym check --remote` checks one by one. */
export async function listRemoteEnvs(
  url: string,
  options: { token?: string; timeoutMs?: number } = {},
): Promise<RemoteEnvListing[]> {
  const target = `${httpBaseOf(url)}/envs`;
  let response: Response;
  try {
    response = await fetch(target, {
      headers: options.token === undefined ? {} : { authorization: `Bearer ${options.token}` },
      signal: AbortSignal.timeout(options.timeoutMs ?? 60_000),
    });
  } catch (error) {
    throw new EnvFaultError(`Cannot reach ${target}: ${(error as Error).message}`, { cause: error });
  }
  if (response.status === 401) throw new UnauthorizedError();
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw new RemoteProtocolError(`HTTP_${response.status}`, `${target} answered ${response.status}`);
  }
  let text: string;
  try {
    text = await readReplyWithin(response, MAX_LISTING_BYTES, target);
  } catch (error) {
    if (TurnGymError.isInstance(error)) throw error;
    throw new EnvFaultError(`Lost ${target} while reading its reply: ${(error as Error).message}`, { cause: error });
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new RemoteProtocolError('INVALID_REPLY', `${target} answered with a body that is not JSON`);
  }
  const envs = (body as { envs?: unknown } | null)?.envs;
  if (!Array.isArray(envs)) throw new RemoteProtocolError('INVALID_REPLY', `${target} did not list envs`);
  return envs as RemoteEnvListing[];
}
