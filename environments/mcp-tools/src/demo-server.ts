#!/usr/bin/env node
import { createInterface } from 'node:readline';

/**
 * The MCP server `turngym/mcp-tools-v1` starts when no other is named: a calculator, a small notebook and an
 * atlas, over stdio. Deterministic and offline, so the env checker and the default task file run anywhere; its
 * state (the notebook) lives in the process, so a fresh process is a fresh episode.
 *
 * It speaks MCP's stdio transport itself (newline-delimited JSON-RPC: initialize, ping, tools/list, tools/call)
 * instead of loading the SDK's server, because the env starts one process per episode and the SDK's module
 * graph triples a process's start-up time (measured: ~0.45 s of CPU against ~0.13 s). The env's client is the
 * SDK's, which validates every reply this server sends against the protocol's schemas.
 */

const PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];

const CAPITALS: Readonly<Record<string, string>> = {
  france: 'Paris',
  japan: 'Tokyo',
  kenya: 'Nairobi',
  peru: 'Lima',
  canada: 'Ottawa',
  norway: 'Oslo',
};

const number = { type: 'number' } as const;
const readOnly = { readOnlyHint: true, openWorldHint: false } as const;
const TOOLS = [
  {
    name: 'add',
    description: 'Add two numbers.',
    inputSchema: {
      type: 'object',
      additionalProperties: false,
      required: ['a', 'b'],
      properties: { a: number, b: number },
    },
    annotations: readOnly,
  },
  {
    name: 'multiply',
    description: 'Multiply two numbers.',
    inputSchema: {
      type: 'object',
      additionalProperties: false,
      required: ['a', 'b'],
      properties: { a: number, b: number },
    },
    annotations: readOnly,
  },
  {
    name: 'note_set',
    description: 'Write a value into the notebook under a key (replacing what was there).',
    inputSchema: {
      type: 'object',
      additionalProperties: false,
      required: ['key', 'value'],
      properties: { key: { type: 'string', minLength: 1 }, value: { type: 'string' } },
    },
  },
  {
    name: 'note_get',
    description: 'Read the value stored in the notebook under a key.',
    inputSchema: {
      type: 'object',
      additionalProperties: false,
      required: ['key'],
      properties: { key: { type: 'string', minLength: 1 } },
    },
    annotations: readOnly,
  },
  {
    name: 'capital_of',
    description: 'The capital city of a country (a small atlas).',
    inputSchema: {
      type: 'object',
      additionalProperties: false,
      required: ['country'],
      properties: { country: { type: 'string', minLength: 1 } },
    },
    annotations: readOnly,
  },
];

type ToolReply = { content: Array<{ type: 'text'; text: string }>; isError?: boolean; structuredContent?: object };

function text(value: string, isError = false): ToolReply {
  return { content: [{ type: 'text', text: value }], ...(isError ? { isError: true } : {}) };
}

const notebook = new Map<string, string>();

function callTool(name: string, args: Record<string, unknown>): ToolReply | undefined {
  switch (name) {
    case 'add':
    case 'multiply': {
      const { a, b } = args;
      if (typeof a !== 'number' || typeof b !== 'number') return text('a and b must be numbers', true);
      const result = name === 'add' ? a + b : a * b;
      return { ...text(String(result)), structuredContent: { result } };
    }
    case 'note_set':
      if (typeof args.key !== 'string' || typeof args.value !== 'string')
        return text('key and value must be strings', true);
      notebook.set(args.key, args.value);
      return text(`stored ${args.key}`);
    case 'note_get': {
      const value = typeof args.key === 'string' ? notebook.get(args.key) : undefined;
      return value === undefined ? text(`no note under ${String(args.key)}`, true) : text(value);
    }
    case 'capital_of': {
      const capital = CAPITALS[String(args.country).trim().toLowerCase()];
      return capital === undefined ? text(`not in the atlas: ${String(args.country)}`, true) : text(capital);
    }
    default:
      return undefined;
  }
}

interface Request {
  jsonrpc: '2.0';
  id?: string | number;
  method?: string;
  params?: Record<string, unknown>;
}

function reply(id: string | number, body: { result: unknown } | { error: { code: number; message: string } }): void {
  process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id, ...body })}\n`);
}

function handle(request: Request): void {
  if (request.id === undefined || typeof request.method !== 'string') return; // a notification or a response
  const params = request.params ?? {};
  switch (request.method) {
    case 'initialize': {
      const asked = String(params.protocolVersion ?? '');
      return reply(request.id, {
        result: {
          protocolVersion: PROTOCOL_VERSIONS.includes(asked) ? asked : PROTOCOL_VERSIONS[0],
          capabilities: { tools: {} },
          serverInfo: { name: 'turngym-demo', version: '1.0.0' },
        },
      });
    }
    case 'ping':
      return reply(request.id, { result: {} });
    case 'tools/list':
      return reply(request.id, { result: { tools: TOOLS } });
    case 'tools/call': {
      const name = String(params.name ?? '');
      const args = (
        typeof params.arguments === 'object' && params.arguments !== null ? params.arguments : {}
      ) as Record<string, unknown>;
      const result = callTool(name, args);
      if (!result) return reply(request.id, { error: { code: -32602, message: `Unknown tool: ${name}` } });
      return reply(request.id, { result });
    }
    default:
      return reply(request.id, { error: { code: -32601, message: `Method not found: ${request.method}` } });
  }
}

createInterface({ input: process.stdin }).on('line', (line) => {
  if (line.trim() === '') return;
  let message: Request;
  try {
    message = JSON.parse(line) as Request;
  } catch {
    process.stdout.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } })}\n`,
    );
    return;
  }
  handle(message);
});
