import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { TurnGymError } from '@turngym/core';
import { RemoteEnv } from '@turngym/server';
import { assertCliBuilt, CLI, REPO_ROOT } from './helpers/run-built-cli';

const ID = 'turngym/example-v1';
// Each test starts a primary and two workers (each loads the CLI and its envs), and the second a replacement:
// seconds on an idle machine, more on a loaded one.
const STARTS_PROCESSES_MS = 180_000;

interface RunningServer {
  readonly url: string;
  readonly child: ChildProcess;
  /** Resolves once stderr has matched `pattern` (the primary reports crashes and replacements there). */
  stderrMatch(pattern: RegExp): Promise<RegExpExecArray>;
  stop(): Promise<number | null>;
}

/** `turngym serve example-v1 --port 0 --workers N`, up once its "serving … at" line is out. */
async function serveWithWorkers(workers: number): Promise<RunningServer> {
  assertCliBuilt();
  const child = spawn(process.execPath, [CLI, 'serve', ID, '--port', '0', '--workers', String(workers)], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  const waiting: { pattern: RegExp; resolve: (match: RegExpExecArray) => void }[] = [];
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
    for (const wait of [...waiting]) {
      const match = wait.pattern.exec(stderr);
      if (match) {
        waiting.splice(waiting.indexOf(wait), 1);
        wait.resolve(match);
      }
    }
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    let stdout = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const found = /^serving \S+ at (http:\/\/\S+)/m.exec(stdout)?.[1];
      if (found) resolve(found);
    });
    void exited.then((code) => reject(new Error(`serve exited (${code}) before listening: ${stderr}`)));
  });
  return {
    url,
    child,
    stderrMatch: (pattern) =>
      new Promise((resolve) => {
        const match = pattern.exec(stderr);
        if (match) resolve(match);
        else waiting.push({ pattern, resolve });
      }),
    stop: () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

function workerOf(env: RemoteEnv): string {
  return /^w(\d+)-/.exec(env.sessionId)?.[1] ?? 'none';
}

describe('turngym serve --workers', () => {
  it(
    'spreads sessions over the workers and keeps each session, its forks and its side requests on its worker',
    async () => {
      const server = await serveWithWorkers(2);
      try {
        const envs = await Promise.all(Array.from({ length: 4 }, () => RemoteEnv.connect(server.url)));
        expect(new Set(envs.map(workerOf))).toEqual(new Set(['0', '1']));
        for (const [i, env] of envs.entries()) {
          await env.reset({ seed: i });
          await env.step('LOOKUP(amber-17)');
          // Each fork is claimed over a new connection; round-robin alone would land half of them on the
          // other worker, which does not hold the session (SESSION_NOT_FOUND).
          const twins = [await env.fork(), await env.fork()];
          for (const twin of twins) {
            expect(workerOf(twin)).toBe(workerOf(env));
            const [mine, theirs] = [await env.fork(), twin];
            expect((await theirs.step('SUBMIT(0000)')).observation).toBe((await mine.step('SUBMIT(0000)')).observation);
            expect((await theirs.state()).step_count).toBe(2);
            await mine.close();
          }
          // The blocking side request (a new HTTP connection each time) reaches the worker holding the session.
          expect(env.fingerprint('LOOKUP(amber-17)')).toBe(env.fingerprint('LOOKUP(amber-17)'));
          expect(() => twins[0]!.fingerprint('LOOKUP(x)')).not.toThrow();
          await Promise.all(twins.map((twin) => twin.close()));
        }
        await Promise.all(envs.map((env) => env.close()));
      } finally {
        expect(await server.stop()).toBe(0);
      }
    },
    STARTS_PROCESSES_MS,
  );

  it(
    "reports a killed worker's sessions to their clients as errors, keeps the others, and replaces the worker",
    async () => {
      const server = await serveWithWorkers(2);
      try {
        const envs = await Promise.all(Array.from({ length: 6 }, () => RemoteEnv.connect(server.url)));
        await Promise.all(envs.map((env, i) => env.reset({ seed: i })));
        const pids = execFileSync('ps', ['-o', 'pid=', '--ppid', String(server.child.pid)], { encoding: 'utf8' })
          .split('\n')
          .map((line) => Number(line.trim()))
          .filter((pid) => pid > 0);
        expect(pids).toHaveLength(2);
        process.kill(pids[0]!, 'SIGKILL');
        const [, dead] = await server.stderrMatch(/worker (\d+) \(pid \d+\) exited \(SIGKILL\)/);

        const outcomes = await Promise.all(
          envs.map((env) =>
            env.step('LOOKUP(amber-17)').then(
              () => 'stepped',
              (error: unknown) => (TurnGymError.isInstance(error) && error.isRetryable ? error.code : String(error)),
            ),
          ),
        );
        // Every session of the dead worker errors (ENV_FAULT, retryable: never a silent score); the others go on.
        envs.forEach((env, i) =>
          expect([workerOf(env), outcomes[i]]).toEqual([
            workerOf(env),
            workerOf(env) === dead ? 'ENV_FAULT' : 'stepped',
          ]),
        );
        expect(outcomes).toContain('ENV_FAULT');
        expect(outcomes).toContain('stepped');

        await server.stderrMatch(new RegExp(`worker ${dead} \\(pid \\d+\\) ready in place of pid ${pids[0]}`));
        const fresh = await Promise.all([RemoteEnv.connect(server.url), RemoteEnv.connect(server.url)]);
        expect(new Set(fresh.map(workerOf))).toEqual(new Set(['0', '1']));
        for (const env of fresh) expect((await env.reset({ seed: 9 })).observation).toContain('');
        await Promise.all([...envs, ...fresh].map((env) => env.close()));
      } finally {
        expect(await server.stop()).toBe(0);
      }
    },
    STARTS_PROCESSES_MS,
  );
});
