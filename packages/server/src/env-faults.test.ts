import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { BaseEnv, type EnvResetOutcome, type EnvStepOutcome, type Logger } from '@turngym/core';
import type { Action, EnvSpec } from '@turngym/spec';
import { SessionEvents } from './__fixtures__/session-events';
import { testRegistry } from './__fixtures__/test-envs';
import { WsClient } from './__fixtures__/ws-client';
import { serveEnvs } from './serve-envs';

/** How the fault envs misbehave; each test sets what it needs after the server has started. */
const faults = { close: 'none' as 'none' | 'hang' | 'throw', constructor: false };

/** `test/faulty-v1`: an echo env whose close() hangs or throws, and whose constructor throws, when told to. */
class FaultyEnv extends BaseEnv<string, Action> {
  readonly spec: EnvSpec = {
    specificationVersion: 'v1',
    id: 'test/faulty-v1',
    summary: 'Echoes; its close() and constructor fail on command.',
    observationSpace: { type: 'text' },
    actionSpace: { type: 'text' },
    maxTurns: 10,
    rewardRange: [0, 1],
  };
  constructor() {
    super();
    if (faults.constructor) throw new Error('the faulty env could not start');
  }
  protected spawn(): FaultyEnv {
    return new FaultyEnv();
  }
  protected onReset(): EnvResetOutcome<string> {
    return { observation: 'Say something.' };
  }
  protected onStep(action: Action): EnvStepOutcome<string> {
    return { observation: `echo: ${String(action)}`, reward: 0, terminated: false };
  }
  fingerprint(): string {
    return 'SAY';
  }
  anchor(): string {
    return 'start';
  }
  protected override onClose(): Promise<void> | void {
    // A close that waits on something that never ends (a child process that will not exit).
    if (faults.close === 'hang') return new Promise<void>(() => undefined);
    if (faults.close === 'throw') throw new Error('close blew up');
  }
}

function faultRegistry(): ReturnType<typeof testRegistry> {
  const registry = testRegistry();
  registry.register({ id: 'test/faulty-v1', entryPoint: () => new FaultyEnv() });
  return registry;
}

function recordingLogger(): Logger & { readonly lines: string[] } {
  const lines: string[] = [];
  const record = (message: string): void => void lines.push(message);
  return { lines, debug: record, info: record, warn: record, error: record };
}

afterEach(() => {
  faults.close = 'none';
  faults.constructor = false;
});

describe('an env whose close() hangs or throws', () => {
  it('frees its session slot, lets a reset switch away from it, and is logged', async () => {
    const logger = recordingLogger();
    const events = new SessionEvents();
    const server = await serveEnvs({
      registry: faultRegistry(),
      ids: ['test/faulty-v1', 'test/echo-v1'],
      maxSessions: 1,
      shutdownGraceMs: 50,
      logger,
      onSessionClosed: events.onSessionClosed,
    });
    for (const mode of ['hang', 'throw'] as const) {
      faults.close = mode;
      const client = await WsClient.open(`${server.url}/ws`);
      expect((await client.request({ type: 'reset' })).type).toBe('observation');
      client.send({ type: 'close' });
      await client.closed;
      await events.until(() => server.liveSessions() === 0);
    }
    // With one slot, a leaked one would turn this client away with CAPACITY_REACHED.
    const client = await WsClient.open(`${server.url}/ws`);
    await client.request({ type: 'reset' });
    // A reset onto another env answers, though the env it leaves never finishes closing.
    faults.close = 'hang';
    const switched = await client.request({ type: 'reset', data: { env_id: 'test/echo-v1' } });
    expect(switched.data.observation.text).toMatch(/^Say something \(seed/);
    client.close();
    await events.until(() => server.liveSessions() === 0);
    expect(logger.lines).toEqual([
      expect.stringMatching(/env close\(\) did not finish within 50 ms/),
      expect.stringMatching(/env close\(\) failed: close blew up/),
      expect.stringMatching(/env close\(\) did not finish within 50 ms/),
    ]);
    await server.close();
  });

  it('does not hold up shutdown, nor stateless HTTP requests', async () => {
    const server = await serveEnvs({ registry: faultRegistry(), ids: ['test/faulty-v1'], shutdownGraceMs: 50 });
    faults.close = 'hang';
    const reset = await fetch(`${server.url}/reset`, { method: 'POST' });
    expect(reset.status).toBe(200);
    expect(server.liveSessions()).toBe(0);
    const client = await WsClient.open(`${server.url}/ws`);
    await client.request({ type: 'reset' });
    await server.close();
    expect((await client.closed).code).toBe(1001);
    expect(server.liveSessions()).toBe(0);
  });

  it('does not stop the server from starting when the env built to read its spec fails to close', async () => {
    for (const mode of ['hang', 'throw'] as const) {
      faults.close = mode;
      const logger = recordingLogger();
      const server = await serveEnvs({
        registry: faultRegistry(),
        ids: ['test/faulty-v1'],
        shutdownGraceMs: 50,
        logger,
      });
      expect((await fetch(`${server.url}/health`)).status).toBe(200);
      expect(logger.lines).toEqual([expect.stringContaining('starting test/faulty-v1: env close()')]);
      faults.close = 'none';
      await server.close();
    }
  });
});

describe('an env whose constructor throws', () => {
  it('is a FACTORY_ERROR naming the env (HTTP 404), over the WebSocket, a reset switching to it and HTTP', async () => {
    const server = await serveEnvs({ registry: faultRegistry(), ids: ['test/echo-v1', 'test/faulty-v1'] });
    faults.constructor = true;
    const expected = {
      code: 'FACTORY_ERROR',
      turngym_code: 'ENV_BUILD',
      factory_name: 'test/faulty-v1',
      message: expect.stringContaining('the faulty env could not start'),
    };
    const refused = await WsClient.open(`${server.url}/ws?env=test/faulty-v1`);
    expect((await refused.next()).data).toMatchObject(expected);
    expect((await refused.closed).code).toBe(1000);
    const client = await WsClient.open(`${server.url}/ws`);
    expect((await client.request({ type: 'reset', data: { env_id: 'test/faulty-v1' } })).data).toMatchObject(expected);
    // The session keeps its env.
    expect((await client.request({ type: 'step', data: { text: 'hi' } })).type).toBe('error');
    expect((await client.request({ type: 'reset' })).data.observation.text).toMatch(/^Say something \(seed/);
    client.close();
    const http = await fetch(`${server.url}/envs/test/faulty-v1/reset`, { method: 'POST' });
    expect(http.status).toBe(404);
    const { message, ...rest } = expected;
    expect(await http.json()).toEqual({ ...rest, detail: message, retryable: false });
    await server.close();
  });
});

/** `turngym serve` of the fixture env in its own process (from the sources), until the test ends it. */
async function startServe(): Promise<{
  url: string;
  stderr: () => string;
  logged: (text: string) => Promise<void>;
  exited: Promise<number | null>;
  kill: (signal: NodeJS.Signals) => void;
}> {
  const cli = path.join(__dirname, '__fixtures__', 'run-cli-from-source.js');
  const plugin = path.join(__dirname, '__fixtures__', 'stray-rejection-env.js');
  const child = spawn(
    process.execPath,
    [cli, 'serve', 'fixture/stray-rejection-v1', '--plugin', plugin, '--port', '0'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  const kill = (signal: NodeJS.Signals): void => void child.kill(signal);
  try {
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        stdout += chunk;
        const match = /serving .* at (http:\/\/\S+)/.exec(stdout);
        if (match) resolve(match[1] as string);
      });
      void exited.then((code) => reject(new Error(`serve exited with ${code}: ${stderr}`)));
    });
    const logged = (text: string): Promise<void> =>
      new Promise<void>((resolve) => {
        const check = (): void => void (stderr.includes(text) && resolve());
        child.stderr.on('data', check);
        check();
      });
    return { url, stderr: () => stderr, logged, exited, kill };
  } catch (error) {
    kill('SIGKILL');
    throw error;
  }
}

