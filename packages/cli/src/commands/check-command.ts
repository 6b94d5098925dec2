import { checkEnv, formatCheckReport, type CheckReport } from '@turngym/core';
import type { Command } from 'commander';
import type { CliContext, GlobalOptions } from '../cli-context';
import { EXIT_FAILURE, UsageError } from '../cli-errors';
import { writeLine } from '../cli-io';
import { loadServer } from '../optional-modules';
import { parseInteger, parseJsonObject } from '../parse-arguments';

interface CheckCommandOptions {
  options?: Record<string, unknown>;
  seed?: number;
  remote?: string;
  token?: string;
  all?: boolean;
  agent?: string;
}

export function registerCheckCommand(program: Command, context: CliContext): void {
  program
    .command('check')
    .description(
      'run the env checker (spaces, determinism, fork, malformed actions, order errors); exit 1 if a check fails',
    )
    .argument('[id]', 'environment id (or --all)')
    .option('--options <json>', 'env options (a JSON object)', parseJsonObject)
    .option('--seed <n>', 'first seed the checker uses', parseInteger)
    .option('--remote <url>', 'check the env served at this ws:// URL (turngym serve) instead of a local one')
    .option('--token <token>', 'bearer token for --remote')
    .option('--all', 'check every registered id')
    .option(
      '--agent <name>',
      "the agent whose actions the checker replays: one the env registers, or random (default: the env's scripted)",
    )
    .action(async (id: string | undefined, options: CheckCommandOptions, command: Command) => {
      const global = command.optsWithGlobals<GlobalOptions>();
      if (options.all && id) throw new UsageError('Give an id or --all, not both.');
      if (!options.all && !id) throw new UsageError('Missing environment id: turngym check <id> (or --all).');
      if (options.remote && options.all) throw new UsageError('--remote checks one env: give its id instead of --all.');
      // A token meant for a server, given without --remote, was silently dropped and the local env checked instead.
      if (options.token !== undefined && !options.remote)
        throw new UsageError('--token is the bearer token for --remote: give --remote <ws://host:port> with it.');
      const seed = options.seed === undefined ? {} : { seed: options.seed };
      // A remote env's checker always plays a seeded random agent: the server's agents do not travel.
      if (options.remote && options.agent !== undefined && options.agent !== 'random')
        throw new UsageError('--remote checks with a random agent: --agent random, or leave --agent out.');
      const agent = options.agent === undefined ? {} : { agent: options.agent };
      const reports: CheckReport[] = [];
      if (options.remote) {
        const url = options.remote;
        if (!/^(wss?|https?):\/\/./.test(url))
          throw new UsageError(`--remote must be a ws:// (or http://) URL of a turngym server, got "${url}".`);
        const { RemoteEnv } = loadServer();
        // Every env the checker needs is a new session; the server builds it with these options.
        const connect = {
          envId: id as string,
          ...(options.token ? { token: options.token } : {}),
          ...(options.options ? { envOptions: options.options } : {}),
        };
        reports.push(await checkEnv(() => RemoteEnv.connect(url, connect), seed));
      } else {
        const { registry } = context.loadEnvironments(global);
        const ids = options.all ? registry.list() : [id as string];
        if (ids.length === 0) throw new UsageError('No environments registered: nothing to check.');
        for (const envId of ids) {
          // Unknown id, bad options or an agent the env lacks: a usage error before any check runs.
          registry.resolveOptions(envId, options.options);
          const agents = Object.keys(registry.get(envId).agents ?? {});
          if (options.agent !== undefined && options.agent !== 'random' && !agents.includes(options.agent))
            throw new UsageError(
              `${envId} has no agent "${options.agent}": --agent takes ${[...agents, 'random'].filter((name, index, all) => all.indexOf(name) === index).join(', ')}.`,
            );
          reports.push(
            await checkEnv(envId, {
              registry,
              ...(options.options ? { options: options.options } : {}),
              ...seed,
              ...agent,
            }),
          );
        }
      }
      writeLine(context.io.stdout, reports.map(formatCheckReport).join('\n\n'));
      if (reports.length > 1) {
        const failed = reports.filter((report) => !report.passed).map((report) => report.envId);
        writeLine(
          context.io.stdout,
          failed.length === 0
            ? `\nall ${reports.length} environments passed`
            : `\n${failed.length} of ${reports.length} environments failed: ${failed.join(', ')}`,
        );
      }
      if (reports.some((report) => !report.passed)) context.exitCode = EXIT_FAILURE;
    });
}
