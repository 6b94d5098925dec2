import { spawn, type ChildProcess } from 'node:child_process';
import { ByteTokenizer, LanguageModel, isBackendAvailable, testConfig, useBackend } from '@turngym/lm';
import { ChatTurnFormat, collectChains, type RolloutPolicy } from '@turngym/rl';
import { RemoteEnvPool, type RemoteEnv } from '@turngym/server';
import type { Action } from '@turngym/spec';
import { assertCliBuilt, CLI, REPO_ROOT } from './helpers/run-built-cli';

// Rollout collectors over three env servers (separate `turngym serve` processes) through one RemoteEnvPool;
// one server is killed (SIGKILL) after every rollout's first step.
const ID = 'turngym/example-v1';
// Three server processes and a tiny model: seconds on an idle machine, more on a loaded one.
const STARTS_PROCESSES_MS = 180_000;

interface ServerProcess {
  readonly url: string;
  readonly child: ChildProcess;
  readonly exited: Promise<number | null>;
}

async function startServer(): Promise<ServerProcess> {
  const child = spawn(process.execPath, [CLI, 'serve', ID, '--port', '0'], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    let stdout = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const found = /^serving \S+ at (http:\/\/\S+)/m.exec(stdout)?.[1];
      if (found) resolve(found);
    });
    void exited.then((code) => reject(new Error(`serve exited (${code}) before listening`)));
  });
  return { url, child, exited };
}

describe('rollout collectors over a pool of env servers', () => {
  let servers: ServerProcess[];
  let policy: RolloutPolicy;
  beforeAll(async () => {
    assertCliBuilt();
    servers = await Promise.all([startServer(), startServer(), startServer()]);
    await useBackend(isBackendAvailable('wasm') ? 'wasm' : 'cpu');
    const tokenizer = new ByteTokenizer();
    const model = LanguageModel.create(testConfig({ maxPositions: 512 }), { seed: 7, tokenizer });
    policy = { model, format: new ChatTurnFormat(tokenizer) };
  }, STARTS_PROCESSES_MS);
  afterAll(async () => {
    policy?.model.dispose();
    for (const server of servers ?? []) server.child.kill('SIGTERM');
    await Promise.all((servers ?? []).map((server) => server.exited));
  });

  it(
    'errors (never scores) the episodes of a server killed mid-run, and places new episodes on the live ones',
    async () => {
      const pool = new RemoteEnvPool(
        servers.map((server) => server.url),
        { healthIntervalMs: 0, session: { maxTurns: 4 } },
      );
      const victim = servers[1]!;
      const serverOfSeed = new Map<number, string>();
      let killing: Promise<unknown> | undefined;
      const makeEnv = async (): Promise<RemoteEnv> => {
        const env = await pool.makeEnv();
        const reset = env.reset.bind(env);
        env.reset = async (args = {}) => {
          serverOfSeed.set(args.seed as number, pool.serverOf(env) as string);
          return reset(args);
        };
        const step = env.step.bind(env);
        env.step = async (action: Action) => {
          const result = await step(action);
          // After the first step of the batch, the victim dies (the process, without closing anything).
          killing ??= (victim.child.kill('SIGKILL'), victim.exited);
          await killing;
          return result;
        };
        return env;
      };
      const seeds = [0, 1, 2, 3, 4, 5, 6, 7, 8];
      const request = { policy, envId: ID, seeds, groupSize: 1, options: { maxActionTokens: 6, seed: 3 } };
      const trajectories = await collectChains({ ...request, makeEnv });
      expect(new Set(serverOfSeed.values())).toEqual(new Set(servers.map((server) => server.url)));
      for (const trajectory of trajectories) {
        const onVictim = serverOfSeed.get(trajectory.seed as number) === victim.url;
        expect([trajectory.seed, trajectory.stopReason]).toEqual([
          trajectory.seed,
          onVictim ? 'error' : expect.not.stringMatching(/^error$/),
        ]);
        if (onVictim) expect(JSON.stringify(trajectory.error)).toMatch(/ENV_FAULT|closed/);
      }
      expect(trajectories.filter((trajectory) => trajectory.stopReason === 'error')).toHaveLength(3);

      // The health check marks the dead server down; the next batch runs whole on the two live ones.
      expect((await pool.checkHealth()).map((server) => server.healthy)).toEqual([true, false, true]);
      serverOfSeed.clear();
      const next = await collectChains({
        ...request,
        makeEnv: async () => {
          const env = await pool.makeEnv();
          serverOfSeed.set(serverOfSeed.size, pool.serverOf(env) as string);
          return env;
        },
      });
      expect(next.map((trajectory) => trajectory.stopReason)).not.toContain('error');
      expect([...serverOfSeed.values()]).not.toContain(victim.url);
      pool.close();
    },
    STARTS_PROCESSES_MS,
  );
});
