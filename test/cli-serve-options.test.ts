import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { errorLines, REPO_ROOT, runBuiltCli, withBuiltServer } from './helpers/run-built-cli';

// `turngym serve`'s hardening flags, through the built command: the token from a file or the environment
// (never argv), --client-options widening the allow-list, and --idle-timeout / --heartbeat reaching the server.

const ID = 'turngym/math-thought-v1';
const dir = mkdtempSync(join(tmpdir(), 'turngym-cli-serve-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Writes `text` and never another byte; resolves with all the server said once it closed the connection. */
function stallAfter(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1' });
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('utf8')));
    socket.on('error', reject);
    socket.on('close', () => resolve(received));
    socket.write(text);
  });
}

/** `turngym serve` of the math env with `args` and `env`, `body` against it; it must close cleanly. */
async function withServer(args: string[], env: NodeJS.ProcessEnv, body: (url: string) => Promise<void>): Promise<void> {
  const { code } = await withBuiltServer(ID, args, body, env);
  expect(code).toBe(0);
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
  it('takes --request-timeout-ms and --headers-timeout-ms: a request that never ends is answered 408', async () => {
    await withServer(['--headers-timeout-ms', '100', '--request-timeout-ms', '200'], {}, async (url) => {
      const { port } = new URL(url);
      const answer = await stallAfter(Number(port), 'POST /reset HTTP/1.1\r\nHost: 127.0.0.1\r\n');
      expect(answer).toMatch(/^HTTP\/1.1 408 Request Timeout\r\n/);
    });
  });

  it.each([
    ['--request-timeout-ms', '0', 'Expected an integer from 1 to 3600000.'],
    ['--headers-timeout-ms', '5000000', 'Expected an integer from 1 to 3600000.'],
    ['--heartbeat', '99999999', 'Expected an integer from 0 to 3600000.'],
    ['--max-sessions', '2000000', 'Expected an integer from 1 to 1000000.'],
    ['--max-connections', 'lots', 'Expected an integer from 1 to 1000000.'],
  ])('refuses %s %s naming the flag', async (flag, value, why) => {
    const result = await runBuiltCli(['serve', ID, '--port', '0', flag, value]);
    expect(result.code).toBe(2);
    expect(errorLines(result.stderr)).toEqual([
      `error: option '${flag} <${flag.endsWith('-ms') || flag === '--heartbeat' ? 'ms' : 'n'}>' argument '${value}' is invalid. ${why}`,
    ]);
  });

  it('passes the HTTP limits to MCP over HTTP (a stalled request is answered 408), and refuses them over stdio', async () => {
    const args = ['--mcp', 'http', '--headers-timeout-ms', '100', '--request-timeout-ms', '200'];
    await withServer(args, {}, async (url) => {
      const { port } = new URL(url);
      const answer = await stallAfter(Number(port), 'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n');
      expect(answer).toMatch(/^HTTP\/1.1 408 /);
    });
    const stdio = await runBuiltCli(['serve', ID, '--mcp', 'stdio', '--request-timeout-ms', '1000']);
    expect(stdio.code).toBe(2);
    expect(errorLines(stdio.stderr)).toEqual([
      expect.stringMatching(/--request-timeout-ms apply to an HTTP server, not to --mcp stdio/),
    ]);
    const stdioCap = await runBuiltCli(['serve', ID, '--mcp', 'stdio', '--max-connections', '10']);
    expect(stdioCap.code).toBe(2);
    expect(errorLines(stdioCap.stderr)).toEqual([
      expect.stringMatching(/--max-connections apply to an HTTP server, not to --mcp stdio/),
    ]);
    const mux = await runBuiltCli(['serve', ID, '--mcp', 'http', '--port', '0', '--heartbeat', '10']);
    expect(mux.code).toBe(2);
    expect(errorLines(mux.stderr)).toEqual([
      expect.stringMatching(/--heartbeat apply to the WebSocket server, not to --mcp/),
    ]);
  });

  // The cap was refused with --mcp http (serveMcp takes it) and never reached the --workers primary, which held
  // every connection until its request line came.
  it.each([
    ['--mcp', 'http'],
    ['--workers', '2'],
  ])('caps connections with %s %s: one past --max-connections is answered 503', async (flag, value) => {
    await withServer([flag, value, '--max-connections', '1'], {}, async (url) => {
      const { port } = new URL(url);
      const idle = connect({ port: Number(port), host: '127.0.0.1' });
      await new Promise((resolve) => idle.once('connect', resolve));
      try {
        // The idle socket is counted once the server has accepted it: ask until the cap shows (or plainly does not).
        let status = 0;
        for (let attempt = 0; attempt < 50 && status !== 503; attempt++) status = (await fetch(`${url}/health`)).status;
        expect(status).toBe(503);
      } finally {
        idle.destroy();
      }
    });
  });

  it('says plainly that a port is in use, and exits 1', async () => {
    await withServer([], {}, async (url) => {
      const result = await runBuiltCli(['serve', ID, '--port', new URL(url).port]);
      expect(result.code).toBe(1);
      expect(errorLines(result.stderr)).toEqual([
        `error: Cannot listen on 127.0.0.1:${new URL(url).port}: the port is in use (another server is on it): choose another port, or 0 for any free one`,
      ]);
    });
  });
});
