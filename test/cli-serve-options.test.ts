import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, errorLines, REPO_ROOT, runBuiltCli } from './helpers/run-built-cli';

// `turngym serve`'s hardening flags, through the built command: the token from a file or the environment
// (never argv), --client-options widening the allow-list, and --idle-timeout / --heartbeat reaching the server.

const ID = 'turngym/math-thought-v1';
const dir = mkdtempSync(join(tmpdir(), 'turngym-cli-serve-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Starts `turngym serve`, runs `body` against its URL, then stops it with SIGTERM. */
async function withServer(args: string[], env: NodeJS.ProcessEnv, body: (url: string) => Promise<void>): Promise<void> {
  const server = spawn(process.execPath, [CLI, 'serve', ID, '--port', '0', ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  server.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => server.on('close', (code) => resolve(code)));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let stdout = '';
      server.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        stdout += chunk;
        const found = /^serving \S+ at (http:\/\/\S+)/m.exec(stdout)?.[1];
        if (found) resolve(found);
      });
      void exited.then((code) => reject(new Error(`serve exited (${code}) before listening: ${stderr}`)));
    });
    await body(url);
  } finally {
    server.kill('SIGTERM');
  }
  expect(await exited).toBe(0);
}

const reset = (url: string, token: string | undefined, body: unknown): Promise<Response> =>
  fetch(`${url}/reset`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });

describe('turngym serve hardening flags', () => {
  it('takes the token from --token-file and widens the allow-list with --client-options', async () => {
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, 'file-token-123\n');
    const sample = join(REPO_ROOT, 'environments', 'math-thought', 'data', 'gsm8k-sample.jsonl');
    const args = [
      '--token-file',
      tokenFile,
      '--client-options',
      'source',
      '--idle-timeout',
      '5000',
      '--heartbeat',
      '500',
    ];
    await withServer(args, { TURNGYM_SERVER_TOKEN: '' }, async (url) => {
      expect((await reset(url, undefined, {})).status).toBe(401);
      const read = await reset(url, 'file-token-123', { seed: 0, env_options: { source: sample } });
      expect(read.status).toBe(200);
    });
  });

  it('takes the token from TURNGYM_SERVER_TOKEN, and refuses a file source by default', async () => {
    await withServer([], { TURNGYM_SERVER_TOKEN: 'env-token-456' }, async (url) => {
      expect((await reset(url, 'wrong', {})).status).toBe(401);
      const refused = await reset(url, 'env-token-456', { env_options: { source: '/etc/passwd.jsonl' } });
      expect(refused.status).toBe(422);
      expect((await refused.json()).detail[0].loc).toEqual(['body', 'env_options', 'source']);
    });
  });

  it('refuses a malformed --client-options before serving', async () => {
    const result = await runBuiltCli(['serve', ID, '--port', '0', '--client-options', 'a;b']);
    expect(result.code).toBe(2);
    expect(errorLines(result.stderr)).toEqual([expect.stringMatching(/--client-options.*not an option name/)]);
  });
});
