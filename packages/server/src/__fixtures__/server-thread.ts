import * as path from 'node:path';
import { Worker } from 'node:worker_threads';

/**
 * Runs an env server (the TypeScript sources, compiled on the fly with swc) in a worker thread, so a test can
 * reach it the way a client in another process does: RemoteEnv's blocking side requests need a server that is
 * not on the thread they block.
 */
const SOURCE = `
require('reflect-metadata');
const fs = require('node:fs');
const path = require('node:path');
const Module = require('node:module');
const { parentPort, workerData } = require('node:worker_threads');
const { transformSync } = require('@swc/core');
const root = workerData.root;
const packages = {};
for (const group of ['packages', 'environments', 'templates', 'benchmarks', 'trainers']) {
  const dir = path.join(root, group);
  if (!fs.existsSync(dir)) continue;
  for (const name of fs.readdirSync(dir)) {
    const manifest = path.join(dir, name, 'package.json');
    const entry = path.join(dir, name, 'src', 'index.ts');
    if (fs.existsSync(manifest) && fs.existsSync(entry)) packages[JSON.parse(fs.readFileSync(manifest, 'utf8')).name] = entry;
  }
}
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return packages[request] ?? resolve.call(this, request, ...rest);
};
require.extensions['.ts'] = (module, filename) => {
  const { code } = transformSync(fs.readFileSync(filename, 'utf8'), {
    filename,
    jsc: { parser: { syntax: 'typescript', decorators: true }, transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false }, target: 'es2022' },
    module: { type: 'commonjs' },
  });
  module._compile(code, filename);
};
const { serveEnvs } = require(workerData.serverEntry);
const fixtures = require(workerData.fixtures);
(async () => {
  const registry = fixtures.testRegistry();
  for (const name of workerData.plugins) require(name).register(registry);
  const stats = () => ({ live: server.liveSessions(), open: fixtures.openEnvs.count });
  // 'settled' is answered once no session is live: at once, or from the hook of the session close that ends them.
  const settled = [];
  const onSessionClosed = () => {
    if (server.liveSessions() === 0) for (const answer of settled.splice(0)) answer();
  };
  const server = await serveEnvs({ registry, ids: fixtures.ALL_IDS, port: 0, ...workerData.options, onSessionClosed });
  parentPort.postMessage({ url: server.url });
  parentPort.on('message', async (message) => {
    if (message === 'live') parentPort.postMessage(stats());
    if (message === 'settled') {
      const answer = () => parentPort.postMessage(stats());
      if (server.liveSessions() === 0) answer();
      else settled.push(answer);
    }
    if (message === 'close') {
      await server.close();
      parentPort.postMessage({ closed: true, open: fixtures.openEnvs.count });
    }
  });
})().catch((error) => parentPort.postMessage({ error: String(error && error.stack || error) }));
`;

export interface ServerThread {
  readonly url: string;
  /** Live sessions and open envs, as the server thread sees them. */
  stats(): Promise<{ live: number; open: number }>;
  /**
   * The same, once no session is live (sessions close their env just after their client sees the connection
   * close): answered from the server's `onSessionClosed` hook, not by polling.
   */
  settled(): Promise<{ live: number; open: number }>;
  /** Closes the server; resolves with the envs still open afterwards (0 unless one leaked). */
  close(): Promise<number>;
}

/**
 * @param options `serveEnvs` options (JSON only) over the fixtures' defaults: every test env, port 0
 * @param plugins env packages whose `register` adds their envs to the test registry (name their ids in `options.ids`)
 */
export async function startServerThread(
  options: Record<string, unknown> = {},
  plugins: readonly string[] = [],
): Promise<ServerThread> {
  const worker = new Worker(SOURCE, {
    eval: true,
    workerData: {
      root: path.resolve(__dirname, '../../../..'),
      serverEntry: path.resolve(__dirname, '../index.ts'),
      fixtures: path.resolve(__dirname, 'test-envs.ts'),
      options,
      plugins,
    },
  });
  const next = (): Promise<Record<string, unknown>> =>
    new Promise((resolve, reject) => {
      const failed = (error: Error): void => {
        worker.off('message', answered);
        reject(error);
      };
      const answered = (message: Record<string, unknown>): void => {
        worker.off('error', failed);
        if (message.error) reject(new Error(String(message.error)));
        else resolve(message);
      };
      worker.once('message', answered);
      worker.once('error', failed);
    });
  const { url } = (await next()) as { url: string };
  return {
    url,
    stats: async () => {
      const reply = next();
      worker.postMessage('live');
      return (await reply) as { live: number; open: number };
    },
    settled: async () => {
      const reply = next();
      worker.postMessage('settled');
      return (await reply) as { live: number; open: number };
    },
    close: async () => {
      const reply = next();
      worker.postMessage('close');
      const { open } = (await reply) as { open: number };
      await worker.terminate();
      return open;
    },
  };
}
