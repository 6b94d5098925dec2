import {
  checkEnv,
  EnvClosedError,
  EnvFaultError,
  formatCheckReport,
  InvalidOptionsError,
  NameNotFoundError,
  ResetNeededError,
  runEpisode,
  TurnGymError,
} from '@turngym/core';
import { ExampleEnv, ExampleSolver } from '@turngym/env-example';
import type { Action, Env, StepResult } from '@turngym/spec';
import { SessionEvents } from './__fixtures__/session-events';
import { ALL_IDS, gates, openEnvs, testRegistry } from './__fixtures__/test-envs';
import { RemoteEnv } from './remote-env';
import { serveEnvs, type ServerHandle } from './serve-envs';
import { UnauthorizedError } from './server-errors';
import { listRemoteEnvs } from './list-remote-envs';

let server: ServerHandle;
const events = new SessionEvents();

beforeAll(async () => {
  server = await serveEnvs({
    registry: testRegistry(),
    ids: ALL_IDS,
    port: 0,
    onSessionClosed: events.onSessionClosed,
  });
});

afterAll(async () => {
  await server.close();
  expect(openEnvs.count).toBe(0);
});

const withoutWallMs = (result: { info: any }): unknown => ({
  ...result,
  info: { ...result.info, cost: { ...result.info.cost, wallMs: 0 } },
});

/** Plays the scripted solver and returns every reset/step result. */
async function trace(env: Env<string, Action>, seed: number): Promise<unknown[]> {
  const solver = new ExampleSolver();
  const reset = await env.reset({ seed });
  await solver.start({ seed, spec: env.spec, observation: reset.observation, info: reset.info });
  const results: unknown[] = [withoutWallMs(reset)];
  let step: StepResult<string> | undefined;
  let observation = reset.observation;
  do {
    step = await env.step(await solver.act(observation));
    observation = step.observation;
    results.push(withoutWallMs(step));
  } while (!step.terminated && !step.truncated);
  return results;
}

