import type { Readable, Writable } from 'node:stream';
import type { Logger, Registry } from '@turngym/core';
import type { ClientOptionsWidening } from '@turngym/server';
import { InvalidArgumentError } from 'commander';
import { UsageError } from './cli-errors';
import type { CliIo } from './cli-io';
import { writeLine } from './cli-io';
import { loadMcp } from './optional-modules';
import { untilSignal } from './until-signal';

export type McpTransportName = 'stdio' | 'http';

/** `--mcp [transport]`: stdio (what an MCP host starts as a command) or http (Streamable HTTP at /mcp). */
export function parseMcpTransport(text: string): McpTransportName {
  const value = text.trim().toLowerCase();
  if (value === 'stdio' || value === 'http') return value;
  throw new InvalidArgumentError('Expected stdio or http.');
}

export interface McpServeRequest {
  readonly transport: McpTransportName;
  readonly registry: Registry;
  readonly logger: Logger;
  readonly ids: string[];
  readonly port: number;
  readonly host: string;
  readonly maxSessions?: number;
  readonly token?: string;
  readonly idleTimeout?: number;
  readonly clientOptions?: ClientOptionsWidening;
  readonly headersTimeoutMs?: number;
  readonly requestTimeoutMs?: number;
  readonly maxConnections?: number;
  /** Options of the WebSocket server that mean nothing over MCP, by flag name, when given. */
  readonly webSocketOnly: readonly string[];
  /** HTTP limits given with `--mcp stdio`, where there is no HTTP request, by flag name. */
  readonly httpOnly: readonly string[];
}

/**
 * `turngym serve --mcp`: the envs over the Model Context Protocol (@turngym/mcp, loaded only here). Over stdio,
 * stdout is the protocol's channel, so the status line goes to stderr and the command ends when the host closes
 * the pipe; over HTTP it serves until SIGINT/SIGTERM, as the WebSocket server does.
 */
export async function serveOverMcp(request: McpServeRequest, io: CliIo): Promise<void> {
  if (request.webSocketOnly.length > 0)
    throw new UsageError(`${request.webSocketOnly.join(', ')} apply to the WebSocket server, not to --mcp.`);
  if (request.httpOnly.length > 0)
    throw new UsageError(`${request.httpOnly.join(', ')} apply to an HTTP server, not to --mcp stdio.`);
  const { serveMcp, serveMcpStdio } = loadMcp();
  const settings = {
    registry: request.registry,
    logger: request.logger,
    ids: request.ids,
    ...(request.maxSessions ? { maxSessions: request.maxSessions } : {}),
    ...(request.idleTimeout === undefined ? {} : { idleTimeoutMs: request.idleTimeout }),
    ...(request.clientOptions ? { clientOptions: request.clientOptions } : {}),
  };
  const signal = untilSignal();
  if (request.transport === 'stdio') {
    if (request.token) request.logger.warn('a stdio MCP server has no network peer: the token is not used');
    const server = await serveMcpStdio({
      ...settings,
      stdin: io.stdin as unknown as Readable,
      stdout: io.stdout as unknown as Writable,
    });
    writeLine(io.stderr, `serving ${request.ids.join(', ')} over MCP on stdio`);
    const reason = await Promise.race([
      signal,
      server.closed.then(() => 'the session ended (its client closed it or it idled out)'),
    ]);
    request.logger.info(`${reason}: closing the MCP server`);
    await server.close();
    return;
  }
  const server = await serveMcp({
    ...settings,
    port: request.port,
    host: request.host,
    ...(request.token ? { token: request.token } : {}),
    ...(request.headersTimeoutMs === undefined ? {} : { headersTimeoutMs: request.headersTimeoutMs }),
    ...(request.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: request.requestTimeoutMs }),
    ...(request.maxConnections === undefined ? {} : { maxConnections: request.maxConnections }),
  });
  writeLine(io.stdout, `serving ${request.ids.join(', ')} at ${server.url} (MCP over Streamable HTTP)`);
  const received = await signal;
  request.logger.info(`${received}: closing the MCP server`);
  await server.close();
}
