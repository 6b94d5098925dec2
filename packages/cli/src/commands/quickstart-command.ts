import { DEFAULT_OUT_DIR, formatResultsTable, loadSuite, type LoadedSuite, type SuiteRun } from '@turngym/leaderboard';
import type { Command } from 'commander';
import type { CliContext, GlobalOptions } from '../cli-context';
import { EXIT_FAILURE } from '../cli-errors';
import { writeLine } from '../cli-io';
import { parsePositiveInteger } from '../parse-arguments';
import { checkOutputDirectory, checkWritable } from '../output-paths';
import {
  asCliError,
  defaultLeaderboardInputs,
  runSuiteFromCli,
  shownPath,
  writeLeaderboardFromCli,
} from './bench-command';

interface QuickstartOptions {
  suite: string;
  out: string;
  concurrency: number;
  fresh?: boolean;
  json?: boolean;
}

/** The baselines every env registers: the floor (random) and the ceiling a scripted expert reaches. */
const BASELINES = ['random', 'scripted'] as const;

/**
 * The README's main job: the `quick` suite with both baselines on every installed env, on embedded defaults
 * (no model, no network), then the leaderboard. Envs the suite names but that are not installed are skipped
 * with a note. Run twice, it resumes (or reuses) what is done; an env upgrade restarts its run.
 */
export function registerQuickstartCommand(program: Command, context: CliContext): void {
  program
    .command('quickstart')
    .description(
      'run the quick suite with the random and scripted baselines on every installed env; write the leaderboard',
    )
    .option('--suite <suite>', 'the suite to run', 'quick')
    .option(
      '--out <dir>',
      'output directory: results/, runs/, leaderboard.md, index.html, viewer.html',
      DEFAULT_OUT_DIR,
    )
    .option('--concurrency <k>', 'episodes in flight at once', parsePositiveInteger, 2)
    .option('--fresh', 'run every episode again instead of reusing a finished or interrupted run')
    .option('--json', 'print the results as JSON')
    .action(async (options: QuickstartOptions, command: Command) => {
      const { io } = context;
      checkOutputDirectory('--out', options.out);
      checkWritable('--out', options.out);
      let suite: LoadedSuite;
      try {
        suite = loadSuite(options.suite);
      } catch (error) {
        throw asCliError(error);
      }
      const { registry } = context.loadEnvironments(command.optsWithGlobals<GlobalOptions>());
      const runs: SuiteRun[] = [];
      for (const agentSpec of BASELINES) {
        runs.push(
          await runSuiteFromCli({
            io,
            // Notes about skipped envs once, not once per baseline.
            notes: runs.length === 0,
            registry,
            suite,
            agentSpec,
            run: {
              outDir: options.out,
              concurrency: options.concurrency,
              onMismatch: 'restart',
              ...(options.fresh ? { fresh: true } : {}),
            },
          }),
        );
      }
      const written = writeLeaderboardFromCli(defaultLeaderboardInputs(options.out), options.out);
      if (runs.some((run) => run.result.overall.errored > 0)) context.exitCode = EXIT_FAILURE;
      if (options.json) {
        const report = {
          suite: suite.id,
          results: runs.map((run) => ({ file: run.resultPath, result: run.result })),
          leaderboard: written.files,
        };
        writeLine(io.stdout, JSON.stringify(report, null, 2));
        return;
      }
      const envs = runs[0]?.result.envs.length ?? 0;
      writeLine(io.stdout, `${suite.id}: the random and scripted baselines on ${envs} env${envs === 1 ? '' : 's'}`);
      writeLine(io.stdout, '');
      writeLine(io.stdout, formatResultsTable(runs.map((run) => run.result)));
      writeLine(io.stdout, '');
      writeLine(
        io.stdout,
        'Success rates with 95% bootstrap intervals; the scripted expert is the ceiling, random the floor.',
      );
      writeLine(
        io.stdout,
        `leaderboard:  ${shownPath(written.files.html)} (open it in a browser) · ${shownPath(written.files.markdown)}`,
      );
      if (written.files.viewer) writeLine(io.stdout, `rollouts:     ${shownPath(written.files.viewer)}`);
      writeLine(io.stdout, `results:      ${runs.map((run) => shownPath(run.resultPath)).join(', ')}`);
      writeLine(
        io.stdout,
        'next:         turngym bench quick --agent openai:<model> --base-url http://127.0.0.1:8000/v1',
      );
    });
}
