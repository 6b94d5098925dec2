import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError, ResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { EnvFaultError } from '@turngym/core';
import type { McpServerCommand } from './mcp-tools-options';
import { nodeHttpFetch, type ClosableFetch } from './node-http-fetch';
import { descendantsOf, stopProcesses } from './process-tree';
import { redactedCommand, withoutSecrets } from './redacted-command';
import { redactedUrl, urlSecrets } from './redacted-url';

/** Where the MCP server is: a command to start (stdio) or a URL (Streamable HTTP). */
export type McpServerTarget = { server: McpServerCommand } | { url: string; headers?: Record<string, string> };

/** A tool as the server lists it. */
export interface ServerTool {
  readonly name: string;
  readonly description?: string;
  readonly inputSchema: Record<string, unknown>;
}

/** What one tool call gave back: text for the agent, a value for checks, and whether the tool reported failure. */
export interface ToolOutcome {
  readonly text: string;
  readonly value: unknown;
  readonly isError: boolean;
}

interface ContentItem {
  type: string;
  text?: string;
  mimeType?: string;
  uri?: string;
  resource?: { uri?: string; text?: string };
}

/**
 * The transport's close made idempotent, a second call awaiting the first. The SDK closes the transport itself
 * when the handshake fails and does not wait for it (`void this.close()`), and a second close of a stdio
 * transport returns at once: a server that hung the handshake outlived the failed `make()` by up to 4 s (2 s for
 * its stdin's end, 2 s after SIGTERM), and kept the process that made the env from exiting meanwhile.
 */
function closingOnce(transport: Transport, onClosing: () => void): Transport {
  const close = transport.close.bind(transport);
  let closing: Promise<void> | undefined;
  transport.close = () => {
    onClosing();
    return (closing ??= close());
  };
  return transport;
}

/** How a server process ended, for a fault message: its exit code, or the signal that killed it. */
function exitOf(code: number | null, signal: NodeJS.Signals | null): string {
  if (signal === 'SIGKILL') return 'was killed by signal SIGKILL: a kill -9, or the out-of-memory killer';
  if (signal !== null) return `was killed by signal ${signal}`;
  return `exited with code ${code ?? 'unknown'}`;
}

/** Pages of a tool list the env follows: far more than any server lists, few enough to end a cursor loop. */
const MAX_TOOL_PAGES = 1000;

/**
 * A tool of a `tools/list` page as the env takes it. Read here rather than by the SDK's `listTools`, which refused
 * the whole list for one tool off the spec (an `inputSchema` without `"type": "object"`, an odd annotation) with a
 * retryable fault quoting a zod dump, and which made the connection that listed the tools (the first episode's) hold
 * results to each tool's `outputSchema` while every later connection did not: the same seed gave a tool error in the
 * first episode and the result in the next. A tool without a name cannot be called and is left out; a schema that is
 * not an object becomes an object schema (the server judges the arguments).
 */
function listedTool(raw: unknown): ServerTool | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const { name, description, inputSchema } = raw as Record<string, unknown>;
  if (typeof name !== 'string' || name === '') return undefined;
  return {
    name,
    ...(typeof description === 'string' ? { description } : {}),
    inputSchema:
      typeof inputSchema === 'object' && inputSchema !== null && !Array.isArray(inputSchema)
        ? (inputSchema as Record<string, unknown>)
        : { type: 'object' },
  };
}

/** How much of a dead server's stderr a fault message quotes. */
const STDERR_TAIL = 2000;

/** The result's content as text: text items as they are, other items as a short marker. */
function contentText(content: readonly ContentItem[]): string {
  return content
    .map((item) => {
      switch (item.type) {
        case 'text':
          return item.text ?? '';
        case 'resource':
          return item.resource?.text ?? `[resource ${item.resource?.uri ?? ''}]`;
        case 'resource_link':
          return `[link ${item.uri ?? ''}]`;
        default:
          return `[${item.type}${item.mimeType ? ` ${item.mimeType}` : ''}]`;
      }
    })
    .join('\n');
}

