import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from '@turngym/core';
import { register as registerMath } from '@turngym/env-math-thought';
import { register as registerWiki } from '@turngym/env-wiki-navigator';
import { serveEnvs, type ServerHandle } from '@turngym/server';
import WebSocket from 'ws';

// The env server's allow-list of client-settable env options, against the real envs whose options name files
// and sizes: a client must learn nothing about the server's files, and cannot make it build a huge corpus.

const SECRET = 'TOP-SECRET-7731';
const dir = mkdtempSync(join(tmpdir(), 'turngym-client-options-'));
const existing = join(dir, 'tasks.jsonl');
const missing = join(dir, 'absent', 'tasks.jsonl');
writeFileSync(existing, `${JSON.stringify({ question: `What is ${SECRET}?`, answer: 'It is 7731.\n#### 7731' })}\n`);

const registry = new Registry();
registerMath(registry);
registerWiki(registry);

const servers: ServerHandle[] = [];
async function serve(ids: string[], extra: Parameters<typeof serveEnvs>[0] extends infer O ? Partial<O> : never) {
  const server = await serveEnvs({ registry, ids, port: 0, heartbeatMs: 0, ...extra });
  servers.push(server);
  return server;
}

afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
  rmSync(dir, { recursive: true, force: true });
});

const post = async (url: string, body: unknown): Promise<{ status: number; text: string }> => {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, text: await response.text() };
};

/** Sends raw frames on one WebSocket and collects one reply per frame. */
async function wsReplies(url: string, frames: unknown[]): Promise<string[]> {
  const socket = new WebSocket(url.replace(/^http/, 'ws'));
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  const replies: string[] = [];
  const done = new Promise<void>((resolve) =>
    socket.on('message', (raw: Buffer) => {
      replies.push(raw.toString('utf8'));
      if (replies.length === frames.length) resolve();
    }),
  );
  for (const frame of frames) socket.send(JSON.stringify(frame));
  await done;
  socket.close();
  return replies;
}

/** Everything a client gets back for asking the math env to read `path`, over every route that takes options. */
async function askForSource(server: ServerHandle, path: string): Promise<string[]> {
  const options = { env_options: { source: path } };
  const reset = await post(`${server.url}/reset`, options);
  const step = await post(`${server.url}/step`, { action: { text: '<answer>1</answer>' }, ...options });
  const ws = await wsReplies(`${server.url}/ws`, [
    { type: 'reset', data: options },
    { type: 'session', data: options },
  ]);
  const mux = await wsReplies(`${server.url}/mux`, [[{ c: 1, m: { type: 'open', data: options } }]]);
  // The client's own path is echoed as pydantic echoes an input; nothing else may differ.
  return [`${reset.status} ${reset.text}`, `${step.status} ${step.text}`, ...ws, ...mux].map((text) =>
    text.split(JSON.stringify(path).slice(1, -1)).join('<path>'),
  );
}

describe('client-settable env options', () => {
  it("refuses math's source naming a file identically whether the file exists or not, naming source", async () => {
    const server = await serve(['turngym/math-thought-v1'], {});
    const forExisting = await askForSource(server, existing);
    const forMissing = await askForSource(server, missing);
    expect(forExisting).toEqual(forMissing);
    for (const reply of forExisting) {
      expect(reply).not.toContain(SECRET);
      expect(reply).toContain('VALIDATION_ERROR');
      expect(reply).toMatch(/env_options\.source/);
    }
    expect(forExisting[0]).toMatch(/^422 /);
    expect(JSON.parse(forExisting[0]!.slice(4)).detail).toEqual([
      expect.objectContaining({ type: 'enum', loc: ['body', 'env_options', 'source'] }),
    ]);
    expect(JSON.parse(forExisting[2]!).data.errors).toEqual([
      expect.objectContaining({ loc: ['data', 'env_options', 'source'] }),
    ]);
    // The safe options still reach the env.
    const safe = await post(`${server.url}/reset`, { seed: 1, env_options: { difficulties: [1], source: 'sample' } });
    expect(safe.status).toBe(200);
  });

  it('refuses a 200,000-article wiki corpus, a corpus file and a browser executable', async () => {
    const server = await serve(['turngym/wiki-qa-v1'], {});
    const large = await post(`${server.url}/reset`, { env_options: { articles: 200000 } });
    expect(large.status).toBe(422);
    expect(JSON.parse(large.text).detail).toEqual([
      expect.objectContaining({ type: 'less_than_equal', loc: ['body', 'env_options', 'articles'] }),
    ]);
    for (const option of [{ corpus: '/etc/passwd' }, { executablePath: '/bin/sh' }, { pageCache: 1000000 }]) {
      const refused = await post(`${server.url}/reset`, { env_options: option });
      expect(refused.status).toBe(422);
      const [detail] = JSON.parse(refused.text).detail;
      expect(detail).toMatchObject({ type: 'extra_forbidden', loc: ['body', 'env_options', Object.keys(option)[0]] });
      expect(detail.msg).toContain('cannot be set by clients of this server');
    }
  });

  it('a server widened with clientOptions passes those options on to the env', async () => {
    const math = await serve(['turngym/math-thought-v1'], {
      clientOptions: { properties: { source: { type: 'string' } } },
    });
    const read = await post(`${math.url}/reset`, { seed: 0, env_options: { source: existing } });
    expect(read.status).toBe(200);
    expect(read.text).toContain(SECRET);

    const wiki = await serve(['turngym/wiki-qa-v1'], { clientOptions: ['articles'] });
    // Past the allow-list, the env's own range applies (checked before any corpus is built).
    const beyond = await post(`${wiki.url}/reset`, { env_options: { articles: 300000 } });
    expect(beyond.status).toBe(422);
    expect(JSON.parse(beyond.text)).toMatchObject({ turngym_code: 'INVALID_OPTIONS' });
    expect(beyond.text).toContain('options.articles must be <= 200000');
  });
});
