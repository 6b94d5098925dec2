import { spawn } from 'node:child_process';
import { WsClient } from './__fixtures__/ws-client';

/**
 * A server (`serveEnvs` with `turngym serve`'s fault guard) of `test/pooled-v1`, whose steps share one pool as the
 * coding sandbox's envs share `SandboxPool.shared()`: the first session that steps starts the pool's timer, and the
 * timer serves every session's jobs. The job `trips-the-pool` meets a bug of the pool itself: the pool fails that
 * job for its caller, and the bug is thrown from the pool's timer, outside any request.
 */
const SERVER = `
const { BaseEnv, Registry, runUnowned } = require('@turngym/core');
const { installEnvFaultGuard, serveEnvs } = require('@turngym/server');

class SharedPool {
  constructor() { this.jobs = []; this.timer = undefined; }
  run(name) {
    this.timer ??= runUnowned(() => setInterval(() => this.tick(), 5));
    return new Promise((resolve, reject) => this.jobs.push({ name, resolve, reject }));
  }
  tick() {
    const job = this.jobs.shift();
    if (!job) return;
    if (job.name !== 'trips-the-pool') return job.resolve();
    job.reject(new Error('the pool failed on job ' + job.name));
    throw new Error('pool bug on job ' + job.name);
  }
}
const pool = new SharedPool();

class PooledEnv extends BaseEnv {
  constructor() {
    super();
    this.spec = { specificationVersion: 'v1', id: 'test/pooled-v1', summary: 'Steps through a shared pool.',
      observationSpace: { type: 'text' }, actionSpace: { type: 'text' }, maxTurns: 10, rewardRange: [0, 1] };
  }
  spawn() { return new PooledEnv(); }
  onReset() { return { observation: 'Say something.' }; }
  async onStep(action) {
    await pool.run(action);
    return { observation: 'done: ' + action, reward: 0, terminated: false };
  }
  fingerprint() { return 'SAY'; }
  anchor() { return 'start'; }
}

const registry = new Registry();
registry.register({ id: 'test/pooled-v1', entryPoint: () => new PooledEnv() });
const log = (message) => process.stderr.write(message + '\\n');
installEnvFaultGuard({ debug: log, info: log, warn: log, error: log }, (code) => {
  log('exiting with ' + code);
  process.exit(code);
});
void serveEnvs({ registry, ids: ['test/pooled-v1'], port: 0, shutdownGraceMs: 100 }).then((server) =>
  process.stdout.write('serving at ' + server.url + '\\n'),
);
`;

async function startServer(): Promise<{
  url: string;
  stderr: () => string;
  logged: (text: string) => Promise<void>;
  exited: Promise<number | null>;
  kill: (signal: NodeJS.Signals) => void;
}> {
  // The built packages (dist/), as `turngym serve` runs them: build first (npx tsc -b packages/server).
  const child = spawn(process.execPath, ['-e', SERVER], { cwd: __dirname, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  const kill = (signal: NodeJS.Signals): void => void child.kill(signal);
  try {
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        stdout += chunk;
        const match = /serving at (http:\/\/\S+)/.exec(stdout);
        if (match) resolve(match[1] as string);
      });
      void exited.then((code) => reject(new Error(`the server exited with ${code}: ${stderr}`)));
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

describe("a shared pool's own faults", () => {
  it('close no session (not the one whose step started the pool): the job fails for its caller, the server goes on', async () => {
    const server = await startServer();
    try {
      const a = await WsClient.open(`${server.url}/ws`);
      const b = await WsClient.open(`${server.url}/ws`);
      await a.request({ type: 'reset' });
      await b.request({ type: 'reset' });
      // A's step starts the pool's timer ...
      expect((await a.request({ type: 'step', data: { text: 'first' } })).data.observation.text).toBe('done: first');
      // ... and B's job trips a bug of the pool: B's step gets an error, not a hang.
      const failed = await b.request({ type: 'step', data: { text: 'trips-the-pool' } });
      expect(failed).toMatchObject({
        type: 'error',
        data: { code: 'EXECUTION_ERROR', message: expect.stringContaining('the pool failed on job trips-the-pool') },
      });
      await server.logged('uncaught exception');
      // It was logged as no session's, and closed none: before, it was A's (whose step started the pool's timer),
      // and A was closed with 1011.
      expect(server.stderr()).toContain(
        "uncaught exception in the env code of no session (a shared pool's own code); still serving: Error: pool bug on job trips-the-pool",
      );
      expect(server.stderr()).not.toMatch(/closing it|exiting/);
      expect((await a.request({ type: 'step', data: { text: 'again' } })).data.observation.text).toBe('done: again');
      expect((await b.request({ type: 'step', data: { text: 'again' } })).data.observation.text).toBe('done: again');
      a.close();
      b.close();
      await Promise.all([a.closed, b.closed]);
    } finally {
      server.kill('SIGKILL');
    }
  });
});