function parsedOrText(text: string): unknown {
  const trimmed = text.trim();
  if (!(trimmed.startsWith('{') || trimmed.startsWith('['))) return text;
  try {
    return JSON.parse(trimmed) as unknown;
  } catch {
    return text;
  }
}

/**
 * One connection to an MCP server through the official SDK client. The line it draws: a server that answers,
 * even with a failure (`isError`, an invalid-params error), has given the agent an ordinary observation; a
 * server that died, hung past the timeout or could not be reached has broken the episode, which is an
 * `EnvFaultError` (retryable), never a score.
 */
export class McpToolClient {
  private broken: string | undefined;
  private stderrTail = '';
  /**
   * The first thing the transport reported while the current call ran (a reply over the SDK's 10 MiB line limit,
   * a line that is not JSON): the SDK then closes the connection and rejects the call with a bare "Connection
   * closed". The first, since what follows it (the rest of the cut reply read as lines) is its echo.
   */
  private transportError: string | undefined;
  /** How the server process ended, when it ended by itself (not closed by this client). */
  private exit: string | undefined;
  /** Whether this client (or the SDK for it) began closing the transport: an exit after that is no fault. */
  private closeRequested = false;
  /** Values of the command line a fault message must not quote (a server may echo them on stderr). */
  private secrets: readonly string[] = [];
  /** The `{tmp}` directory of this server process, removed when it stops. */
  private scratch: string | undefined;
  private transport: Transport | undefined;
  /** The WWW-Authenticate header of the server's last 401 or 403 reply. */
  private challenge: string | undefined;
  /** The HTTP connections of a URL server, closed with the client. */
  private fetch: ClosableFetch | undefined;

  private constructor(
    private readonly client: Client,
    private readonly label: string,
    private readonly callTimeoutMs: number,
    private readonly startTimeoutMs: number,
  ) {}

  static async connect(
    target: McpServerTarget,
    timeouts: { startTimeoutMs: number; callTimeoutMs: number },
  ): Promise<McpToolClient> {
    // Credentials passed as arguments (`--api-key x`, `TOKEN=x`) stay out of fault messages, as a URL's do.
    const command =
      'server' in target ? redactedCommand(target.server.command, target.server.args, target.server.env) : undefined;
    const label = command
      ? `MCP server "${command.text}"`
      : `MCP server ${redactedUrl((target as { url: string }).url)}`;
    const client = new Client({ name: 'turngym-mcp-tools', version: '1.0.0' });
    const wrapper = new McpToolClient(client, label, timeouts.callTimeoutMs, timeouts.startTimeoutMs);
    wrapper.secrets = 'server' in target ? (command?.secrets ?? []) : urlSecrets(target.url, target.headers ?? {});
    let transport: Transport;
    if ('server' in target) {
      const { args, env } = wrapper.withScratch(target.server.args, target.server.env);
      const stdio = new StdioClientTransport({
        command: target.server.command,
        args,
        // The SDK adds these to its safe default set (PATH, HOME …), not to the host's whole environment.
        ...(env ? { env } : {}),
        ...(target.server.cwd ? { cwd: target.server.cwd } : {}),
        stderr: 'pipe',
      });
      // Keep the end of what the server says on stderr: it is what a crash report needs. (Read, so it never blocks.)
      stdio.stderr?.on('data', (chunk: Buffer) => {
        wrapper.stderrTail = (wrapper.stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL);
      });
      // The SDK reports a dead server only as "Connection closed"; its process says how it ended (a crash's exit
      // code, the signal of a kill -9 or of the OOM killer). The process is the transport's own, set once started.
      const start = stdio.start.bind(stdio);
      let child: ChildProcess | undefined;
      stdio.start = async () => {
        await start();
        child = (stdio as unknown as { _process?: ChildProcess })._process;
        child?.once('exit', (code, signal) => {
          if (!wrapper.closeRequested) wrapper.exit = exitOf(code, signal);
        });
      };
      // The SDK stops the process it started, not what that process started: a server behind a wrapper (`sh -c`,
      // `npx`, `uv run`) that outlives its stdin's end ran on after close, one orphan per episode. Its processes are
      // noted before the wrapper goes (an orphan's parent is no longer it), and stopped after.
      const closeStdio = stdio.close.bind(stdio);
      stdio.close = async () => {
        const family = child?.pid === undefined ? [] : descendantsOf(child.pid);
        await closeStdio();
        await stopProcesses(family);
      };
      transport = stdio;
    } else {
      const fetch = nodeHttpFetch();
      wrapper.fetch = fetch;
      transport = new StreamableHTTPClientTransport(new URL(target.url), {
        requestInit: { headers: target.headers ?? {} },
        // A refusal's WWW-Authenticate says what the server wants (the SDK's error quotes only the body).
        fetch: async (url, init) => {
          const response = await fetch(url, init);
          if (response.status === 401 || response.status === 403)
            wrapper.challenge = response.headers.get('www-authenticate')?.slice(0, 300) ?? undefined;
          return response;
        },
      });
    }
    wrapper.transport = closingOnce(transport, () => {
      wrapper.closeRequested = true;
    });
    client.onclose = () => {
      // A process ends ('exit') before its pipes close, so how it ended is known here.
      wrapper.broken ??= wrapper.exit ? `the server process ${wrapper.exit}` : 'the connection closed';
    };
    client.onerror = (error) => {
      wrapper.transportError ??= error.message.slice(0, 300);
    };
    try {
      await client.connect(transport, { timeout: timeouts.startTimeoutMs });
    } catch (error) {
      await wrapper.close();
      const spawnError = error as NodeJS.ErrnoException;
      if (spawnError.syscall?.startsWith('spawn') && (spawnError.code === 'ENOENT' || spawnError.code === 'EACCES')) {
        // No retry can start a program that is not there: a retryable fault only made runs try again and again.
        const why = spawnError.code === 'ENOENT' ? 'is not found' : 'may not be run (EACCES)';
        throw new EnvFaultError(
          `${label} could not be started: the command ${'server' in target ? target.server.command : ''} ${why}`,
          {
            cause: error,
            isRetryable: false,
          },
        );
      }
      throw wrapper.fault('could not be started or reached', error, timeouts.startTimeoutMs);
    }
    return wrapper;
  }

