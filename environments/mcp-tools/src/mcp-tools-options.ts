import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { defineOptions, InvalidOptionsError, type ClientOptions, type JSONSchemaType } from '@turngym/core';

/** An MCP server the env starts as a child process and speaks to over stdio. */
export interface McpServerCommand {
  /** The executable, e.g. `node` or `npx`. Never client-settable: it runs with the host's rights. */
  command: string;
  args: string[];
  /** Extra environment variables (the SDK passes only a safe default set of the host's own). */
  env?: Record<string, string>;
  cwd?: string;
}

/** Options of `turngym/mcp-tools-v1`. Type and schema side by side so they cannot drift. */
export interface McpToolsOptions {
  /** Start this MCP server (stdio). Default, when `url` is not set either: the bundled demo server. */
  server?: McpServerCommand;
  /** Or connect to a running MCP server (Streamable HTTP), e.g. `http://127.0.0.1:8001/mcp`. */
  url?: string;
  /** HTTP headers for `url` (e.g. `{"authorization": "Bearer …"}`). */
  headers?: Record<string, string>;
  /** The task file (JSONL or a JSON array; see the README). Default: the demo server's tasks. */
  tasks?: string;
  /** The server's tools the agent may call (default: all it lists). */
  tools?: string[];
  /** Name of the env's own tool that submits the answer and ends the episode. */
  answerTool: string;
  /**
   * `episode`: a fresh server process for every episode, so episodes cannot see each other's state and a seed
   * replays exactly (stdio only). `never`: one process for the env's life (faster; state carries over).
   */
  restart: 'episode' | 'never';
  /** A tool call that has not answered after this long errors the episode (ENV_FAULT, retryable). */
  callTimeoutMs: number;
  /** Starting (or reaching) the server and listing its tools must finish within this (ms). */
  startTimeoutMs: number;
  /** Longest observation (characters) kept from one tool result; the rest is cut with a note. */
  maxObservationChars: number;
  /**
   * Longest arguments (characters of their JSON) a call may send; a longer call is an invalid action, not sent.
   * The model under test writes them: 20 MB sent to an SDK server closed its connection (its stdio reader stops
   * at 10 MiB), which scored as the server's fault.
   */
  maxArgumentChars: number;
  /** Turn limit (tool calls plus the answer). */
  maxTurns: number;
}

const stringMap = {
  type: 'object',
  nullable: true,
  required: [],
  additionalProperties: { type: 'string' },
} as const;

export const mcpToolsOptionsSchema: JSONSchemaType<McpToolsOptions> = {
  type: 'object',
  additionalProperties: false,
  required: [],
  properties: {
    server: {
      type: 'object',
      nullable: true,
      additionalProperties: false,
      required: ['command'],
      properties: {
        command: { type: 'string', minLength: 1 },
        args: { type: 'array', items: { type: 'string' }, default: [] },
        env: stringMap,
        cwd: { type: 'string', minLength: 1, nullable: true },
      },
    },
    url: { type: 'string', nullable: true, pattern: '^https?://' },
    headers: stringMap,
    tasks: { type: 'string', minLength: 1, nullable: true },
    tools: { type: 'array', nullable: true, minItems: 1, items: { type: 'string', minLength: 1 } },
    answerTool: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_-]{0,63}$', default: 'final_answer' },
    restart: { type: 'string', enum: ['episode', 'never'], default: 'episode' },
    callTimeoutMs: { type: 'integer', minimum: 10, maximum: 3600000, default: 30000 },
    startTimeoutMs: { type: 'integer', minimum: 10, maximum: 600000, default: 30000 },
    maxObservationChars: { type: 'integer', minimum: 100, maximum: 1000000, default: 4000 },
    maxArgumentChars: { type: 'integer', minimum: 100, maximum: 10000000, default: 100000 },
    maxTurns: { type: 'integer', minimum: 1, maximum: 1000, default: 10 },
  },
} as JSONSchemaType<McpToolsOptions>;

export const validateMcpToolsOptions = defineOptions<McpToolsOptions>('turngym/mcp-tools-v1', mcpToolsOptionsSchema);

/** Per-episode options of `reset({ seed, options })`. */
export interface McpToolsResetOptions {
  /** Play this task (its id, or its 0-based index in the task file) instead of the one the seed picks. */
  task?: string | number;
}

export const mcpToolsResetOptionsSchema = {
  type: 'object',
  additionalProperties: false,
  required: [],
  properties: { task: { type: ['string', 'integer'], minLength: 1, minimum: 0 } },
} as unknown as JSONSchemaType<McpToolsResetOptions>;

export const validateMcpToolsResetOptions = defineOptions<McpToolsResetOptions>(
  'turngym/mcp-tools-v1 reset',
  mcpToolsResetOptionsSchema,
);

/**
 * What a client of `turngym serve` may set: the turn limit and the timeouts within small bounds. Never the
 * server command, its environment, the URL or the task file: those run programs or read files as the host.
 */
export const mcpToolsClientOptions: ClientOptions<McpToolsOptions> = {
  maxTurns: { maximum: 50 },
  maxObservationChars: { maximum: 20000 },
};

/** The package's root (the same from `src/` under jest and from `dist/`). */
const PACKAGE_ROOT = join(__dirname, '..');

/** The demo task file (`tasks/demo-tasks.jsonl`): tasks for the bundled demo server. */
export const DEMO_TASKS_PATH = join(PACKAGE_ROOT, 'tasks', 'demo-tasks.jsonl');

/** The bundled demo MCP server (calculator, notebook, atlas) as a stdio command: this Node, its built script. */
export function demoServerCommand(): McpServerCommand {
  const script = join(PACKAGE_ROOT, 'dist', 'demo-server.js');
  if (!existsSync(script)) {
    throw new InvalidOptionsError('turngym/mcp-tools-v1', [
      `server: the demo server ${script} is not built (npx tsc -b environments/mcp-tools), and no other is named`,
    ]);
  }
  return { command: process.execPath, args: [script] };
}
