import { resolve } from 'node:path';
import { JsonlRecordSink, summarize } from '@turngym/core';
import { DEFAULT_MAX_CONSECUTIVE_ERRORS, runAgentEpisodes } from '@turngym/leaderboard';
import type { Command } from 'commander';
import { resolveAgentSource } from '../agent-source';
import type { CliContext, GlobalOptions } from '../cli-context';
import { EXIT_FAILURE, OutputWriteError, UsageError } from '../cli-errors';
import { writeLine } from '../cli-io';
import { terminalText } from '../terminal-text';
import { specOf } from '../env-summaries';
import { formatRunSummary } from '../format-summary';
import {
  parseInteger,
  parseJsonObject,
  parseNonNegativeInteger,
  parsePositiveInteger,
  parseTemperature,
} from '../parse-arguments';
import { createProgress } from '../progress';
import { checkOutputFile } from '../output-paths';
import { exitCodeForSignal, watchStopSignals } from '../stop-signals';

interface RunOptions {
  agent: string;
  episodes: number;
  seed: number;
  options?: Record<string, unknown>;
  out?: string;
  json?: boolean;
  concurrency: number;
  maxConsecutiveErrors: number;
  baseUrl?: string;
  apiKey?: string;
  timeoutMs?: number;
  maxRetries?: number;
  temperature?: number;
  maxTokens?: number;
}

export function registerRunCommand(program: Command, context: CliContext): void {
  program
    .command('run')
    .description('run an agent for N seeded episodes; print success rate and mean reward with 95% intervals')
    .argument('<id>', 'environment id, e.g. turngym/example-v1')
    .requiredOption(
      '--agent <agent>',
      'random, scripted (or another baseline the env registers), or a chat-model spec like openai:gpt-4o-mini',
    )
    .option('--episodes <n>', 'number of episodes', parsePositiveInteger, 10)
    .option('--seed <n>', 'episode i plays seed n + i', parseInteger, 0)
    .option('--options <json>', 'env options (a JSON object)', parseJsonObject)
    .option(
      '--out <file.jsonl>',
      'record every episode to this JSONL file (appended; an existing file must be an episode file)',
    )
    .option('--json', 'print the summary as JSON on stdout')
    .option('--concurrency <k>', 'episodes in flight at once (each with its own env)', parsePositiveInteger, 1)
    .option(
      '--max-consecutive-errors <k>',
      'stop after k episodes in a row failed for an infrastructure reason (an LLM call, an env fault)',
      parsePositiveInteger,
      DEFAULT_MAX_CONSECUTIVE_ERRORS,
    )
    .option('--base-url <url>', 'OpenAI-compatible base URL for a chat-model agent')
    .option('--api-key <key>', "API key for a chat-model agent (default: the provider's environment variable)")
    .option('--timeout-ms <ms>', 'per model call', parsePositiveInteger)
    .option('--max-retries <n>', 'retries of a failed model call', parseNonNegativeInteger)
    .option('--temperature <t>', 'sampling temperature (default 0)', parseTemperature)
    .option('--max-tokens <n>', 'most tokens per model reply', parsePositiveInteger)
    .action(async (id: string, options: RunOptions, command: Command) => {
      const { registry } = context.loadEnvironments(command.optsWithGlobals<GlobalOptions>());
      // Preflight: the id, the options, the agent and its endpoint are checked before any episode runs.
      const spec = await specOf(registry, id, options.options);
      const agent = resolveAgentSource(registry, id, options.agent, {
        ...(options.baseUrl ? { baseURL: options.baseUrl } : {}),
        ...(options.apiKey ? { apiKey: options.apiKey } : {}),
        ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
        ...(options.maxRetries !== undefined ? { maxRetries: options.maxRetries } : {}),
        ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
        ...(options.maxTokens !== undefined ? { maxTokens: options.maxTokens } : {}),
      });
      if (options.out !== undefined) checkOutputFile('--out', options.out);
      try {
        // An endpoint that is down fails here in one line, not as N errored episodes (or N timeouts) later.
        await agent.check();
      } catch (error) {
        await agent.close();
        throw error;
      }
      const out = options.out !== undefined ? resolve(options.out) : undefined;
      // Before any episode: a file that is not an episode file is refused, not appended to.
      const sink = out ? openRecordSink(out) : undefined;
      const started = performance.now();
      const progress = createProgress(context.io, options.episodes, `${spec.id} · ${agent.name}`);
      // Ctrl-C starts no further episode; those in flight end, are recorded, and the summary covers them. Episodes
      // start in seed order, so the ones that ran are the first seeds and the rest can be run with --seed later.
      const stop = watchStopSignals(context.io.stderr, {
        finishing: 'the episodes in flight',
        quitHint: (signal) =>
          `interrupted (${signal}) before the episodes in flight ended` +
          (options.out !== undefined ? `; those that ended are in ${options.out}` : ''),
      });
      // The seeds whose records are in --out (a record is written before its episode is counted).
      const recorded: number[] = [];
      let ran;
      try {
        ran = await runAgentEpisodes({
          registry,
          envId: id,
          agent,
          episodes: options.episodes,
          seed: options.seed,
          concurrency: options.concurrency,
          maxConsecutiveErrors: options.maxConsecutiveErrors,
          ...(options.options ? { options: options.options } : {}),
          ...(sink ? { sink } : {}),
          onEpisode: (result) => {
            recorded.push(result.episode.seed);
            progress.increment();
          },
          signal: stop.signal,
        });
      } catch (error) {
        throw out !== undefined ? recordingFailed(error, out, options, recorded) : error;
      } finally {
        stop.dispose();
        progress.stop();
        await agent.close();
      }
      const played = ran.outcomes.length + ran.errors.length;
      if (stop.stoppedBy) {
        context.exitCode = exitCodeForSignal(stop.stoppedBy);
        const rest = options.episodes - played;
        writeLine(
          context.io.stderr,
          `interrupted after ${played} of ${options.episodes} episodes` +
            (rest > 0 ? `; the rest: --seed ${options.seed + played} --episodes ${rest}` : ''),
        );
      }
      const summary = summarize(ran.outcomes, performance.now() - started);
      // Every episode errored (an endpoint that is down): the summary is printed, but nothing was measured, and a
      // script must not read the run as done.
      if (ran.outcomes.length === 0 && ran.errors.length > 0 && !stop.stoppedBy) context.exitCode = EXIT_FAILURE;
      if (options.json) {
        const report = {
          envId: spec.id,
          agent: agent.name,
          seed: options.seed,
          episodes: options.episodes,
          ...(stop.stoppedBy ? { interrupted: true, played } : {}),
          options: options.options ?? {},
          out: out ?? null,
          summary,
          errored: ran.errors.length,
          errors: ran.errors,
        };
        writeLine(context.io.stdout, JSON.stringify(report, null, 2));
        return;
      }
      const last = options.seed + Math.max(played, 1) - 1;
      writeLine(
        context.io.stdout,
        `${spec.id} · agent ${agent.name} · seeds ${options.seed}${last > options.seed ? `–${last}` : ''}`,
      );
      writeLine(context.io.stdout, formatRunSummary(summary, ran.errors.length));
      for (const error of ran.errors) {
        const message = terminalText(error.message.replace(/\s*\n\s*/g, ' '));
        writeLine(context.io.stderr, `warning: seed ${error.seed} errored (${error.code}): ${message}`);
      }
      if (out) writeLine(context.io.stdout, `records written to ${out}`);
    });
}

