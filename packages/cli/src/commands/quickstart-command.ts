import { summarize, type RunSummary } from '@turngym/core';
import type { Command } from 'commander';
import { resolveAgentSource } from '../agent-source';
import type { CliContext, GlobalOptions } from '../cli-context';
import { EXIT_FAILURE } from '../cli-errors';
import { writeLine } from '../cli-io';
import { formatTable } from '../format-table';
import { parseInteger, parsePositiveInteger } from '../parse-arguments';
import { createProgress } from '../progress';
import { runAgentEpisodes } from '../run-agent-episodes';

interface QuickstartOptions {
  episodes: number;
  seed: number;
  json?: boolean;
}

interface QuickstartRow {
  envId: string;
  agent: string;
  summary?: RunSummary;
  error?: string;
}

/** The baselines every env is measured with; `scripted` only where the env registers one. */
const BASELINES = ['random', 'scripted'] as const;

export function registerQuickstartCommand(program: Command, context: CliContext): void {
  program
    .command('quickstart')
    .description('run the random and scripted baselines on every registered env and print a table')
    .option('--episodes <n>', 'episodes per env and agent', parsePositiveInteger, 5)
    .option('--seed <n>', 'first seed', parseInteger, 0)
    .option('--json', 'print the rows as JSON')
    .action(async (options: QuickstartOptions, command: Command) => {
      const { registry } = context.loadEnvironments(command.optsWithGlobals<GlobalOptions>());
      const plan = registry.list().flatMap((envId) =>
        BASELINES.filter((agent) => agent === 'random' || registry.get(envId).agents?.[agent]).map((agent) => ({
          envId,
          agent,
        })),
      );
      if (plan.length === 0) {
        writeLine(
          context.io.stdout,
          'No environments registered. Install one (npm i @turngym/env-<name>) or pass --plugin <dir>.',
        );
        return;
      }
      const progress = createProgress(context.io, plan.length * options.episodes, 'quickstart');
      const rows: QuickstartRow[] = [];
      try {
        for (const { envId, agent } of plan) {
          try {
            const started = performance.now();
            const outcomes = await runAgentEpisodes({
              registry,
              envId,
              agent: resolveAgentSource(registry, envId, agent),
              episodes: options.episodes,
              seed: options.seed,
              onEpisode: () => progress.increment(),
            });
            rows.push({ envId, agent, summary: summarize(outcomes, performance.now() - started) });
          } catch (error) {
            // One broken env is a row in the table, not the end of the quickstart.
            rows.push({ envId, agent, error: (error as Error).message });
          }
        }
      } finally {
        progress.stop();
      }
      if (rows.some((row) => row.error)) context.exitCode = EXIT_FAILURE;
      if (options.json) {
        writeLine(context.io.stdout, JSON.stringify(rows, null, 2));
        return;
      }
      const table = rows.map((row) =>
        row.summary
          ? [
              row.envId,
              row.agent,
              String(row.summary.episodes),
              row.summary.successRate.toFixed(2),
              row.summary.meanReward.toFixed(3),
              row.summary.meanTurns.toFixed(1),
            ]
          : [row.envId, row.agent, '-', 'error', row.error ?? '', ''],
      );
      writeLine(
        context.io.stdout,
        formatTable(['ENV', 'AGENT', 'EPISODES', 'SUCCESS', 'MEAN REWARD', 'MEAN TURNS'], table),
      );
      writeLine(
        context.io.stdout,
        `\nseeds ${options.seed}–${options.seed + options.episodes - 1}; \`turngym run <id> --agent <agent> --episodes 100\` for tighter intervals.`,
      );
    });
}