  /** Every tool the server lists (following pagination), each page within `startTimeoutMs`, as the README says. */
  async listTools(): Promise<ServerTool[]> {
    const tools: ServerTool[] = [];
    let cursor: string | undefined;
    // A server that hands back a cursor it gave before (or pages without end) held make() in a loop for ever,
    // its tool list growing until memory ran out.
    const seen = new Set<string>();
    do {
      if (cursor !== undefined) {
        if (seen.has(cursor) || seen.size >= MAX_TOOL_PAGES)
          throw new EnvFaultError(
            `${this.label} lists its tools without end (${seen.has(cursor) ? `the cursor ${JSON.stringify(cursor.slice(0, 100))} came back` : `more than ${MAX_TOOL_PAGES} pages`})`,
            { isRetryable: false },
          );
        seen.add(cursor);
      }
      let page: Record<string, unknown>;
      try {
        page = await this.client.request(
          { method: 'tools/list', params: cursor === undefined ? {} : { cursor } },
          ResultSchema,
          { timeout: this.startTimeoutMs },
        );
      } catch (error) {
        throw this.fault('failed to list its tools', error, this.startTimeoutMs);
      }
      if (!Array.isArray(page.tools))
        throw new EnvFaultError(
          withoutSecrets(
            `${this.label} failed to list its tools: its tools/list reply holds no "tools" array`,
            this.secrets,
          ),
          { isRetryable: false },
        );
      for (const raw of page.tools) {
        const tool = listedTool(raw);
        if (tool) tools.push(tool);
      }
      cursor = typeof page.nextCursor === 'string' ? page.nextCursor : undefined;
    } while (cursor !== undefined);
    return tools;
  }

