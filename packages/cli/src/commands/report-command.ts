import { InvalidArgumentError, Option, type Command } from 'commander';
import type { CliContext } from '../cli-context';
import { writeLine } from '../cli-io';
import { loadReport } from '../optional-modules';
import { collect, parsePositiveInteger } from '../parse-arguments';
import { shownPath } from './bench-command';
import { checkOutputFile, checkWritable } from '../output-paths';

interface ReportCommandOptions {
  out: string;
  metric: string[];
  x?: 'global_step' | 'iteration' | 'budget/generated_tokens';
  title?: string;
  iterations?: number;
  groups?: number;
}

function parseCount(text: string): number {
  const value = Number(text.trim());
  if (text.trim() === '' || !Number.isSafeInteger(value) || value < 0) {
    throw new InvalidArgumentError('Expected an integer ≥ 0.');
  }
  return value;
}

/** `turngym report <runs...>`: training runs → one self-contained HTML page (@turngym/report, loaded on use). */
export function registerReportCommand(program: Command, context: CliContext): void {
  program
    .command('report')
    .description('an HTML page with learning curves, a summary table and a rollout-tree viewer for training runs')
    .argument('<runs...>', 'run directories (run.json, metrics.jsonl, trajectories.jsonl), or directories of runs')
    .option('--out <file>', 'where the page goes', 'report.html')
    .option('--metric <name>', 'a metric to chart (repeatable; default: every metric the runs logged)', collect, [])
    .addOption(
      new Option('--x <axis>', 'the x axis of every curve (default: global_step)').choices([
        'global_step',
        'iteration',
        'budget/generated_tokens',
      ]),
    )
    .option('--title <text>', 'the page title')
    .option(
      '--iterations <n>',
      'iterations per run kept for the rollout viewer, spread over those with rollouts (0: none)',
      parseCount,
    )
    .option('--groups <n>', 'prompt groups per iteration kept for the rollout viewer', parsePositiveInteger)
    .action(async (runs: string[], options: ReportCommandOptions) => {
      checkOutputFile('--out', options.out);
      checkWritable('--out', options.out);
      const written = await loadReport().writeReport(options.out, {
        runs,
        ...(options.title !== undefined ? { title: options.title } : {}),
        ...(options.metric.length > 0 ? { metrics: options.metric } : {}),
        ...(options.x !== undefined ? { xAxis: options.x } : {}),
        ...(options.iterations !== undefined ? { rolloutIterations: options.iterations } : {}),
        ...(options.groups !== undefined ? { rolloutGroups: options.groups } : {}),
      });
      const plural = (count: number, noun: string): string => `${count} ${noun}${count === 1 ? '' : 's'}`;
      writeLine(
        context.io.stdout,
        `written: ${shownPath(written.file)} (${plural(written.runs, 'run')} in ${plural(written.groups, 'group')}, ` +
          `${plural(written.metrics, 'chart')}, rollouts of ${plural(written.rolloutRuns, 'run')}; ${Math.ceil(written.bytes / 1024)} KiB)`,
      );
    });
}