describe.each([
  ['its own connection (/ws)', false],
  ['a shared connection (/mux)', true],
])('RemoteEnv over %s', (_transport, multiplex) => {
  it('plays the same episode as the env in-process, for the same seed', async () => {
    const remote = await RemoteEnv.connect(server.url, { multiplex });
    const local = new ExampleEnv();
    expect(remote.spec).toEqual(JSON.parse(JSON.stringify(local.spec)));
    for (const seed of [0, 1, 42]) expect(await trace(remote, seed)).toEqual(await trace(local, seed));
    expect(await runEpisode(remote, new ExampleSolver(), 9)).toMatchObject({ success: true, turns: 4 });
    await remote.close();
    await local.close();
  });

  it('passes the env checker, for every served env', async () => {
    for (const envId of ALL_IDS) {
      const report = await checkEnv(() => RemoteEnv.connect(server.url, { multiplex, envId }));
      expect({ envId, failed: report.results.filter((result) => !result.passed) }).toEqual({ envId, failed: [] });
      expect(report.passed).toBe(true);
      expect(formatCheckReport(report)).toContain(`${envId}: all`);
    }
    await events.until(() => server.liveSessions() === 0);
  });

  it('forks: the twin continues from the same state and the two are independent', async () => {
    const remote = await RemoteEnv.connect(server.url, { multiplex });
    const local = new ExampleEnv();
    const first = await remote.reset({ seed: 11 });
    await local.reset({ seed: 11 });
    const start = /Start with key (\S+?)\.?$/.exec(first.observation)?.[1] as string;
    await remote.step(`LOOKUP(${start})`);
    await local.step(`LOOKUP(${start})`);
    const twin = await remote.fork();
    expect(twin.sessionId).not.toBe(remote.sessionId);
    expect(twin.anchor()).toBe(local.anchor());
    expect((await twin.state()).step_count).toBe(1);
    const ended = await twin.step('SUBMIT(0)');
    expect(ended.terminated).toBe(true);
    // The original has not ended: it can still look keys up.
    const next = await remote.step('LOOKUP(nothing)');
    expect(next).toMatchObject({ terminated: false, observation: 'LOOKUP nothing: no such key.' });
    await twin.close();
    await remote.close();
    await local.close();
  });

  it('refuses a step, reset or fork while a step is awaiting its reply (ENV_BUSY), as a local env does', async () => {
    const remote = await RemoteEnv.connect(server.url, { multiplex });
    await remote.reset({ seed: 11 });
    const first = remote.step('LOOKUP(nothing)');
    await expect(remote.step('LOOKUP(other)')).rejects.toMatchObject({ code: 'ENV_BUSY' });
    await expect(remote.reset({ seed: 12 })).rejects.toMatchObject({ code: 'ENV_BUSY' });
    await expect(remote.fork()).rejects.toMatchObject({ code: 'ENV_BUSY' });
    await expect(first).resolves.toMatchObject({ observation: 'LOOKUP nothing: no such key.' });
    // Settled, the env is free again, and the refused calls never reached the server.
    expect((await remote.state()).step_count).toBe(1);
    await expect(remote.step('LOOKUP(nothing)')).resolves.toMatchObject({ terminated: false });
    await remote.close();
  });

  it('fingerprint() and anchor() are synchronous and match the env in-process', async () => {
    const remote = await RemoteEnv.connect(server.url, { multiplex });
    const local = new ExampleEnv();
    await remote.reset({ seed: 4 });
    const reset = await local.reset({ seed: 4 });
    const start = /Start with key (\S+?)\.?$/.exec(reset.observation)?.[1] as string;
    const actions: Action[] = [
      `LOOKUP(${start})`,
      'LOOKUP(elsewhere)',
      'SUBMIT(1)',
      '((garbage',
      { name: 'LOOKUP', arguments: { key: start } },
    ];
    expect(actions.map((action) => remote.fingerprint(action))).toEqual(
      actions.map((action) => local.fingerprint(action)),
    );
    expect(await remote.fingerprints(actions)).toEqual(actions.map((action) => local.fingerprint(action)));
    expect(remote.anchor()).toBe(local.anchor());
    const step = await remote.step(`LOOKUP(${start})`);
    await local.step(`LOOKUP(${start})`);
    expect(remote.anchor()).toBe(local.anchor());
    expect(step.info.anchor).toBe(local.anchor());
    // After the step the state changed: the cache must not answer with the old state's fingerprint.
    expect(remote.fingerprint(`LOOKUP(${start})`)).toBe(local.fingerprint(`LOOKUP(${start})`));
    await remote.close();
    await local.close();
  });

  it("takes a call whose arguments are a JSON string (OpenAI's wire form), as the env in-process does", async () => {
    // The server's schema wants an object: the step threw a VALIDATION_ERROR where an in-process env answers it.
    const remote = await RemoteEnv.connect(server.url, { multiplex });
    const local = new ExampleEnv();
    await remote.reset({ seed: 4 });
    const reset = await local.reset({ seed: 4 });
    const start = /Start with key (\S+?)\.?$/.exec(reset.observation)?.[1] as string;
    const call = { name: 'LOOKUP', arguments: JSON.stringify({ key: start }) } as unknown as Action;
    const [there, here] = [await remote.step(call), await local.step(call)];
    expect(there.observation).toBe(here.observation);
    expect(there.observation).not.toMatch(/arguments/);
    await remote.close();
    await local.close();
  });

  it('rethrows the typed errors an env raises in-process', async () => {
    const remote = await RemoteEnv.connect(server.url, { multiplex });
    await expect(remote.step('LOOKUP(a)')).rejects.toBeInstanceOf(ResetNeededError);
    await remote.close();
    await remote.close();
    await expect(remote.reset()).rejects.toBeInstanceOf(EnvClosedError);
    await expect(RemoteEnv.connect(server.url, { multiplex, envId: 'nope/nothing-v1' })).rejects.toBeInstanceOf(
      NameNotFoundError,
    );
    await expect(RemoteEnv.connect(server.url, { multiplex, envOptions: { keys: 'many' } })).rejects.toBeInstanceOf(
      InvalidOptionsError,
    );
    const ids = await listRemoteEnvs(server.url.replace('http', 'ws') + '/ws');
    expect(ids.map((listing) => listing.id)).toEqual(ALL_IDS);
  });

  it('takes a turn limit and budgets, enforced by the server', async () => {
    const limited = await RemoteEnv.connect(server.url, { multiplex, maxTurns: 1 });
    await limited.reset({ seed: 1 });
    expect((await limited.step('LOOKUP(a)')).info).toMatchObject({ truncatedBy: 'time-limit', success: false });
    await limited.close();
    const budget = await RemoteEnv.connect(`${server.url}/envs/turngym/example-v1`, {
      multiplex,
      budget: { maxToolCalls: 1 },
    });
    await budget.reset({ seed: 1 });
    expect(await budget.step('LOOKUP(a)')).toMatchObject({ truncated: true, info: { truncatedBy: 'tool-calls' } });
    await budget.close();
  });

  it('fails with a retryable EnvFaultError when the server goes away mid-episode', async () => {
    const own = await serveEnvs({ registry: testRegistry(), ids: ['test/echo-v1'], port: 0, shutdownGraceMs: 0 });
    const remote = await RemoteEnv.connect(own.url, { multiplex });
    await remote.reset();
    const gate = `gone-${String(multiplex)}`;
    const inFlight = remote.step(`gate:${gate}`).catch((caught: unknown) => caught);
    await gates.reached(gate);
    // No grace: the server closes while the step is at its gate, so its reply can never come.
    await own.close();
    gates.open(gate);
    expect(await inFlight).toBeInstanceOf(EnvFaultError);
    const error = await remote.step('hi').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(EnvFaultError);
    expect((error as TurnGymError).isRetryable).toBe(true);
    await remote.close();
    await expect(RemoteEnv.connect(own.url, { multiplex, timeoutMs: 2000 })).rejects.toBeInstanceOf(EnvFaultError);
  });

  it('sends the bearer token', async () => {
    const own = await serveEnvs({ registry: testRegistry(), ids: ['test/echo-v1'], port: 0, token: 's3cret' });
    await expect(RemoteEnv.connect(own.url, { multiplex })).rejects.toBeInstanceOf(UnauthorizedError);
    await expect(RemoteEnv.connect(own.url, { multiplex, token: 'wrong' })).rejects.toBeInstanceOf(UnauthorizedError);
    const remote = await RemoteEnv.connect(own.url, { multiplex, token: 's3cret' });
    expect((await remote.reset({ seed: 2 })).observation).toBe('Say something (seed 2).');
    const twin = await remote.fork();
    expect((await twin.step('bye')).terminated).toBe(true);
    await twin.close();
    await remote.close();
    await own.close();
  });
});
