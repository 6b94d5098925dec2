import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { TurnGymError, type Registry } from '@turngym/core';
import {
  createSuiteProgress,
  DEFAULT_OUT_DIR,
  formatResultsTable,
  listSuites,
  loadSuite,
  resolveSuiteAgent,
  runSuite,
  suiteEpisodeCount,
  writeLeaderboard,
  type ChatAgentSettings,
  type LoadedSuite,
  type RunSuiteOptions,
  type SuiteRun,
  type WrittenLeaderboard,
} from '@turngym/leaderboard';
import { InvalidArgumentError, type Command } from 'commander';
import type { CliContext, GlobalOptions } from '../cli-context';
import { UsageError } from '../cli-errors';
import { writeLine, type CliIo } from '../cli-io';
import { formatTable } from '../format-table';
import { collect, parseNonNegativeInteger, parsePositiveInteger, parseTemperature } from '../parse-arguments';
import { checkOutputDirectory, checkWritable } from '../output-paths';
import { exitCodeForSignal, watchStopSignals } from '../stop-signals';

interface BenchOptions {
  agent: string[];
  out: string;
  concurrency: number;
  envs?: string[];
  runId?: string;
  label?: string;
  fresh?: boolean;
  retryErrored: boolean;
  leaderboard: boolean;
  json?: boolean;
  list?: boolean;
  baseUrl?: string;
  apiKey?: string;
  timeoutMs?: number;
  maxRetries?: number;
  toolMode?: 'auto' | 'text';
  /** Commander's `--no-instructions`: false when given. */
  instructions?: boolean;
  temperature?: number;
  maxTokens?: number;
  cache?: string;
}

/**
 * Errors of the leaderboard that mean "change the command line": a bad suite, an agent that does not exist
 * or cannot be reached, a run directory that holds another run. They exit with 2, like any bad input.
 */
const BAD_INPUT = new Set(['PREFLIGHT', 'INVALID_SUITE', 'RUN_MISMATCH', 'INVALID_RESULT']);

export function asCliError(error: unknown): unknown {
  if (TurnGymError.isInstance(error) && BAD_INPUT.has(error.code)) return new UsageError(error.message);
  return error;
}

function parseEnvList(text: string, previous: string[] = []): string[] {
  const ids = text
    .split(',')
    .map((id) => id.trim())
    .filter(Boolean);
  if (ids.length === 0) throw new InvalidArgumentError('Expected env ids, comma-separated.');
  return [...previous, ...ids];
}

function parseToolMode(text: string): 'auto' | 'text' {
  if (text !== 'auto' && text !== 'text') throw new InvalidArgumentError('Expected auto or text.');
  return text;
}

/** A path as the user would type it: relative to the working directory when inside it. */
export function shownPath(path: string): string {
  const shown = relative(process.cwd(), path);
  return shown === '' || shown.startsWith('..') ? path : shown;
}

export interface SuiteRunRequest {
  io: CliIo;
  registry: Registry;
  suite: LoadedSuite;
  agentSpec: string;
  settings?: ChatAgentSettings;
  /** Write a note per skipped env (default true). */
  notes?: boolean;
  run: Omit<RunSuiteOptions, 'suite' | 'agent' | 'registry' | 'onStart' | 'onEpisode'>;
  /** Told which run started (its id, and how many of its episodes were already done). */
  onRunStart?: (start: { runId: string; done: number; total: number }) => void;
  /** Told each time an episode ends (after it is journaled): how many of the run's episodes are done. */
  onEpisode?: (done: number) => void;
}

/**
 * Runs one agent on one suite with a progress bar on stderr (when it is a terminal) and a note per env that
 * is skipped; the agent is closed whatever happens. Leaderboard errors that mean bad input become usage errors.
 */
