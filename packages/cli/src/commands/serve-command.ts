import type { Command } from 'commander';
import type { CliContext, GlobalOptions } from '../cli-context';
import { writeLine } from '../cli-io';
import { loadServer } from '../optional-modules';
import { parseNonNegativeInteger, parsePort, parsePositiveInteger } from '../parse-arguments';
import { integerFlag, parseClientOptions, resolveServeToken, SERVER_TOKEN_VARIABLE } from '../serve-arguments';
import { parseMcpTransport, serveOverMcp, type McpTransportName } from '../serve-mcp';
import { untilSignal } from '../until-signal';

interface ServeOptions {
  port: number;
  host: string;
  maxSessions?: number;
  maxConnections?: number;
  token?: string;
  tokenFile?: string;
  idleTimeout?: number;
  heartbeat?: number;
  headersTimeoutMs?: number;
  requestTimeoutMs?: number;
  clientOptions?: ReturnType<typeof parseClientOptions>;
  workers?: number;
  mcp?: McpTransportName | true;
}

export function registerServeCommand(program: Command, context: CliContext): void {
  program
    .command('serve')
    .description('serve environments over WebSocket/HTTP (OpenEnv-compatible) until SIGINT/SIGTERM')
    .argument('<ids...>', 'environment ids to serve')
    .option('--port <port>', 'TCP port (0: any free port)', parsePort, 8000)
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option(
      '--max-sessions <n>',
      'most live envs at once (sessions, unclaimed forks, HTTP requests); more get CAPACITY_REACHED (default: 256)',
      integerFlag('maxSessions'),
    )
    .option(
      '--max-connections <n>',
      'most TCP connections at once; more are answered 503 and closed (default: max-sessions + 1024)',
      integerFlag('maxConnections'),
    )
    .option(
      '--token <token>',
      `require this bearer token from clients (visible in the process list: prefer --token-file or ${SERVER_TOKEN_VARIABLE})`,
    )
    .option('--token-file <path>', 'require the bearer token on the first line of this file')
    .option(
      '--idle-timeout <ms>',
      'close a session after this long without a message (0: never)',
      parseNonNegativeInteger,
    )
    .option(
      '--heartbeat <ms>',
      'ping every connection this often; one that stays silent two intervals is cut (0: no pings)',
      integerFlag('heartbeatMs'),
    )
    .option(
      '--headers-timeout-ms <ms>',
      "longest a request's headers may take to arrive; a slower one gets 408 and is cut (default: 60000)",
      integerFlag('headersTimeoutMs'),
    )
    .option(
      '--request-timeout-ms <ms>',
      'longest a whole HTTP request (headers and body) may take to arrive; a slower one gets 408 and is cut (default: 60000)',
      integerFlag('requestTimeoutMs'),
    )
    .option(
      '--client-options <spec>',
      "env options clients may set beyond each env's safe ones: names (source,articles), *, a JSON Schema, or a .json file",
      parseClientOptions,
    )
    .option(
      '--workers <n>',
      'worker processes behind the one port (Node cluster; a session and its forks stay on one worker): one per core for CPU-heavy envs',
      parsePositiveInteger,
    )
    .option(
      '--mcp [transport]',
      'serve over the Model Context Protocol instead: stdio (default; an MCP host starts the command) or http (Streamable HTTP at /mcp)',
      parseMcpTransport,
    )
    .action(async (ids: string[], options: ServeOptions, command: Command) => {
      const { registry, logger } = context.loadEnvironments(command.optsWithGlobals<GlobalOptions>());
      for (const id of ids) registry.get(id); // an unknown id fails in one line before the server loads
      // An env's stray promise that rejects, or its timer that throws, is nobody's to catch: under Node's defaults
      // either would end this process and every session with it, though one env's bug must never crash the
      // server. A rejection is logged; an exception ends only the session whose env threw (see installEnvFaultGuard).
      const { installEnvFaultGuard } = loadServer();
      installEnvFaultGuard(logger);
      const token = resolveServeToken(options);
      if (options.token !== undefined)
        logger.warn(`--token is visible to every local user; prefer --token-file or ${SERVER_TOKEN_VARIABLE}`);
      // Off loopback, the Origin guard is off too (a server meant for other machines): without a token anyone who
      // can reach the port opens sessions, and a coding sandbox runs their code. Allowed (a container behind its own
      // network), but said.
      if (!token && !loadServer().isLoopbackBind(options.host))
        logger.warn(
          `serving on ${options.host} without a token: anyone who can reach this port can open sessions; ` +
            `pass --token-file or set ${SERVER_TOKEN_VARIABLE} unless the network around it is private`,
        );
      if (options.mcp !== undefined) {
        // Settings of the env server only: refused with --mcp rather than silently dropped.
        const transport = options.mcp === true ? 'stdio' : options.mcp;
        const webSocketOnly = [
          ...(options.heartbeat === undefined ? [] : ['--heartbeat']),
          ...(options.workers === undefined ? [] : ['--workers']),
        ];
        // The HTTP limits hold for MCP over HTTP too; over stdio there is no request to time, nor a connection.
        const httpOnly =
          transport === 'stdio'
            ? [
                ...(options.headersTimeoutMs === undefined ? [] : ['--headers-timeout-ms']),
                ...(options.requestTimeoutMs === undefined ? [] : ['--request-timeout-ms']),
                ...(options.maxConnections === undefined ? [] : ['--max-connections']),
              ]
            : [];
        return serveOverMcp(
          { ...options, transport, registry, logger, ids, token, webSocketOnly, httpOnly },
          context.io,
        );
      }
      const { serveEnvs, serveWorkers, serveAsWorker, clusterWorkerIndex } = loadServer();
      const settings = {
        registry,
        logger,
        ids,
        port: options.port,
        host: options.host,
        ...(options.maxSessions ? { maxSessions: options.maxSessions } : {}),
        ...(token ? { token } : {}),
        ...(options.idleTimeout === undefined ? {} : { idleTimeoutMs: options.idleTimeout }),
        ...(options.heartbeat === undefined ? {} : { heartbeatMs: options.heartbeat }),
        ...(options.maxConnections === undefined ? {} : { maxConnections: options.maxConnections }),
        ...(options.headersTimeoutMs === undefined ? {} : { headersTimeoutMs: options.headersTimeoutMs }),
        ...(options.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: options.requestTimeoutMs }),
        ...(options.clientOptions ? { clientOptions: options.clientOptions } : {}),
      };
      const workers = options.workers ?? 1;
      if (workers > 1 && clusterWorkerIndex() !== undefined) {
        // A worker `serveWorkers` started (this same command line): it serves until the primary ends it.
        await serveAsWorker(settings);
        return new Promise<never>(() => undefined);
      }
      const signal = untilSignal();
      const server =
        workers > 1
          ? await serveWorkers({
              workers,
              port: options.port,
              host: options.host,
              logger,
              // The primary holds each connection until it reads the request line: the same cap as each worker.
              ...(options.maxConnections === undefined ? {} : { maxConnections: options.maxConnections }),
              ...primaryHeadTimeout(options),
            })
          : await serveEnvs(settings);
      const wsUrl = server.url.replace(/^http/, 'ws');
      writeLine(context.io.stdout, `serving ${ids.join(', ')} at ${server.url} (WebSocket sessions: ${wsUrl}/ws)`);
      const received = await signal;
      logger.info(`${received}: closing the server`);
      await server.close();
    });
}

/**
 * The cluster's primary reads each connection's request line before a worker gets it: it waits as long as the
 * workers wait for headers, so a flag that shortens their wait shortens the primary's too.
 */
function primaryHeadTimeout(options: ServeOptions): { headTimeoutMs?: number } {
  const limits = [options.headersTimeoutMs, options.requestTimeoutMs].filter((limit) => limit !== undefined);
  return limits.length === 0 ? {} : { headTimeoutMs: Math.min(...limits) };
}
