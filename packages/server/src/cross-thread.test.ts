import { checkEnv, InvalidActionTypeError } from '@turngym/core';
import { ExampleEnv } from '@turngym/env-example';
import type { Action } from '@turngym/spec';
import { startServerThread, type ServerThread } from './__fixtures__/server-thread';
import { inProcessSessions } from './internal/in-process-sessions';
import { stopSyncRequests } from './internal/sync-http';
import { RemoteEnv } from './remote-env';

/**
 * The server runs in another thread, as `turngym serve` runs in another process: RemoteEnv's synchronous
 * hooks then go through the blocking side request, not the same-thread shortcut.
 */
let server: ServerThread;

beforeAll(async () => {
  server = await startServerThread({ token: 'tkn' });
}, 30000);

afterAll(async () => {
  await stopSyncRequests();
  expect(await server.close()).toBe(0);
});

describe('RemoteEnv against a server in another thread', () => {
  it('answers fingerprint() and anchor() synchronously through the side channel', async () => {
    const remote = await RemoteEnv.connect(server.url, { token: 'tkn' });
    // Nothing of that server lives in this thread: no shortcut is possible.
    expect(inProcessSessions().has(remote.sessionId)).toBe(false);
    const local = new ExampleEnv();
    const reset = await remote.reset({ seed: 8 });
    await local.reset({ seed: 8 });
    const start = /Start with key (\S+?)\.?$/.exec(reset.observation)?.[1] as string;
    const actions: Action[] = [
      `LOOKUP(${start})`,
      'LOOKUP(other)',
      'SUBMIT(3)',
      ')(',
      { name: 'SUBMIT', arguments: { answer: '1' } },
    ];
    expect(actions.map((action) => remote.fingerprint(action))).toEqual(
      actions.map((action) => local.fingerprint(action)),
    );
    await remote.step(`LOOKUP(${start})`);
    await local.step(`LOOKUP(${start})`);
    expect(remote.fingerprint(`LOOKUP(${start})`)).toBe(local.fingerprint(`LOOKUP(${start})`));
    expect(remote.anchor()).toBe(local.anchor());
    const twin = await remote.fork();
    expect(twin.fingerprint('LOOKUP(other)')).toBe(local.fingerprint('LOOKUP(other)'));
    await twin.close();
    // A fresh session has no reply to read the anchor from yet: the side channel answers.
    const fresh = await RemoteEnv.connect(server.url, { token: 'tkn', envId: 'test/echo-v1' });
    expect(fresh.anchor()).toBe('said-0');
    expect(() => fresh.fingerprint({ name: 'SAY', arguments: {} })).toThrow(InvalidActionTypeError);
    await fresh.close();
    await remote.close();
    await local.close();
  });

  it('passes the env checker', async () => {
    const report = await checkEnv(() => RemoteEnv.connect(server.url, { token: 'tkn' }));
    expect(report.results.filter((result) => !result.passed)).toEqual([]);
    // Sessions close their env just after their client sees the connection close.
    for (let tries = 0; tries < 200 && (await server.stats()).live > 0; tries++)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await server.stats()).toEqual({ live: 0, open: 0 });
  });
});