describe('turngym serve', () => {
  it('logs a stray promise rejection of an env and keeps serving', async () => {
    const serve = await startServe();
    try {
      const client = await WsClient.open(`${serve.url}/ws`);
      await client.request({ type: 'reset' });
      const { session_id: sessionId } = (await client.request({ type: 'state' })).data as { session_id: string };
      expect((await client.request({ type: 'step', data: { text: 'reject-later' } })).type).toBe('observation');
      // The rejection comes after the reply; the session sees it only as the log line, never a lost connection.
      await serve.logged('stray rejection from the env');
      // The log names the session whose env left the promise behind.
      expect(serve.stderr()).toContain(
        `unhandled promise rejection in session ${sessionId} (fixture/stray-rejection-v1), still serving: Error: stray rejection from the env`,
      );
      expect((await client.request({ type: 'step', data: { text: 'still there?' } })).data.observation.text).toBe(
        'echo: still there?',
      );
      client.close();
      serve.kill('SIGTERM');
      expect(await serve.exited).toBe(0);
    } finally {
      serve.kill('SIGKILL');
    }
  });

  it("ends only the session whose env's timer threw, logs it, and keeps serving the others", async () => {
    const serve = await startServe();
    try {
      const faulty = await WsClient.open(`${serve.url}/ws`);
      const healthy = await WsClient.open(`${serve.url}/ws`);
      await faulty.request({ type: 'reset' });
      await healthy.request({ type: 'reset' });
      const { session_id: faultyId } = (await faulty.request({ type: 'state' })).data as { session_id: string };
      expect((await faulty.request({ type: 'step', data: { text: 'throw-later' } })).type).toBe('observation');
      // The exception is thrown after the reply, from the env's own timer: that session is closed (1011) ...
      expect(await faulty.closed).toEqual({ code: 1011, reason: 'the env failed outside a request' });
      expect(serve.stderr()).toMatch(
        new RegExp(
          `uncaught exception in the env code of session ${faultyId} \\(fixture/stray-rejection-v1\\), closing it; still serving: Error: stray exception from the env`,
        ),
      );
      // ... the other one goes on, and new sessions open.
      expect((await healthy.request({ type: 'step', data: { text: 'still there?' } })).data.observation.text).toBe(
        'echo: still there?',
      );
      const next = await WsClient.open(`${serve.url}/ws`);
      expect((await next.request({ type: 'reset' })).type).toBe('observation');
      next.close();
      healthy.close();
      serve.kill('SIGTERM');
      expect(await serve.exited).toBe(0);
    } finally {
      serve.kill('SIGKILL');
    }
  });

  it('exits with code 1 on an uncaught exception no env session owns, as Node does, saying so', async () => {
    const serve = await startServe();
    try {
      const client = await WsClient.open(`${serve.url}/ws`);
      await client.request({ type: 'reset' });
      await client.request({ type: 'step', data: { text: 'throw-later-unowned' } });
      expect(await serve.exited).toBe(1);
      expect(serve.stderr()).toMatch(
        /uncaught exception outside any env's code, exiting: Error: exception owned by no session/,
      );
    } finally {
      serve.kill('SIGKILL');
    }
  });
});
