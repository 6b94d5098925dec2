import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { ajv, EnvFaultError, Registry, runEpisode, TurnGymError } from '@turngym/core';
import type { Env } from '@turngym/spec';
import { McpToolClient } from './mcp-tool-client';
import { MCP_TOOLS_ID } from './mcp-tools-env';
import { demoServerCommand } from './mcp-tools-options';
import { register } from './register';

const FIXTURES = join(__dirname, '__fixtures__');
const MEMORY_SERVER = require.resolve('@modelcontextprotocol/server-memory/dist/index.js');

/** Every env a test makes is closed after it, pass or fail: a live server process would keep jest from exiting. */
const made: Array<Env<any, any>> = [];
afterEach(async () => {
  await Promise.all(made.splice(0).map((env) => env.close()));
});

async function tracked(making: Promise<Env<any, any>>): Promise<Env<any, any>> {
  const env = await making;
  made.push(env);
  return env;
}

function registry(): Registry {
  const created = new Registry();
  register(created);
  return created;
}

async function playScripted(target: Registry, env: Env<any, any>, seed: number, task: string | number) {
  const agent = target.makeAgent(MCP_TOOLS_ID, 'scripted', { env, seed });
  return runEpisode(env, agent, seed, { task });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Whether `pid` runs (Linux): not ended, and not a zombie waiting for its parent to read its exit. */
function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** Rejects with the error `work` throws (a fault must be thrown, not scored). */
async function thrown(work: Promise<unknown>): Promise<TurnGymError> {
  try {
    await work;
  } catch (error) {
    if (TurnGymError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected an error');
}

describe('turngym/mcp-tools-v1 with its bundled demo server', () => {
  const tools = registry();

  it("offers the server's tools and the answer tool, and the scripted baseline solves every demo task", async () => {
    const env = await tracked(tools.make(MCP_TOOLS_ID));
    expect(env.spec.tools?.map((tool) => tool.name)).toEqual([
      'add',
      'multiply',
      'note_set',
      'note_get',
      'capital_of',
      'final_answer',
    ]);
    for (const task of ['arith-1', 'capital-2', 'note-1', 'note-2']) {
      const outcome = await playScripted(tools, env, 1, task);
      expect({ task, success: outcome.success, reward: outcome.totalReward }).toEqual({
        task,
        success: true,
        reward: 1,
      });
    }
    await env.close();
  });

  it('scores a wrong answer 0, fingerprints tool name plus argument keys, anchors the last tool used', async () => {
    const env = await tracked(tools.make(MCP_TOOLS_ID));
    const reset = await env.reset({ seed: 3, options: { task: 'arith-1' } });
    expect(reset.observation).toMatch(/17 × 23 \+ 58/);
    expect(reset.info.instructions).toMatch(/final_answer/);
    expect(env.anchor()).toBe('start');
    expect(env.fingerprint('multiply({"b": 23, "a": 17})')).toBe('multiply(a,b)');
    const product = await env.step({ name: 'multiply', arguments: { a: 17, b: 23 } });
    expect(product.observation).toBe('391');
    expect(product.info.fingerprint).toBe('multiply(a,b)');
    expect(env.anchor()).toBe('multiply');
    const malformed = await env.step('multiply({"a": "x"})');
    expect(malformed.info.invalidAction).toBe(true);
    const wrong = await env.step('final_answer(450)');
    expect(wrong).toMatchObject({ reward: 0, terminated: true, info: { success: false } });
    expect(env.anchor()).toBe('final_answer');
    await env.close();
  });

  it('compiles no schema again when the same server is made again', async () => {
    // Every make compiled each tool's schema and the answer tool's afresh; when core's shared ajv held every schema
    // it compiled for the process's life, 2,000 makes of this env held 45 MB more heap.
    const first = await tracked(tools.make(MCP_TOOLS_ID));
    await first.reset({ seed: 1, options: { task: 'arith-1' } });
    await first.step('add({"a": 1, "b": 2})');
    await first.step('final_answer(3)');
    // Every ajv instance's compile (core compiles tool schemas on an instance of its own).
    const compile = jest.spyOn(Object.getPrototypeOf(ajv) as typeof ajv, 'compile');
    try {
      const again = await tracked(tools.make(MCP_TOOLS_ID));
      await again.reset({ seed: 1, options: { task: 'arith-1' } });
      expect((await again.step('add({"a": 1, "b": 2})')).observation).toBe('3');
      await again.step('final_answer(3)');
      expect(compile).not.toHaveBeenCalled();
    } finally {
      compile.mockRestore();
    }
  });

  it('rejects wrong reset options naming the field: an unknown one was reported as a bad options.task', async () => {
    const env = await tracked(tools.make(MCP_TOOLS_ID));
    await expect(env.reset({ seed: 1, options: { taks: 'arith-1' } })).rejects.toThrow(
      /options has unknown field "taks"; allowed fields: task/,
    );
    await expect(env.reset({ seed: 1, options: { task: 1.5 } })).rejects.toThrow(
      /options.task must be string or integer \(got 1.5\)/,
    );
    await expect(env.reset({ seed: 1, options: { task: -1 } })).rejects.toThrow(/options.task must be >= 0 \(got -1\)/);
    await expect(env.reset({ seed: 1, options: { task: 'nope' } })).rejects.toThrow(/options.task: no task "nope"/);
    expect((await env.reset({ seed: 1, options: { task: 2 } })).info.taskId).toBe('capital-1');
    await env.close();
  });

  it('stops the server it started to list the tools when the tools option then proves wrong', async () => {
    // The listing client was left open: a demo-server process outlived the failed make.
    const close = jest.spyOn(McpToolClient.prototype, 'close');
    try {
      // A target this process has not listed yet (the env caches tool lists by target).
      const server = { ...demoServerCommand(), env: { TURNGYM_PROBE: 'tools-option' } };
      await expect(tools.make(MCP_TOOLS_ID, { options: { server, tools: ['add', 'nope'] } })).rejects.toThrow(
        /tools: the server has no nope/,
      );
      expect(close).toHaveBeenCalledTimes(1);
    } finally {
      close.mockRestore();
    }
  });

  it('refuses at make a task whose setup, probe or solution calls a tool the server does not list', async () => {
    // A misspelled probe made the probe an ordinary tool error, its result null: every episode scored 0, solved or not.
    const dir = mkdtempSync(join(tmpdir(), 'mcp-task-tools-'));
    try {
      const tasks = join(dir, 'typo.jsonl');
      const task = {
        id: 'note-typo',
        prompt: 'Write Tokyo under "city", then answer done.',
        probe: { tool: 'note_gett', arguments: { key: 'city' } },
        check: { path: '$.probe', equals: 'Tokyo' },
        solution: { calls: [{ tool: 'note_set', arguments: { key: 'city', value: 'Tokyo' } }], answer: 'done' },
      };
      writeFileSync(tasks, `// a comment\n${JSON.stringify(task)}\n`);
      // tracked: an env made by mistake is closed, its server with it.
      const error = await thrown(tracked(tools.make(MCP_TOOLS_ID, { options: { tasks } })));
      expect(error.code).toBe('INVALID_TASK_FILE');
      expect(error.message).toBe(
        `${tasks} line 2: task "note-typo": its probe calls note_gett, which the server does not list (it lists add, multiply, note_set, note_get, capital_of)`,
      );
      writeFileSync(tasks, JSON.stringify({ ...task, probe: undefined, setup: [{ tool: 'note_put', arguments: {} }] }));
      await expect(tracked(tools.make(MCP_TOOLS_ID, { options: { tasks } }))).rejects.toThrow(
        /its setup calls note_put/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("refuses at make a task whose calls the tool's schema or the tools option would refuse", async () => {
    // A probe with a misnamed argument was a tool error at scoring time (every episode 0, solved or not); a
    // solution with a tool the agent is not offered was an invalid action (the scripted baseline's silent 0).
    const dir = mkdtempSync(join(tmpdir(), 'mcp-task-arguments-'));
    try {
      const tasks = join(dir, 'tasks.jsonl');
      const task = {
        id: 'note-args',
        prompt: 'Write Tokyo under "city", then answer done.',
        probe: { tool: 'note_get', arguments: { name: 'city' } },
        check: { path: '$.probe', equals: 'Tokyo' },
        solution: { calls: [{ tool: 'note_set', arguments: { key: 'city', value: 'Tokyo' } }], answer: 'done' },
      };
      writeFileSync(tasks, JSON.stringify(task));
      const error = await thrown(tracked(tools.make(MCP_TOOLS_ID, { options: { tasks } })));
      expect(error.code).toBe('INVALID_TASK_FILE');
      expect(error.message).toBe(
        `${tasks} line 1: task "note-args": its probe call note_get: arguments.key is required; arguments has unknown field "name"; allowed fields: key`,
      );
      writeFileSync(tasks, JSON.stringify({ ...task, probe: { tool: 'note_get', arguments: { key: 'city' } } }));
      await expect(
        tracked(tools.make(MCP_TOOLS_ID, { options: { tasks, tools: ['note_get', 'capital_of'] } })),
      ).rejects.toThrow(/its solution calls note_set, which the tools option does not offer the agent/);
      const env = await tracked(tools.make(MCP_TOOLS_ID, { options: { tasks } }));
      expect(await playScripted(tools, env, 1, 'note-args')).toMatchObject({ success: true });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('starts each episode on a fresh server: notes do not leak between episodes', async () => {
    const env = await tracked(tools.make(MCP_TOOLS_ID));
    await env.reset({ seed: 1, options: { task: 'arith-1' } });
    await env.step('note_set({"key": "k", "value": "v"})');
    expect((await env.step('note_get(k)')).observation).toBe('v');
    await env.reset({ seed: 1, options: { task: 'arith-1' } });
    const after = await env.step('note_get(k)');
    expect(after.observation).toBe('Tool error: no note under k');
    expect(after.info.toolError).toBe(true);
    await env.close();
  });
});

describe('turngym/mcp-tools-v1 against @modelcontextprotocol/server-memory (from npm, over stdio)', () => {
  it('plays the memory tasks: setup calls, structured results, a probe-based check', async () => {
    const tools = registry();
    const env = await tracked(
      tools.make(MCP_TOOLS_ID, {
        options: {
          // The memory server keeps its graph in a file: {tmp} gives each server process (each episode) its own.
          server: { command: process.execPath, args: [MEMORY_SERVER], env: { MEMORY_FILE_PATH: '{tmp}/memory.jsonl' } },
          tasks: join(FIXTURES, 'memory-tasks.jsonl'),
        },
      }),
    );
    expect(env.spec.tools?.map((tool) => tool.name)).toContain('create_entities');
    expect(await playScripted(tools, env, 1, 'job')).toMatchObject({ success: true, totalReward: 1 });
    expect(await playScripted(tools, env, 1, 'remember')).toMatchObject({ success: true, totalReward: 1 });
    // The probe finds no astronomer when the agent records someone else.
    await env.reset({ seed: 1, options: { task: 'remember' } });
    await env.step({
      name: 'create_entities',
      arguments: { entities: [{ name: 'Grace', entityType: 'person', observations: ['baker'] }] },
    });
    const answered = await env.step('final_answer(done)');
    expect(answered).toMatchObject({ reward: 0, info: { success: false } });
    await env.close();
  });
});

describe('turngym/mcp-tools-v1 against a server the test starts with the SDK (Streamable HTTP)', () => {
  let http: HttpServer;
  let url: string;
  let released: () => void = () => undefined;

  beforeAll(async () => {
    http = createServer((request, response) => {
      // Stateless: each request gets its own server and transport (the SDK's documented pattern).
      const server = new Server({ name: 'sdk-test', version: '1.0.0' }, { capabilities: { tools: {} } });
      server.setRequestHandler(ListToolsRequestSchema, () => ({
        tools: [
          {
            name: 'lookup_price',
            description: 'Price of an item in cents.',
            inputSchema: {
              $schema: 'https://json-schema.org/draft/2020-12/schema',
              type: 'object',
              properties: { item: { type: 'string' } },
              required: ['item'],
            },
          },
          { name: 'stall', description: 'Answers once the test lets it.', inputSchema: { type: 'object' } },
          {
            name: 'tag_item',
            description: 'Tags an item.',
            // A nested $id, as schema generators write for shared definitions.
            inputSchema: {
              type: 'object',
              properties: { tag: { $id: 'https://schemas.example.test/tag', type: 'string' } },
              required: ['tag'],
            },
          },
          {
            name: 'find_user',
            description: 'A user by handle.',
            // A catastrophic regular expression, as a careless server may write one.
            inputSchema: {
              type: 'object',
              properties: { handle: { type: 'string', description: 'A handle.', pattern: '^(a+)+$' } },
              required: ['handle'],
            },
          },
        ],
      }));
      server.setRequestHandler(CallToolRequestSchema, async (call) => {
        if (call.params.name === 'stall') await new Promise<void>((resolve) => (released = resolve));
        if (call.params.name === 'find_user')
          return { content: [{ type: 'text', text: 'no such user' }], isError: true };
        if (call.params.name === 'tag_item') return { content: [{ type: 'text', text: 'tagged' }] };
        const item = String(call.params.arguments?.item ?? '');
        const prices: Record<string, number> = { apple: 120, pear: 95 };
        return item in prices
          ? { content: [{ type: 'text', text: `${prices[item]}` }], structuredContent: { cents: prices[item] } }
          : { content: [{ type: 'text', text: `unknown item ${item}` }], isError: true };
      });
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      response.on('close', () => void transport.close());
      void server.connect(transport).then(() => transport.handleRequest(request, response));
    });
    http.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  });

  afterAll(async () => {
    released();
    http.closeAllConnections();
    await new Promise((resolve) => http.close(resolve));
  });

  const scratch = mkdtempSync(join(tmpdir(), 'mcp-tasks-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));
  const taskFile = (): string => {
    const file = join(scratch, 'tasks.json');
    writeFileSync(
      file,
      JSON.stringify([
        {
          id: 'apple',
          prompt: 'How much is an apple, in cents?',
          check: { all: [{ equals: 120 }, { path: '$.lastResult.cents', equals: 120 }] },
        },
      ]),
    );
    return file;
  };

  it("checks a tool's arguments whose schema nests an $id another schema of the process also uses", async () => {
    // Compiled on core's shared ajv, the id clashed with one registered elsewhere in the process: the tool kept only
    // a description of its argument, and `{"tag": 5}` went to the server unchecked.
    const elsewhere = ajv.compile({ $id: 'https://schemas.example.test/tag', type: 'integer' });
    try {
      for (let make = 0; make < 2; make++) {
        const env = await tracked(registry().make(MCP_TOOLS_ID, { options: { url, tasks: taskFile() } }));
        await env.reset({ seed: 1 });
        const wrong = await env.step({ name: 'tag_item', arguments: { tag: 5 } });
        expect(wrong.observation).toMatch(/tag must be string/);
        expect((await env.step({ name: 'tag_item', arguments: { tag: 'red' } })).observation).toBe('tagged');
        await env.close();
      }
    } finally {
      ajv.removeSchema(elsewhere.schema as object);
    }
  });

  it('exposes its tools, reads structured content and scores the check', async () => {
    const tools = registry();
    const env = await tracked(tools.make(MCP_TOOLS_ID, { options: { url, tasks: taskFile(), callTimeoutMs: 2000 } }));
    expect(env.spec.tools?.map((tool) => tool.name)).toEqual([
      'lookup_price',
      'stall',
      'tag_item',
      'find_user',
      'final_answer',
    ]);
    expect(env.spec.nondeterministic).toBe(true);
    await env.reset({ seed: 0 });
    const unknown = await env.step('lookup_price(plum)');
    expect(unknown).toMatchObject({ observation: 'Tool error: unknown item plum', info: { toolError: true } });
    expect((await env.step('lookup_price(apple)')).observation).toBe('120');
    expect(await env.step('final_answer(120 cents)')).toMatchObject({ reward: 0 });
    await env.reset({ seed: 0 });
    await env.step('lookup_price(apple)');
    expect(await env.step('final_answer(120)')).toMatchObject({ reward: 1, info: { success: true } });
    await env.close();
  });

  it("keeps a URL's credentials out of the spec, which every client of turngym serve reads", async () => {
    const secret = `${url.replace('http://', 'http://ada:s3cret@')}?api_key=T0KEN`;
    const env = await tracked(registry().make(MCP_TOOLS_ID, { options: { url: secret, tasks: taskFile() } }));
    expect(env.spec.summary).toBe(
      `Answer tasks with the tools of an MCP server (${url.replace('http://', 'http://…@')}?api_key=…).`,
    );
    await env.close();
  });

  it("checks arguments without the server's regular expressions: a catastrophic one cannot freeze the env", async () => {
    const tools = registry();
    const env = await tracked(tools.make(MCP_TOOLS_ID, { options: { url, tasks: taskFile(), callTimeoutMs: 2000 } }));
    const parameters = env.spec.tools?.find((tool) => tool.name === 'find_user')?.parameters;
    expect(parameters?.properties?.handle).toEqual({
      type: 'string',
      description: 'A handle. Must match the pattern ^(a+)+$ (the server checks it).',
    });
    await env.reset({ seed: 0 });
    // The env's ajv ran ^(a+)+$ on this before: hours of backtracking in the env's process, which nothing can stop.
    const step = await env.step(`find_user({"handle": "${'a'.repeat(40)}!"})`);
    expect(step).toMatchObject({ observation: 'Tool error: no such user', info: { toolError: true } });
    await env.close();
  });

  it('a call that hangs past callTimeoutMs errors the episode (ENV_FAULT, retryable) instead of scoring it', async () => {
    const tools = registry();
    const env = await tracked(tools.make(MCP_TOOLS_ID, { options: { url, tasks: taskFile(), callTimeoutMs: 300 } }));
    await env.reset({ seed: 0 });
    const fault = await thrown(env.step('stall()'));
    expect(fault).toBeInstanceOf(EnvFaultError);
    expect(fault.isRetryable).toBe(true);
    expect(fault.message).toMatch(/failed during stall: no answer within 300 ms/);
    released();
    await env.close();
  });

  it('closing an env and its forks closes their connections to the server', async () => {
    // Each client kept its kept-alive sockets until the server's idle timeout: 50 closed forks, 51 open sockets.
    const sockets: Socket[] = [];
    const track = (socket: Socket): void => void sockets.push(socket);
    http.on('connection', track);
    const env = await tracked(registry().make(MCP_TOOLS_ID, { options: { url, tasks: taskFile() } }));
    await env.reset({ seed: 0 });
    await env.step('lookup_price(apple)');
    for (let i = 0; i < 3; i += 1) {
      const fork = await env.fork();
      await fork.step('lookup_price(pear)');
      await fork.close();
    }
    await env.close();
    http.off('connection', track);
    expect(sockets.length).toBeGreaterThan(0);
    // The server keeps idle connections for a minute (beforeAll): only the client's closing ends them this soon.
    const closed = Promise.all(
      sockets.map((socket) => (socket.destroyed ? undefined : new Promise((resolve) => socket.once('close', resolve)))),
    ).then(() => 'all closed');
    const waited = new Promise((resolve) => setTimeout(resolve, 3000, 'some still open after 3 s').unref());
    expect(await Promise.race([closed, waited])).toBe('all closed');
  });

  it('refused credentials (HTTP 401) are a fault no retry mends, naming the status and what the server asks for', async () => {
    // It was a retryable "Error POSTing to endpoint: unauthorized": runs retried a wrong token again and again.
    const guarded = createServer((_request, response) => {
      response.writeHead(401, { 'www-authenticate': 'Bearer realm="mcp", error="invalid_token"' });
      response.end('unauthorized');
    });
    await new Promise<void>((resolve) => guarded.listen(0, '127.0.0.1', resolve));
    try {
      const locked = `http://127.0.0.1:${(guarded.address() as AddressInfo).port}/mcp`;
      const headers = { authorization: 'Bearer expired-t0ken' };
      const fault = await thrown(
        tracked(registry().make(MCP_TOOLS_ID, { options: { url: locked, headers, tasks: taskFile() } })),
      );
      expect(fault).toMatchObject({ code: 'ENV_FAULT', isRetryable: false });
      expect(fault.message).toContain(
        '(HTTP 401, WWW-Authenticate: Bearer realm="mcp", error="invalid_token"; the headers option must carry credentials the server accepts)',
      );
      expect(fault.message).not.toMatch(/expired-t0ken/);
    } finally {
      guarded.closeAllConnections();
      await new Promise((resolve) => guarded.close(resolve));
    }
  });

  it('a server that went away errors the episode', async () => {
    const other = createServer((_request, response) => response.destroy());
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const gone = `http://127.0.0.1:${(other.address() as AddressInfo).port}/mcp`;
    const tools = registry();
    const fault = await thrown(tools.make(MCP_TOOLS_ID, { options: { url: gone, tasks: taskFile() } }));
    expect(fault.code).toBe('ENV_FAULT');
    expect(fault.message).toMatch(/could not be started or reached/);
    await new Promise((resolve) => other.close(resolve));
  });
});

describe('turngym/mcp-tools-v1 options as a sloppy operator writes them', () => {
  const tasks = join(FIXTURES, 'faulty-tasks.jsonl');

  it('refuses a URL that does not parse, a header HTTP forbids and a missing cwd as options, naming the field', async () => {
    // A bare TypeError "Invalid URL" came out of make; the others were retryable faults ("spawn node ENOENT"
    // blamed the command for a missing cwd), and the header's message quoted the credential.
    const tools = registry();
    for (const url of ['http://exa mple.com/mcp', 'http://']) {
      const error = await thrown(tracked(tools.make(MCP_TOOLS_ID, { options: { url, tasks } })));
      expect(error).toMatchObject({ code: 'INVALID_OPTIONS', isRetryable: false });
      expect(error.message).toMatch(/url: not a URL the env can reach/);
    }
    const header = await thrown(
      tracked(
        tools.make(MCP_TOOLS_ID, {
          options: { url: 'http://127.0.0.1:1/mcp', headers: { authorization: 'Bearer s3cret\nx' }, tasks },
        }),
      ),
    );
    expect(header.code).toBe('INVALID_OPTIONS');
    expect(header.message).toMatch(/headers.authorization: not a valid HTTP header/);
    expect(header.message).not.toMatch(/s3cret/);
    const server = { ...demoServerCommand(), cwd: join(FIXTURES, 'no-such-dir') };
    const cwd = await thrown(tracked(tools.make(MCP_TOOLS_ID, { options: { server, tasks } })));
    expect(cwd.code).toBe('INVALID_OPTIONS');
    expect(cwd.message).toMatch(/server.cwd: .*no-such-dir is not a directory/);
  });

  it('keeps credentials of a URL out of fault messages', async () => {
    const http = createServer((_request, response) => response.destroy());
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const port = (http.address() as AddressInfo).port;
    try {
      const url = `http://ada:s3cret@127.0.0.1:${port}/mcp?api_key=T0KEN&v=2`;
      const fault = await thrown(tracked(registry().make(MCP_TOOLS_ID, { options: { url, tasks } })));
      expect(fault.code).toBe('ENV_FAULT');
      expect(fault.message).toContain(`MCP server http://…@127.0.0.1:${port}/mcp?api_key=…&v=… could not be`);
      expect(fault.message).not.toMatch(/s3cret|T0KEN/);
    } finally {
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    }
  });

  it("keeps a URL's and its headers' credentials out of a fault whose server echoes them", async () => {
    // The label hid the key, but the SDK quotes the body of a refusal, and a server that echoed the refused
    // credentials ("invalid key …") put them in the message, and so in run records and logs.
    const http = createServer((request, response) => {
      const key = new URL(request.url ?? '', 'http://x').searchParams.get('api_key');
      response.writeHead(401);
      response.end(`invalid credentials: ${request.headers.authorization} ${key}`);
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp?api_key=T0KEN-S3CRET`;
      const headers = { authorization: 'Bearer H3ADER-T0KEN' };
      const fault = await thrown(tracked(registry().make(MCP_TOOLS_ID, { options: { url, headers, tasks } })));
      expect(fault.code).toBe('ENV_FAULT');
      expect(fault.message).toContain('Error POSTing to endpoint: invalid credentials: … …');
      expect(fault.message).not.toMatch(/T0KEN-S3CRET|H3ADER-T0KEN/);
    } finally {
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    }
  });

  it('a command that is not there is a fault no retry can mend (not retryable), saying so', async () => {
    const tools = registry();
    const command = join(FIXTURES, 'no-such-binary');
    const fault = await thrown(
      tracked(tools.make(MCP_TOOLS_ID, { options: { server: { command, args: [] }, tasks } })),
    );
    expect(fault).toMatchObject({ code: 'ENV_FAULT', isRetryable: false });
    expect(fault.message).toMatch(/could not be started: the command .*no-such-binary is not found/);
  });
});

describe('turngym/mcp-tools-v1 with a server that crashes or hangs (stdio, SDK server)', () => {
  const options = {
    server: { command: process.execPath, args: [join(FIXTURES, 'faulty-server.cjs')] },
    tasks: join(FIXTURES, 'faulty-tasks.jsonl'),
    callTimeoutMs: 500,
  };

  it('a crash mid-episode is ENV_FAULT with the stderr tail; the next episode starts a new server', async () => {
    const tools = registry();
    const env = await tracked(tools.make(MCP_TOOLS_ID, { options }));
    await env.reset({ seed: 0 });
    expect((await env.step('echo(hello)')).observation).toBe('hello');
    const fault = await thrown(env.step('crash()'));
    expect(fault.code).toBe('ENV_FAULT');
    expect(fault.isRetryable).toBe(true);
    expect(fault.message).toMatch(/crashing on purpose/);
    // The episode cannot go on on a dead server (no score comes out of it) …
    expect((await thrown(env.step('final_answer(hello)'))).code).toBe('RESET_NEEDED');
    // … and a reset brings a live one.
    await env.reset({ seed: 0 });
    expect((await env.step('echo(again)')).observation).toBe('again');
    await env.close();
  });

  it("giant arguments are the agent's invalid action, not sent to the server to kill it", async () => {
    // 20 MB of arguments closed the SDK server's connection (its reader stops at 10 MiB): an ENV_FAULT, retried
    // and reported as the server's fault, where the agent wrote the call.
    const tools = registry();
    const env = await tracked(tools.make(MCP_TOOLS_ID, { options: { ...options, maxArgumentChars: 1000 } }));
    await env.reset({ seed: 0 });
    const giant = await env.step({ name: 'echo', arguments: { text: 'y'.repeat(2000) } });
    expect(giant).toMatchObject({ terminated: false, info: { invalidAction: true } });
    expect(giant.observation).toBe(
      'Invalid action: echo: the arguments are 2011 characters of JSON, more than the 1000 a call may send; the call was not sent.',
    );
    expect((await env.step({ name: 'echo', arguments: { text: 'y'.repeat(980) } })).observation).toBe('y'.repeat(980));
    const defaults = await tracked(tools.make(MCP_TOOLS_ID, { options }));
    await defaults.reset({ seed: 0 });
    const big = await defaults.step({ name: 'echo', arguments: { text: 'y'.repeat(20_000_000) } });
    expect(big.info.invalidAction).toBe(true);
    expect((await defaults.step('echo(alive)')).observation).toBe('alive');
  });

  it('a reply past the SDK client\'s 10 MiB limit is ENV_FAULT that says why, not a bare "Connection closed"', async () => {
    const tools = registry();
    const env = await tracked(tools.make(MCP_TOOLS_ID, { options: { ...options, callTimeoutMs: 20000 } }));
    await env.reset({ seed: 0 });
    const fault = await thrown(env.step('flood()'));
    expect(fault.code).toBe('ENV_FAULT');
    expect(fault.message).toMatch(
      /failed during flood: MCP error -32000: Connection closed \(the transport reported: ReadBuffer exceeded maximum size of 10485760 bytes\)/,
    );
  });

  it('keeps a schema strict ajv refuses argument by argument: the agent still sees and must give the arguments', async () => {
    // Refused whole (an unknown format in one argument), the tool became an argument-less object: the
    // instructions said "Arguments: {}" and a call without its required arguments went to the server unchecked.
    const tools = registry();
    const env = await tracked(tools.make(MCP_TOOLS_ID, { options }));
    const paint = env.spec.tools?.find((tool) => tool.name === 'paint');
    expect(paint?.parameters).toEqual({
      type: 'object',
      properties: {
        thing: { type: 'string' },
        color: { description: 'As the server documents it: {"type":"string","format":"color","x-order":1}' },
      },
      required: ['thing', 'color'],
    });
    const reset = await env.reset({ seed: 0 });
    expect(reset.info.instructions).toContain('- paint: Echo a colour');
    expect(reset.info.instructions).toMatch(/paint: .* Arguments: \{"thing":\{"type":"string"\},"color":/);
    const missing = await env.step('paint({"thing": "door"})');
    expect(missing.info.invalidAction).toBe(true);
    expect(missing.observation).toMatch(/arguments.color is required/);
    expect((await env.step('paint({"thing": "door", "color": 7})')).observation).toBe('door in 7');
  });

  it('a tool list whose cursor comes back is a fault at make, not a loop for ever', async () => {
    const tools = registry();
    const server = { ...options.server, env: { ENDLESS_LIST: '1' } };
    const fault = await thrown(tracked(tools.make(MCP_TOOLS_ID, { options: { ...options, server } })));
    expect(fault).toMatchObject({ code: 'ENV_FAULT', isRetryable: false });
    expect(fault.message).toMatch(/lists its tools without end \(the cursor "again" came back\)/);
  });

  it('refuses tools whose names differ only in case, unless the tools option offers one of them', async () => {
    // Calls match names without case: every call to either went to the one listed first, the other out of reach.
    const tools = registry();
    const server = { ...options.server, env: { TWIN_NAMES: '1' } };
    const error = await thrown(tracked(tools.make(MCP_TOOLS_ID, { options: { ...options, server } })));
    expect(error.code).toBe('INVALID_OPTIONS');
    expect(error.message).toMatch(/the server lists echo and ECHO, which an agent's call cannot tell apart/);
    const env = await tracked(tools.make(MCP_TOOLS_ID, { options: { ...options, server, tools: ['ECHO'] } }));
    await env.reset({ seed: 0 });
    expect((await env.step({ name: 'ECHO', arguments: { text: 'hi' } })).observation).toBe('HI');
  });

  it('says how a server that died mid-call ended (exit code, or the signal of a kill -9), not "Connection closed"', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-killed-'));
    const startedFile = join(dir, 'started');
    try {
      const tools = registry();
      const server = { ...options.server, env: { STARTED_FILE: startedFile } };
      const env = await tracked(tools.make(MCP_TOOLS_ID, { options: { ...options, server, callTimeoutMs: 30000 } }));
      await env.reset({ seed: 0 });
      const crashed = await thrown(env.step('crash()'));
      expect(crashed).toMatchObject({ code: 'ENV_FAULT', isRetryable: true });
      expect(crashed.message).toMatch(
        /failed during crash: the server process exited with code 3; its stderr ends: faulty server: crashing on purpose$/,
      );
      // A process killed from outside (kill -9, the OOM killer) while a call waits on it.
      await env.reset({ seed: 0 });
      expect((await env.step('echo(alive)')).observation).toBe('alive');
      const pid = Number(readFileSync(startedFile, 'utf8').trim().split('\n').pop());
      const hanging = thrown(env.step('hang()'));
      process.kill(pid, 'SIGKILL');
      const killed = await hanging;
      expect(killed).toMatchObject({ code: 'ENV_FAULT', isRetryable: true });
      expect(killed.message).toMatch(
        /the server process was killed by signal SIGKILL: a kill -9, or the out-of-memory killer/,
      );
      expect(killed.message).not.toMatch(/Connection closed/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps credentials passed as arguments out of the spec and of fault messages, even when the server echoes them', async () => {
    const tools = registry();
    const args = [
      options.server.args[0] as string,
      '--api-key',
      'K3Y-S3CRET',
      '--token=T0KEN-S3CRET',
      'DB_PASSWORD=hunter22',
      '--verbose',
    ];
    const server = { command: process.execPath, args, env: { ECHO_ARGV: '1', SERVICE_TOKEN: 'ENV-S3CRET' } };
    const env = await tracked(tools.make(MCP_TOOLS_ID, { options: { ...options, server } }));
    // The summary goes to every client of `turngym serve`; ordinary arguments still show, to tell servers apart.
    expect(env.spec.summary).toBe(
      `Answer tasks with the tools of an MCP server (node ${args[0]} --api-key … --token=… DB_PASSWORD=… --verbose).`,
    );
    await env.reset({ seed: 0 });
    const fault = await thrown(env.step('crash()'));
    expect(fault.message).toContain(
      `"${process.execPath} ${args[0]} --api-key … --token=… DB_PASSWORD=… --verbose" failed`,
    );
    expect(fault.message).toContain('faulty server: started with');
    expect(fault.message).not.toMatch(/K3Y-S3CRET|T0KEN-S3CRET|hunter22|ENV-S3CRET/);
  });

  it('reads a tool list with tools off the spec, and treats every episode alike whatever outputSchema a tool has', async () => {
    // The SDK's listTools refused the whole list for one schema without "type": "object" (a retryable fault quoting a
    // zod dump); and the connection that listed the tools (the first episode's) held results to the outputSchema
    // while later ones did not: the same seed gave "Tool error: … did not return structured content", then "seven".
    const tools = registry();
    const server = { ...options.server, env: { ODD_LIST: '1' } };
    const env = await tracked(tools.make(MCP_TOOLS_ID, { options: { ...options, server } }));
    expect(env.spec.tools?.map((tool) => tool.name)).toEqual([
      'echo',
      'crash',
      'hang',
      'flood',
      'once',
      'paint',
      'loose',
      'wrapped',
      'silent',
      'shaped',
      'final_answer',
    ]);
    for (let episode = 0; episode < 2; episode += 1) {
      await env.reset({ seed: 0 });
      expect((await env.step('shaped()')).observation).toBe('seven');
      expect((await env.step('loose({})')).observation).toBe('Invalid action: loose: arguments.text is required.');
      expect((await env.step('loose(hi)')).observation).toBe('hi');
    }
  });

  it('shows the whole schema in the instructions when its properties alone do not say the arguments', async () => {
    // "Arguments: {}" for a schema that is one $ref: an agent reading text could not know it must give text.
    const tools = registry();
    const server = { ...options.server, env: { ODD_LIST: '1' } };
    const env = await tracked(tools.make(MCP_TOOLS_ID, { options: { ...options, server } }));
    const reset = await env.reset({ seed: 0 });
    expect(reset.info.instructions).toContain(
      '- wrapped: Echo, its schema one $ref (as generators write a model). Arguments (JSON Schema): {"$ref":"#/$defs/Args","$defs":{"Args":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}},"type":"object"}',
    );
    expect(reset.info.instructions).toContain('- echo: Echo the text. Arguments: {"text":{"type":"string"}}');
    expect((await env.step('wrapped({})')).observation).toBe('Invalid action: wrapped: arguments.text is required.');
    expect((await env.step('wrapped({"text": "hi"})')).observation).toBe('hi');
  });

  it('says so when a tool answers with no content, rather than an empty observation', async () => {
    // The observation was "" (a model reads that as nothing having happened), and a failure without a message "Tool error: ".
    const tools = registry();
    const server = { ...options.server, env: { ODD_LIST: '1' } };
    const env = await tracked(tools.make(MCP_TOOLS_ID, { options: { ...options, server } }));
    await env.reset({ seed: 0 });
    expect((await env.step('silent(ok)')).observation).toBe('(empty result: the tool returned no text)');
    const failed = await env.step('silent(fail)');
    expect(failed).toMatchObject({
      observation: 'Tool error: (empty result: the tool returned no text)',
      info: { toolError: true },
    });
  });

  it('a tools/list reply without its tools array is a fault no retry mends, saying so', async () => {
    // It was a retryable fault quoting the SDK's zod dump ("expected array", path ["tools"]).
    const tools = registry();
    const server = { ...options.server, env: { NO_TOOL_LIST: '1' } };
    const fault = await thrown(tracked(tools.make(MCP_TOOLS_ID, { options: { ...options, server } })));
    expect(fault).toMatchObject({ code: 'ENV_FAULT', isRetryable: false });
    expect(fault.message).toMatch(/failed to list its tools: its tools\/list reply holds no "tools" array$/);
  });

  it('refuses a server that lists one name twice, without advice that cannot work', async () => {
    // The message said to offer "one of them" with the tools option, which names both again and failed the same way.
    const tools = registry();
    const server = { ...options.server, env: { DUPLICATE_NAME: '1' } };
    for (const offered of [undefined, ['echo']]) {
      const fault = await thrown(
        tracked(tools.make(MCP_TOOLS_ID, { options: { ...options, server, ...(offered ? { tools: offered } : {}) } })),
      );
      expect(fault).toMatchObject({ code: 'ENV_FAULT', isRetryable: false });
      expect(fault.message).toMatch(/the server lists two tools named echo; .* \(a server must list each name once\)/);
    }
  });

  it('stops a server started through a wrapper (sh -c) on reset and close: no orphan outlives the env', async () => {
    // The SDK stops the process it started (here the shell), not the server the shell started: a server that outlives
    // its stdin's end ran on after the env closed, one orphan per episode.
    const dir = mkdtempSync(join(tmpdir(), 'mcp-wrapped-'));
    const startedFile = join(dir, 'started');
    const started = (): number[] => readFileSync(startedFile, 'utf8').trim().split('\n').map(Number);
    try {
      const tools = registry();
      const server = {
        command: '/bin/sh',
        args: ['-c', `"${process.execPath}" "${options.server.args[0]}"`],
        env: { STARTED_FILE: startedFile, KEEP_RUNNING: '1' },
      };
      const env = await tracked(tools.make(MCP_TOOLS_ID, { options: { ...options, server } }));
      await env.reset({ seed: 0 });
      expect((await env.step('echo(one)')).observation).toBe('one');
      await env.reset({ seed: 0 }); // a fresh server per episode: the next call starts one
      expect((await env.step('echo(two)')).observation).toBe('two');
      await env.close();
      expect(started()).toHaveLength(2); // the first episode keeps the one that listed the tools
      expect(started().filter(isRunning)).toEqual([]);
    } finally {
      for (const pid of existsSync(startedFile) ? started() : []) if (isRunning(pid)) process.kill(pid, 'SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a hang is ENV_FAULT after callTimeoutMs', async () => {
    const tools = registry();
    const env = await tracked(tools.make(MCP_TOOLS_ID, { options }));
    await env.reset({ seed: 0 });
    const fault = await thrown(env.step('hang()'));
    expect(fault).toMatchObject({ code: 'ENV_FAULT', isRetryable: true });
    expect(fault.message).toMatch(/no answer within 500 ms/);
    await env.close();
  });

  it('closes a fork whose replay fails: its server process does not outlive the error', async () => {
    // The twin of a failed replay was never closed: its hung server kept running, and kept the host process alive.
    const dir = mkdtempSync(join(tmpdir(), 'mcp-fork-'));
    const pidsFile = join(dir, 'pids');
    const pids = (): number[] => readFileSync(pidsFile, 'utf8').trim().split('\n').map(Number);
    try {
      const tools = registry();
      const server = { ...options.server, env: { PIDS_FILE: pidsFile } };
      const env = await tracked(tools.make(MCP_TOOLS_ID, { options: { ...options, server } }));
      await env.reset({ seed: 0 });
      expect((await env.step('once()')).observation).toBe('first');
      const fault = await thrown(env.fork());
      expect(fault.message).toMatch(/failed during once: no answer within 500 ms/);
      const twinServer = pids()[1] as number;
      expect(isAlive(twinServer)).toBe(false);
      // Forks side by side (a search expanding children at once): each failed one closes its own twin.
      const side = await Promise.allSettled([env.fork(), env.fork()]);
      expect(side.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
      expect(pids()).toHaveLength(4);
      expect(pids().slice(2).filter(isAlive)).toEqual([]);
    } finally {
      for (const pid of existsSync(pidsFile) ? pids() : []) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('close() during a slow server start stops that server, and the step in flight ends ENV_CLOSED', async () => {
    // The start finished after close() had found nothing to stop: the step went on and the process ran for ever.
    const dir = mkdtempSync(join(tmpdir(), 'mcp-slow-'));
    const startedFile = join(dir, 'started');
    const started = (): number[] => readFileSync(startedFile, 'utf8').trim().split('\n').map(Number);
    try {
      const tools = registry();
      const server = { ...options.server, env: { STARTED_FILE: startedFile, SLOW_START_MS: '400' } };
      const env = await tracked(tools.make(MCP_TOOLS_ID, { options: { ...options, server } }));
      await env.reset({ seed: 0 });
      await env.step('echo(first)');
      await env.reset({ seed: 0 }); // a fresh server per episode: the next call starts one
      const stepping = thrown(env.step('echo(second)'));
      await env.close();
      expect((await stepping).code).toBe('ENV_CLOSED');
      expect(started()).toHaveLength(2);
      expect(started().filter(isAlive)).toEqual([]);
    } finally {
      for (const pid of existsSync(startedFile) ? started() : []) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('close() while a call runs ends the step ENV_CLOSED, not a retryable server fault', async () => {
    // The closed connection read as the server's: ENV_FAULT "Connection closed", retryable, for an episode the caller
    // ended on purpose.
    const tools = registry();
    const env = await tracked(tools.make(MCP_TOOLS_ID, { options: { ...options, callTimeoutMs: 30000 } }));
    await env.reset({ seed: 0 });
    expect((await env.step('echo(up)')).observation).toBe('up'); // the server runs: the next call reaches it
    const stepping = thrown(env.step('hang()'));
    await env.close();
    expect(await stepping).toMatchObject({ code: 'ENV_CLOSED' });
  });

  it('refuses a server command that does not start', async () => {
    const tools = registry();
    const fault = await thrown(
      tools.make(MCP_TOOLS_ID, {
        options: { ...options, server: { command: join(FIXTURES, 'no-such-binary'), args: [] } },
      }),
    );
    expect(fault.code).toBe('ENV_FAULT');
  });

  it('a server that never answers the handshake is ENV_FAULT after startTimeoutMs, says so, and is stopped', async () => {
    // The message quoted callTimeoutMs ("no answer within 30000 ms") for a start that gave up after 300 ms; and the
    // server outlived the failed make by seconds (the SDK closed it without waiting), holding the host process.
    const dir = mkdtempSync(join(tmpdir(), 'mcp-handshake-'));
    const pidFile = join(dir, 'pid');
    const script = `require('node:fs').writeFileSync(process.env.PID_FILE, String(process.pid)); setInterval(() => {}, 1000)`;
    try {
      const tools = registry();
      const fault = await thrown(
        tracked(
          tools.make(MCP_TOOLS_ID, {
            options: {
              ...options,
              server: { command: process.execPath, args: ['-e', script], env: { PID_FILE: pidFile } },
              startTimeoutMs: 300,
              callTimeoutMs: 30000,
            },
          }),
        ),
      );
      expect(fault).toMatchObject({ code: 'ENV_FAULT', isRetryable: true });
      expect(fault.message).toMatch(/could not be started or reached: no answer within 300 ms/);
      expect(isAlive(Number(readFileSync(pidFile, 'utf8')))).toBe(false);
    } finally {
      if (existsSync(pidFile) && isAlive(Number(readFileSync(pidFile, 'utf8'))))
        process.kill(Number(readFileSync(pidFile, 'utf8')), 'SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
