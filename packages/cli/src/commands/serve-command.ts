import type { Command } from 'commander';
import type { CliContext, GlobalOptions } from '../cli-context';
import { writeLine } from '../cli-io';
import { loadServer } from '../optional-modules';
import { parsePort, parsePositiveInteger } from '../parse-arguments';
import { untilSignal } from '../until-signal';

interface ServeOptions {
  port: number;
  host: string;
  maxSessions?: number;
  token?: string;
}

export function registerServeCommand(program: Command, context: CliContext): void {
  program
    .command('serve')
    .description('serve environments over WebSocket/HTTP (OpenEnv-compatible) until SIGINT/SIGTERM')
    .argument('<ids...>', 'environment ids to serve')
    .option('--port <port>', 'TCP port (0: any free port)', parsePort, 8000)
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('--max-sessions <n>', 'most concurrent sessions (connections)', parsePositiveInteger)
    .option('--token <token>', 'require this bearer token from clients')
    .action(async (ids: string[], options: ServeOptions, command: Command) => {
      const { registry, logger } = context.loadEnvironments(command.optsWithGlobals<GlobalOptions>());
      for (const id of ids) registry.get(id); // an unknown id fails in one line before the server loads
      const { serveEnvs } = loadServer();
      const signal = untilSignal();
      const server = await serveEnvs({
        registry,
        logger,
        ids,
        port: options.port,
        host: options.host,
        ...(options.maxSessions ? { maxSessions: options.maxSessions } : {}),
        ...(options.token ? { token: options.token } : {}),
      });
      const wsUrl = server.url.replace(/^http/, 'ws');
      writeLine(context.io.stdout, `serving ${ids.join(', ')} at ${server.url} (WebSocket sessions: ${wsUrl}/ws)`);
      const received = await signal;
      logger.info(`${received}: closing the server`);
      await server.close();
    });
}
