import type { Readable, Writable } from 'node:stream';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ErrorCode, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { registry as defaultRegistry, type Logger } from '@turngym/core';
import { McpEnvHost } from './mcp-env-host';
import { validateMcpServeSettings, type McpServeOptions } from './mcp-serve-options';

export interface McpStdioOptions extends McpServeOptions {
  /** Where requests come from (default: process.stdin). */
  stdin?: Readable;
  /** Where replies go (default: process.stdout): nothing else may write there. */
  stdout?: Writable;
}

/** A running MCP server on stdio. */
export interface McpStdioHandle {
  /** Resolves once the session is over: the host closed stdin, the idle timeout passed, or close() was called. */
  readonly closed: Promise<void>;
  close(): Promise<void>;
}

/**
 * Serves one env session over stdio, the transport desktop MCP hosts start a server with (one process per
 * host connection, so one session). The session's env is the first id; `reset` switches to another served id
 * when several are given. No token (a pipe has no network peer); no idle timeout unless asked for, since the
 * host owns the process's lifetime.
 */
export async function serveMcpStdio(options: McpStdioOptions): Promise<McpStdioHandle> {
  const { registry = defaultRegistry, logger, clock, onSessionClosed, stdin, stdout, ...rest } = options;
  const settings = validateMcpServeSettings({
    ...Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined)),
    idleTimeoutMs: rest.idleTimeoutMs ?? 0,
  });
  let finish: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => (finish = resolve));
  const host = new McpEnvHost(settings, registry, logger, clock, (session) => {
    onSessionClosed?.(session);
    finish();
  });
  await host.start();
  const session = await host.openSession(host.defaultEnvId);
  const input = stdin ?? process.stdin;
  const output = stdout ?? process.stdout;
  const transport = new StdioServerTransport(input, output);
  await session.connect(transport);
  answerUnreadableLines(session.server, transport, logger);
  // The SDK's transport does not watch for the end of its input: a host that closed the pipe is gone. A pipe
  // that breaks (an error, a destroyed stream) closes without an 'end', so 'close' counts as well.
  const end = (): void => void host.close();
  input.once('end', end);
  input.once('close', end);
  output.once('error', end);
  void closed.then(() => {
    input.off('end', end);
    input.off('close', end);
    output.off('error', end);
  });
  return {
    closed,
    close: async () => {
      await host.close();
      await closed;
    },
  };
}

/**
 * The SDK's stdio transport drops a line it cannot read (not JSON, or JSON that is not a JSON-RPC message) and
 * reports it to `onerror` only, so a host that sent it waits forever for an answer. JSON-RPC 2.0 answers such a
 * line with Parse error (-32700) or Invalid Request (-32600), id null, as the SDK's HTTP transport does.
 */
function answerUnreadableLines(server: Server, transport: StdioServerTransport, logger: Logger | undefined): void {
  server.onerror = (error) => {
    const unreadable =
      error instanceof SyntaxError
        ? { code: ErrorCode.ParseError, message: `Parse error: ${error.message}` }
        : error.name === 'ZodError'
          ? { code: ErrorCode.InvalidRequest, message: 'Invalid Request: not a JSON-RPC 2.0 message' }
          : undefined;
    if (!unreadable) {
      logger?.warn(`MCP stdio: ${error.message}`);
      return;
    }
    const reply = { jsonrpc: '2.0', id: null, error: unreadable } as unknown as JSONRPCMessage;
    transport.send(reply).catch(() => undefined);
  };
}