export async function runSuiteFromCli(request: SuiteRunRequest): Promise<SuiteRun> {
  let agent;
  try {
    agent = resolveSuiteAgent(request.agentSpec, request.settings ?? {});
  } catch (error) {
    throw asCliError(error);
  }
  const progress = createSuiteProgress(request.io.stderr, `${request.suite.id} · ${agent.spec}`);
  try {
    return await runSuite({
      ...request.run,
      suite: request.suite,
      agent,
      registry: request.registry,
      onStart: (start) => {
        for (const skipped of start.plan.skipped) {
          if (request.notes !== false && skipped.reason !== 'not selected')
            writeLine(request.io.stderr, `note: ${skipped.envId} skipped: ${skipped.reason}`);
        }
        if (start.done === start.total) {
          writeLine(
            request.io.stderr,
            `reusing ${start.runId}: all ${start.total} episodes are done (--fresh runs them again)`,
          );
        } else if (start.done > 0) {
          writeLine(
            request.io.stderr,
            `resuming ${start.runId}: ${start.done} of ${start.total} episodes already done`,
          );
        }
        request.onRunStart?.({ runId: start.runId, done: start.done, total: start.total });
        progress.start(start);
      },
      onEpisode: (episode) => {
        progress.episode(episode);
        request.onEpisode?.(episode.done);
      },
    });
  } catch (error) {
    throw asCliError(error);
  } finally {
    progress.stop();
    await agent.close();
  }
}

/** The leaderboard's default inputs: the results in `<out>/results`, and submissions in `<out>/submissions`. */
export function defaultLeaderboardInputs(out: string): string[] {
  return [join(out, 'results'), join(out, 'submissions')].filter((path) => existsSync(path));
}

export function writeLeaderboardFromCli(
  inputs: readonly string[],
  out: string,
  options: { title?: string | undefined; viewer?: boolean } = {},
): WrittenLeaderboard {
  try {
    return writeLeaderboard({
      inputs,
      outDir: out,
      ...(options.title ? { title: options.title } : {}),
      ...(options.viewer === false ? { viewer: false } : {}),
    });
  } catch (error) {
    throw asCliError(error);
  }
}

