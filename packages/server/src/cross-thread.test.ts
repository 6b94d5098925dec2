import { checkEnv, InvalidActionTypeError, Registry } from '@turngym/core';
import { ExampleEnv } from '@turngym/env-example';
import { register as registerMathThought } from '@turngym/env-math-thought';
import type { Action, Agent, Env } from '@turngym/spec';
import { startServerThread, type ServerThread } from './__fixtures__/server-thread';
import { ALL_IDS, testRegistry } from './__fixtures__/test-envs';
import { inProcessSessions } from './internal/in-process-sessions';
import { stopSyncRequests } from './internal/sync-http';
import { RemoteEnv, type RemoteEnvOptions } from './remote-env';

/**
 * The server runs in another thread, as `turngym serve` runs in another process: RemoteEnv's synchronous
 * hooks then go through the blocking side request, not the same-thread shortcut, and fork and the env
 * checker cross a real thread boundary. Envs: the test env (echo) and a real registered one (math-thought).
 */
const MATH_THOUGHT = 'turngym/math-thought-v1';
const TOKEN = 'tkn';
let server: ServerThread;
/** The same envs, built in this thread: what the remote hooks are held against. */
const local = testRegistry();
registerMathThought(local);

beforeAll(async () => {
  server = await startServerThread({ token: TOKEN, ids: [...ALL_IDS, MATH_THOUGHT] }, ['@turngym/env-math-thought']);
}, 30000);

afterAll(async () => {
  await stopSyncRequests();
  expect(await server.close()).toBe(0);
});

/** RemoteEnvs a test opened: closed after it even when it fails, so the wait below cannot hang on them. */
const opened: RemoteEnv[] = [];

function connect(options: RemoteEnvOptions = {}): Promise<RemoteEnv> {
  return RemoteEnv.connect(server.url, { token: TOKEN, ...options }).then((env) => kept(env));
}

function kept(env: RemoteEnv): RemoteEnv {
  opened.push(env);
  return env;
}

afterEach(async () => {
  await Promise.all(opened.splice(0).map((env) => env.close()));
  // Every session of the test is closed, and its env with it, on the server's side of the boundary.
  expect(await server.settled()).toEqual({ live: 0, open: 0 });
});

describe('RemoteEnv against a server in another thread', () => {
  it('answers fingerprint() and anchor() synchronously through the side channel', async () => {
    const remote = await connect();
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
    const twin = kept(await remote.fork());
    expect(twin.fingerprint('LOOKUP(other)')).toBe(local.fingerprint('LOOKUP(other)'));
    await twin.close();
    // A fresh session has no reply to read the anchor from yet: the side channel answers.
    const fresh = await connect({ envId: 'test/echo-v1' });
    expect(fresh.anchor()).toBe('said-0');
    expect(() => fresh.fingerprint({ name: 'SAY', arguments: {} })).toThrow(InvalidActionTypeError);
    await fresh.close();
    await remote.close();
    await local.close();
  });

  it('passes the env checker', async () => {
    const report = await checkEnv(() => connect());
    expect(report.results.filter((result) => !result.passed)).toEqual([]);
  });
});

/** The actions played in each env, and actions asked about in every state but never played. */
const PLAYS: Record<
  string,
  { actions(env: Env<string, Action>, registry: Registry): Agent<string>; probes: string[] }
> = {
  'test/echo-v1': {
    actions: () => {
      const lines = ['hello', 'again', 'bye'];
      return { name: 'lines', start: async () => undefined, act: async () => lines.shift() as string };
    },
    probes: ['bye', 'hi', ''],
  },
  [MATH_THOUGHT]: {
    actions: (env, registry) => registry.makeAgent(MATH_THOUGHT, 'scripted', { env, seed: 0 }) as Agent<string>,
    probes: ['Answer: 12', '<calc>4 * 3</calc>', 'The total is 7 + 5 = 12.', ''],
  },
};

describe.each([
  ['its own connection (/ws)', false],
  ['a shared connection (/mux)', true],
])('across the thread boundary, over %s', (_transport, multiplex) => {
  it.each(Object.keys(PLAYS))(
    '%s: fingerprints, anchors and forks match the env built in this thread',
    async (envId) => {
      const play = PLAYS[envId] as (typeof PLAYS)[string];
      const remote = await connect({ envId, multiplex });
      expect(inProcessSessions().has(remote.sessionId)).toBe(false);
      const reference = (await local.make(envId)) as Env<string, Action>;
      // Before any reset, no reply carries an anchor yet: the side request answers.
      expect(remote.anchor()).toBe(reference.anchor());
      const agent = play.actions(reference, local);
      const first = await reference.reset({ seed: 5 });
      expect((await remote.reset({ seed: 5 })).observation).toBe(first.observation);
      await agent.start({ seed: 5, spec: reference.spec, observation: first.observation, info: first.info });
      let [observation, info] = [first.observation, first.info];
      for (let turn = 0; ; turn++) {
        const action = (await agent.act(observation, info)) as string;
        const asked = [action, ...play.probes];
        // A new state: the cache is empty, so each of these is a side request to the other thread.
        expect(asked.map((probe) => remote.fingerprint(probe))).toEqual(
          asked.map((probe) => reference.fingerprint(probe)),
        );
        expect(remote.anchor()).toBe(reference.anchor());
        if (turn === 1) {
          // Fork over the wire: the twin is a new server session at this state, driven on its own.
          const twin = kept(await remote.fork());
          const localTwin = await reference.fork();
          expect(inProcessSessions().has(twin.sessionId)).toBe(false);
          const stepped = await twin.step(play.probes[0] as string);
          const localStepped = await localTwin.step(play.probes[0] as string);
          expect([stepped.observation, stepped.info.anchor]).toEqual([
            localStepped.observation,
            localStepped.info.anchor,
          ]);
          expect(play.probes.map((probe) => twin.fingerprint(probe))).toEqual(
            play.probes.map((probe) => localTwin.fingerprint(probe)),
          );
          expect(twin.anchor()).toBe(localTwin.anchor());
          await Promise.all([twin.close(), localTwin.close()]);
          // The original did not move with its twin.
          expect((await remote.state()).step_count).toBe(turn);
          expect(remote.anchor()).toBe(reference.anchor());
        }
        const step = await remote.step(action);
        const expected = await reference.step(action);
        expect([step.observation, step.reward, step.terminated, step.truncated]).toEqual([
          expected.observation,
          expected.reward,
          expected.terminated,
          expected.truncated,
        ]);
        expect([step.info.fingerprint, step.info.anchor]).toEqual([expected.info.fingerprint, expected.info.anchor]);
        [observation, info] = [step.observation, step.info];
        if (step.terminated || step.truncated) break;
      }
      // Past turn 1, so the fork above happened.
      expect((await remote.state()).step_count).toBeGreaterThan(1);
      await remote.close();
      await reference.close();
    },
  );

  it.each(['test/echo-v1', 'test/choice-v1', MATH_THOUGHT])('%s passes the env checker', async (envId) => {
    const report = await checkEnv(() => connect({ envId, multiplex }));
    expect(report.results.filter((result) => !result.passed)).toEqual([]);
    expect(report.passed).toBe(true);
  });
});
