import { DEFAULT_OUT_DIR, listSuites, readLeaderboardEntries } from '@turngym/leaderboard';
import type { Command } from 'commander';
import type { CliContext } from '../cli-context';
import { UsageError } from '../cli-errors';
import { writeLine } from '../cli-io';
import { asCliError, defaultLeaderboardInputs, shownPath, writeLeaderboardFromCli } from './bench-command';
import { checkOutputDirectory, checkWritable } from '../output-paths';

interface LeaderboardOptions {
  out: string;
  title?: string;
  check?: boolean;
  json?: boolean;
  viewer: boolean;
}

export function registerLeaderboardCommand(program: Command, context: CliContext): void {
  program
    .command('leaderboard')
    .description('turn result and submission files into a markdown table, a static HTML page and a rollout viewer')
    .argument(
      '[inputs...]',
      'result or submission files, or directories of them (default: <out>/results and <out>/submissions)',
    )
    .option('--out <dir>', 'where leaderboard.md, index.html, viewer.html and viewer-data/ go', DEFAULT_OUT_DIR)
    .option('--title <text>', 'the page title')
    .option('--check', 'only validate the inputs (schema, arithmetic, suite seeds); write nothing')
    .option('--no-viewer', 'no rollout viewer and no links to it (a page published without its records)')
    .option('--json', 'print the ranked rows as JSON on stdout')
    .action(async (inputs: string[], options: LeaderboardOptions) => {
      const { io } = context;
      checkOutputDirectory('--out', options.out);
      const sources = inputs.length > 0 ? inputs : defaultLeaderboardInputs(options.out);
      if (sources.length === 0) {
        throw new UsageError(
          `No results in ${shownPath(options.out)}: run \`turngym bench <suite> --agent <agent>\` first, or pass result files.`,
        );
      }
      if (options.check) {
        let entries;
        try {
          entries = readLeaderboardEntries(sources, listSuites());
        } catch (error) {
          throw asCliError(error);
        }
        const submissions = entries.filter((entry) => entry.submission !== null).length;
        writeLine(io.stdout, `ok: ${entries.length - submissions} results and ${submissions} submissions are valid`);
        return;
      }
      checkWritable('--out', options.out);
      const written = writeLeaderboardFromCli(sources, options.out, { title: options.title, viewer: options.viewer });
      if (options.json) {
        const boards = written.boards.map((board) => ({
          suite: board.suiteId,
          envs: board.envIds,
          rows: board.rows.map((row) => ({
            rank: row.rank,
            label: row.label,
            runId: row.result.runId,
            agent: row.result.agent.spec,
            submittedBy: row.submittedBy,
            success: row.result.overall.success,
            partial: row.missingEnvs.length > 0,
            envs: Object.fromEntries([...row.envs].map(([envId, env]) => [envId, env.metrics?.success ?? null])),
          })),
        }));
        writeLine(io.stdout, JSON.stringify({ files: written.files, boards }, null, 2));
        return;
      }
      writeLine(io.stdout, written.markdown.trimEnd());
      writeLine(io.stdout);
      const files = [
        written.files.html,
        written.files.markdown,
        ...(written.files.viewer ? [written.files.viewer] : []),
      ];
      writeLine(io.stdout, `written: ${files.map(shownPath).join(', ')}`);
    });
}