/** Seeds as ranges, `3–5, 8`. */
function seedRanges(seeds: readonly number[]): string {
  const sorted = [...seeds].sort((a, b) => a - b);
  const ranges: string[] = [];
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    ranges.push(i === j ? String(sorted[i]) : `${sorted[i]}–${sorted[j]}`);
    i = j + 1;
  }
  return ranges.join(', ');
}

/**
 * A write to `--out` the file system refused mid-run (a full disk, a file-size limit), as an error that names the
 * file and says which seeds it holds and which are left: Node's bare "ENOSPC: no space left on device, write" said
 * neither, and with `--concurrency` the recorded seeds need not be the first ones. Other errors pass through.
 */
function recordingFailed(error: unknown, out: string, options: RunOptions, recorded: readonly number[]): unknown {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (!(error instanceof Error) || typeof code !== 'string' || !/^E[A-Z0-9]+$/.test(code)) return error;
  const done = new Set(recorded);
  const missing = Array.from({ length: options.episodes }, (_, i) => options.seed + i).filter(
    (seed) => !done.has(seed),
  );
  return new OutputWriteError(
    `writing the episode records to ${out} failed (${error.message}); ${recorded.length} of ${options.episodes} ` +
      `episodes are recorded there${recorded.length > 0 ? ` (seeds ${seedRanges(recorded)})` : ''}, and the file ` +
      'is whole up to them (a part-written record is cut off when it is next opened); once the cause is fixed ' +
      '(a full disk, a file-size limit), run ' +
      (missing.length > 0 && missing.at(-1)! - missing[0]! === missing.length - 1
        ? `the rest with --seed ${missing[0]} --episodes ${missing.length} and the same --out.`
        : `seeds ${seedRanges(missing)} again with the same --out.`),
    { cause: error },
  );
}

/** The episode file of `--out`; a path the file system refuses (EACCES, EROFS, ENOENT) is a usage error naming it. */
function openRecordSink(path: string): JsonlRecordSink {
  try {
    return new JsonlRecordSink(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (typeof code !== 'string' || !/^E[A-Z]+$/.test(code)) throw error;
    throw new UsageError(`--out ${path}: cannot write there (${(error as Error).message}).`);
  }
}
