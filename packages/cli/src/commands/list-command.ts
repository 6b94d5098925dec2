import type { Command } from 'commander';
import type { CliContext, GlobalOptions } from '../cli-context';
import { writeLine } from '../cli-io';
import { specOf } from '../env-summaries';
import { formatTable } from '../format-table';

interface ListOptions {
  json?: boolean;
}

export function registerListCommand(program: Command, context: CliContext): void {
  program
    .command('list')
    .description('list the registered environment ids with their one-line summary')
    .option('--json', 'print [{ id, summary, packageName, packageVersion }] as JSON')
    .action(async (options: ListOptions, command: Command) => {
      const { registry } = context.loadEnvironments(command.optsWithGlobals<GlobalOptions>());
      const rows: { id: string; summary: string; packageName: string | null; packageVersion: string | null }[] = [];
      for (const id of registry.list()) {
        const registration = registry.get(id);
        let summary: string;
        try {
          summary = (await specOf(registry, id)).summary;
        } catch (error) {
          // One env that cannot be built with its defaults must not hide the others.
          summary = `(cannot be built with default options: ${(error as Error).message})`;
        }
        rows.push({
          id,
          summary,
          packageName: registration.packageName ?? null,
          packageVersion: registration.packageVersion ?? null,
        });
      }
      if (options.json) {
        writeLine(context.io.stdout, JSON.stringify(rows, null, 2));
        return;
      }
      if (rows.length === 0) {
        writeLine(
          context.io.stdout,
          'No environments registered. Install one (npm i @turngym/env-<name>) or pass --plugin <dir>.',
        );
        return;
      }
      writeLine(
        context.io.stdout,
        formatTable(
          ['ID', 'SUMMARY'],
          rows.map((row) => [row.id, row.summary]),
        ),
      );
    });
}
