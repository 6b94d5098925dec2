import type { Command } from 'commander';
import type { CliContext, GlobalOptions } from '../cli-context';
import { writeLine } from '../cli-io';
import { specOf } from '../env-summaries';
import { formatEnvInfo } from '../format-spec';
import { parseJsonObject } from '../parse-arguments';

interface InfoOptions {
  options?: Record<string, unknown>;
  json?: boolean;
}

export function registerInfoCommand(program: Command, context: CliContext): void {
  program
    .command('info')
    .description("show an env's documentation, spaces, tools (with their JSON Schemas) and options")
    .argument('<id>', 'environment id, e.g. turngym/example-v1')
    .option('--options <json>', 'env options (a JSON object); the spec may depend on them', parseJsonObject)
    .option('--json', 'print { spec, optionsSchema, agents } as JSON')
    .action(async (id: string, options: InfoOptions, command: Command) => {
      const { registry } = context.loadEnvironments(command.optsWithGlobals<GlobalOptions>());
      const registration = registry.get(id);
      const spec = await specOf(registry, id, options.options);
      const agents = [...new Set([...Object.keys(registration.agents ?? {}), 'random'])].sort();
      if (options.json) {
        writeLine(
          context.io.stdout,
          JSON.stringify({ spec, optionsSchema: registration.optionsSchema ?? null, agents }, null, 2),
        );
        return;
      }
      writeLine(
        context.io.stdout,
        formatEnvInfo({
          spec,
          agents,
          optionsSchema: registration.optionsSchema,
          packageName: registration.packageName ?? spec.packageName,
          packageVersion: registration.packageVersion ?? spec.packageVersion,
        }),
      );
    });
}