  /** Calls a tool; a dead or hung server is an EnvFaultError, a failing tool an ordinary outcome. */
  async call(tool: string, args: Record<string, unknown>): Promise<ToolOutcome> {
    if (this.broken) throw this.fault(`is unusable (${this.broken})`);
    let result: Awaited<ReturnType<Client['callTool']>>;
    this.transportError = undefined;
    try {
      result = await this.client.callTool({ name: tool, arguments: args }, undefined, { timeout: this.callTimeoutMs });
    } catch (error) {
      if (
        error instanceof McpError &&
        error.code !== ErrorCode.RequestTimeout &&
        error.code !== ErrorCode.ConnectionClosed
      ) {
        // The server answered with a JSON-RPC error (unknown tool, invalid params): feedback for the agent.
        return { text: `Error from ${tool}: ${error.message}`, value: null, isError: true };
      }
      this.broken =
        error instanceof McpError && error.code === ErrorCode.RequestTimeout ? 'a call timed out' : 'a call failed';
      throw this.fault(`failed during ${tool}`, error);
    }
    const content = (Array.isArray(result.content) ? result.content : []) as ContentItem[];
    const text = contentText(content);
    const structured = result.structuredContent as unknown;
    return {
      text: text === '' && structured !== undefined ? JSON.stringify(structured) : text,
      value: structured ?? parsedOrText(text),
      isError: result.isError === true,
    };
  }

  /** True once the server died, hung or the connection closed: the env starts (or reaches) it again. */
  get isBroken(): boolean {
    return this.broken !== undefined;
  }

  async close(): Promise<void> {
    this.broken ??= 'closed';
    await this.client.close().catch(() => undefined);
    await this.transport?.close().catch(() => undefined);
    this.fetch?.close();
    if (this.scratch) rmSync(this.scratch, { recursive: true, force: true });
    this.scratch = undefined;
  }

  /**
   * `{tmp}` in an argument or an environment value becomes a directory made for this process alone (and removed
   * with it): a server that keeps state on disk (a memory file, a filesystem root) then starts empty, as a fresh
   * process does in memory.
   */
  private withScratch(
    args: readonly string[],
    env: Readonly<Record<string, string>> | undefined,
  ): { args: string[]; env: Record<string, string> | undefined } {
    const uses = [...args, ...Object.values(env ?? {})].some((value) => value.includes('{tmp}'));
    if (!uses) return { args: [...args], env: env ? { ...env } : undefined };
    this.scratch = mkdtempSync(join(tmpdir(), 'turngym-mcp-'));
    const fill = (value: string): string => value.split('{tmp}').join(this.scratch as string);
    return {
      args: args.map(fill),
      env: env ? Object.fromEntries(Object.entries(env).map(([key, value]) => [key, fill(value)])) : undefined,
    };
  }

  /** `timeoutMs`: the limit that applied, so a timeout names it (starting quoted callTimeoutMs, not startTimeoutMs). */
  private fault(what: string, cause?: unknown, timeoutMs = this.callTimeoutMs): EnvFaultError {
    const closed = cause instanceof McpError && cause.code === ErrorCode.ConnectionClosed;
    const reason =
      cause instanceof McpError && cause.code === ErrorCode.RequestTimeout
        ? `no answer within ${timeoutMs} ms`
        : closed && this.exit !== undefined
          ? // Not "Connection closed": the server process ended by itself, and how says whose fault it is.
            `the server process ${this.exit}`
          : cause === undefined
            ? ''
            : ((cause as Error)?.message ?? String(cause));
    const transport =
      this.transportError === undefined || reason.includes(this.transportError)
        ? ''
        : ` (the transport reported: ${this.transportError})`;
    const stderr = this.stderrTail.trim() === '' ? '' : `; its stderr ends: ${this.stderrTail.trim().slice(-500)}`;
    // Refused credentials (HTTP 401, 403) come back the same on every retry with the same headers: say so, and what
    // the server asked for, rather than a retryable "Error POSTing to endpoint: unauthorized".
    const refused = cause instanceof StreamableHTTPError && (cause.code === 401 || cause.code === 403);
    const auth = refused
      ? ` (HTTP ${cause.code}${this.challenge ? `, WWW-Authenticate: ${this.challenge}` : ''}; the headers option must carry credentials the server accepts)`
      : '';
    const message = `${this.label} ${what}${reason ? `: ${reason}` : ''}${auth}${transport}${stderr}`;
    return new EnvFaultError(withoutSecrets(message, this.secrets), {
      cause,
      ...(refused ? { isRetryable: false } : {}),
    });
  }
}