export function registerBenchCommand(program: Command, context: CliContext): void {
  program
    .command('bench')
    .description('run agents on a seeded benchmark suite; write one result file per run and the leaderboard')
    .argument('[suite]', 'a built-in suite (quick, full, quick-v1, …) or the path of a suite file')
    .option(
      '--agent <spec>',
      'random, scripted, or a chat-model spec like openai:gpt-4o-mini (repeatable)',
      collect,
      [],
    )
    .option('--out <dir>', 'output directory: results/, runs/, and the leaderboard pages', DEFAULT_OUT_DIR)
    .option('--concurrency <k>', 'episodes in flight at once (each with its own env)', parsePositiveInteger, 4)
    .option('--envs <ids>', 'run only these envs of the suite (comma-separated)', parseEnvList)
    .option('--run-id <id>', 'name of the run (default <suite>--<agent>); the same id resumes the same run')
    .option('--label <text>', "the leaderboard's name for the row (default: the agent spec)")
    .option('--fresh', 'start the run over instead of resuming it')
    .option(
      '--no-retry-errored',
      'on resume, keep errored episodes as they are instead of running retryable ones again',
    )
    .option('--no-leaderboard', 'do not re-render the leaderboard pages in --out')
    .option('--json', 'print the results as JSON on stdout')
    .option('--list', 'list the built-in suites and exit')
    .option('--base-url <url>', 'OpenAI-compatible base URL for a chat-model agent')
    .option('--api-key <key>', "API key for a chat-model agent (default: the provider's environment variable)")
    .option('--timeout-ms <ms>', 'per model call', parsePositiveInteger)
    .option('--max-retries <n>', 'retries of a failed model call', parseNonNegativeInteger)
    .option(
      '--tool-mode <mode>',
      "auto: the env's tools as function-calling schemas; text: the env's text syntax",
      parseToolMode,
    )
    .option(
      '--no-instructions',
      "leave the env's instructions out of a chat model's system prompt (a policy trained without them, as turngym train does by default)",
    )
    .option('--temperature <t>', 'sampling temperature (default 0)', parseTemperature)
    .option('--max-tokens <n>', 'most tokens per model reply', parsePositiveInteger)
    .option('--cache <file.jsonl>', 'response cache: re-runs buy no answer twice')
    .action(async (suiteReference: string | undefined, options: BenchOptions, command: Command) => {
      const { io } = context;
      if (options.list) {
        const suites = listSuites();
        writeLine(
          io.stdout,
          formatTable(
            ['SUITE', 'ENVS', 'EPISODES', 'DESCRIPTION'],
            suites.map((suite) => [
              suite.id,
              String(suite.envs.length),
              String(suiteEpisodeCount(suite)),
              suite.description,
            ]),
          ),
        );
        return;
      }
      if (!suiteReference)
        throw new UsageError(
          'Which suite? e.g. `turngym bench quick --agent scripted` (`turngym bench --list` shows them).',
        );
      if (options.agent.length === 0)
        throw new UsageError(
          'Give at least one --agent (random, scripted, or a chat-model spec such as openai:gpt-4o-mini).',
        );
      const twice = options.agent.find((agent, index) => options.agent.indexOf(agent) !== index);
      // Both would be one run (one run id): the second only reuses the first, or with --fresh wipes it.
      if (twice !== undefined) throw new UsageError(`--agent ${twice} is given twice: each agent runs once.`);
      if (options.agent.length > 1 && (options.runId || options.label)) {
        throw new UsageError('--run-id and --label name one run: give them with a single --agent.');
      }
      checkOutputDirectory('--out', options.out);
      checkWritable('--out', options.out);
      let suite: LoadedSuite;
      try {
        suite = loadSuite(suiteReference);
      } catch (error) {
        throw asCliError(error);
      }
      const { registry } = context.loadEnvironments(command.optsWithGlobals<GlobalOptions>());
      const settings: ChatAgentSettings = {
        ...(options.baseUrl ? { baseURL: options.baseUrl } : {}),
        ...(options.apiKey ? { apiKey: options.apiKey } : {}),
        ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
        ...(options.maxRetries !== undefined ? { maxRetries: options.maxRetries } : {}),
        ...(options.toolMode ? { toolMode: options.toolMode } : {}),
        ...(options.instructions === false ? { instructions: false } : {}),
        ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
        ...(options.maxTokens !== undefined ? { maxTokens: options.maxTokens } : {}),
        ...(options.cache ? { cachePath: options.cache } : {}),
      };
      const runs: SuiteRun[] = [];
      // Ctrl-C (or SIGTERM) stops starting episodes and lets the ones in flight finish and be journaled, as
      // `turngym run` does; a second one quits at once. Either way the line says how to resume: every ended episode
      // is in the run's journal (bench used to exit 130/143 saying nothing).
      let current: { runId: string; done: number; total: number } | undefined;
      const resumeHint = (signal: NodeJS.Signals): string => {
        const where = current
          ? `run ${current.runId} (${current.done} of ${current.total} episodes ` +
            `done, in ${shownPath(join(options.out, 'runs', current.runId))})`
          : 'before any run started';
        return `interrupted (${signal}): ${where}; run the same command again to resume (--fresh starts over)`;
      };
      const stop = watchStopSignals(io.stderr, { finishing: 'the episodes in flight', quitHint: resumeHint });
      try {
        for (const agentSpec of options.agent) {
          runs.push(
            await runSuiteFromCli({
              io,
              registry,
              suite,
              agentSpec,
              settings,
              onRunStart: (start) => {
                current = { ...start };
              },
              onEpisode: (done) => {
                if (current) current.done = done;
              },
              run: {
                signal: stop.signal,
                outDir: options.out,
                concurrency: options.concurrency,
                retryErrored: options.retryErrored,
                ...(options.fresh ? { fresh: true } : {}),
                ...(options.envs ? { only: options.envs } : {}),
                ...(options.runId ? { runId: options.runId } : {}),
                ...(options.label ? { label: options.label } : {}),
              },
            }),
          );
          if (stop.stoppedBy) break;
        }
      } catch (error) {
        // The run stopped by the signal: its in-flight episodes are journaled; no further agent starts.
        if (!stop.stoppedBy || !TurnGymError.isInstance(error) || error.code !== 'RUN_ABORTED') throw error;
      } finally {
        stop.dispose();
      }
      if (stop.stoppedBy) {
        writeLine(io.stderr, resumeHint(stop.stoppedBy));
        context.exitCode = exitCodeForSignal(stop.stoppedBy);
        return;
      }
      const written = options.leaderboard
        ? writeLeaderboardFromCli(defaultLeaderboardInputs(options.out), options.out)
        : undefined;
      if (options.json) {
        const report = {
          results: runs.map((run) => ({ file: run.resultPath, result: run.result })),
          leaderboard: written?.files ?? null,
        };
        writeLine(io.stdout, JSON.stringify(report, null, 2));
        return;
      }
      writeLine(io.stdout, `${suite.id} · ${runs.map((run) => run.result.label).join(', ')}`);
      writeLine(io.stdout, formatResultsTable(runs.map((run) => run.result)));
      writeLine(io.stdout);
      for (const run of runs) writeLine(io.stdout, `result: ${shownPath(run.resultPath)}`);
      if (written)
        writeLine(
          io.stdout,
          `leaderboard: ${shownPath(written.files.html)} (and ${shownPath(written.files.markdown)})`,
        );
    });
}
