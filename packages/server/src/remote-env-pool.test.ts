import { EnvFaultError, InvalidOptionsError, runEpisode, TurnGymError } from '@turngym/core';
import { openEnvs, testRegistry } from './__fixtures__/test-envs';
import { RemoteEnvPool } from './remote-env-pool';
import type { RemoteEnv } from './remote-env';
import { serveEnvs, type ServerHandle } from './serve-envs';
import { NoServerAvailableError } from './server-errors';

const ID = 'test/echo-v1';

async function threeServers(): Promise<ServerHandle[]> {
  return Promise.all([0, 1, 2].map(() => serveEnvs({ registry: testRegistry(), ids: [ID], port: 0 })));
}

function countBy(values: readonly (string | undefined)[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[String(value)] = (counts[String(value)] ?? 0) + 1;
  return counts;
}

describe('RemoteEnvPool', () => {
  let servers: ServerHandle[];
  let pool: RemoteEnvPool;
  beforeEach(async () => {
    servers = await threeServers();
    pool = new RemoteEnvPool(
      servers.map((server) => server.url),
      { healthIntervalMs: 0 },
    );
  });
  afterEach(async () => {
    pool.close();
    await Promise.all(servers.map((server) => server.close()));
    expect(openEnvs.count).toBe(0);
  });

  it('spreads sessions over the servers and keeps each session and its forks on its server', async () => {
    const envs = await Promise.all(Array.from({ length: 6 }, () => pool.connect()));
    expect(countBy(envs.map((env) => pool.serverOf(env)))).toEqual(
      Object.fromEntries(servers.map((server) => [server.url, 2])),
    );
    for (const env of envs) {
      await env.reset({ seed: 1 });
      await env.step('hello');
      const twin = await env.fork();
      expect(pool.serverOf(twin)).toBe(pool.serverOf(env));
      expect((await twin.step('again')).info.anchor).toBe('said-2');
      await twin.close();
    }
    expect(pool.servers().map((server) => server.sessions)).toEqual([2, 2, 2]);
    await Promise.all(envs.map((env) => env.close()));
    expect(pool.servers().map((server) => server.sessions)).toEqual([0, 0, 0]);
  });

  it('errors the episodes of a server that goes away, and opens new sessions on the others only', async () => {
    const envs: RemoteEnv[] = await Promise.all(Array.from({ length: 6 }, () => pool.connect()));
    await Promise.all(envs.map((env, i) => env.reset({ seed: i })));
    const gone = servers[1]!;
    await gone.close();

    const outcomes = await Promise.all(
      envs.map((env) =>
        env.step('hello').then(
          () => 'stepped',
          (error: unknown) => (error instanceof EnvFaultError ? 'ENV_FAULT' : String(error)),
        ),
      ),
    );
    expect(outcomes).toEqual(envs.map((env) => (pool.serverOf(env) === gone.url ? 'ENV_FAULT' : 'stepped')));

    // New sessions: the first that tries the dead server marks it down and goes on to the next one.
    const fresh = await Promise.all(Array.from({ length: 6 }, () => pool.connect()));
    expect(fresh.map((env) => pool.serverOf(env))).not.toContain(gone.url);
    expect(pool.servers()[1]).toMatchObject({ url: gone.url, healthy: false, lastError: expect.any(String) });
    expect((await pool.checkHealth()).map((server) => server.healthy)).toEqual([true, false, true]);
    // Whole episodes on the pool's sessions end normally.
    const last = await pool.connect();
    const episode = await runEpisode(last, { start: () => undefined, act: () => 'bye' }, 3);
    expect([episode.success, episode.totalReward]).toEqual([true, 1]);
    await last.close();
    await Promise.all([...envs, ...fresh].map((env) => env.close()));
  });

  it('says which servers failed when none takes the session', async () => {
    await Promise.all(servers.map((server) => server.close()));
    const failure = await pool.connect().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(NoServerAvailableError);
    expect((failure as TurnGymError).isRetryable).toBe(true);
    for (const server of servers) expect((failure as Error).message).toContain(server.url);
    expect(pool.servers().every((server) => !server.healthy)).toBe(true);
  });

  it('validates its options, naming the field', () => {
    expect(() => new RemoteEnvPool([])).toThrow(InvalidOptionsError);
    expect(() => new RemoteEnvPool(['http://a'], { healthIntervalMs: -1 })).toThrow(/healthIntervalMs/);
  });
});
