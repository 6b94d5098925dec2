import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { EnvFaultError, Registry, runEpisode, TurnGymError } from '@turngym/core';
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

  it('exposes its tools, reads structured content and scores the check', async () => {
    const tools = registry();
    const env = await tracked(tools.make(MCP_TOOLS_ID, { options: { url, tasks: taskFile(), callTimeoutMs: 2000 } }));
    expect(env.spec.tools?.map((tool) => tool.name)).toEqual(['lookup_price', 'stall', 'find_user', 'final_answer']);
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

  it('a hang is ENV_FAULT after callTimeoutMs', async () => {
    const tools = registry();
    const env = await tracked(tools.make(MCP_TOOLS_ID, { options }));
    await env.reset({ seed: 0 });
    const fault = await thrown(env.step('hang()'));
    expect(fault).toMatchObject({ code: 'ENV_FAULT', isRetryable: true });
    expect(fault.message).toMatch(/no answer within 500 ms/);
    await env.close();
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

  it('a server that never answers the handshake is ENV_FAULT after startTimeoutMs, and says so', async () => {
    // The message quoted callTimeoutMs ("no answer within 30000 ms") for a start that gave up after 300 ms.
    const tools = registry();
    const fault = await thrown(
      tracked(
        tools.make(MCP_TOOLS_ID, {
          options: {
            ...options,
            server: { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] },
            startTimeoutMs: 300,
            callTimeoutMs: 30000,
          },
        }),
      ),
    );
    expect(fault).toMatchObject({ code: 'ENV_FAULT', isRetryable: true });
    expect(fault.message).toMatch(/could not be started or reached: no answer within 300 ms/);
  });
});
