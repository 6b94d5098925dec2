import { truncateSync } from 'node:fs';
import { resolve } from 'node:path';
import { JsonlRecordSink, summarize, TurnGymError, type Registry } from '@turngym/core';
import type { EnvSpec } from '@turngym/spec';
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
import { recordedSeeds } from '../recorded-seeds';
import { checkRemoteUrl, remoteRegistry } from '../remote-registry';
import { exitCodeForSignal, watchStopSignals } from '../stop-signals';

interface RunOptions {
  agent: string;
  episodes: number;
  seed: number;
  options?: Record<string, unknown>;
  out?: string;
  overwrite?: boolean;
  json?: boolean;
  concurrency: number;
  maxConsecutiveErrors: number;
  baseUrl?: string;
  apiKey?: string;
  timeoutMs?: number;
  maxRetries?: number;
  temperature?: number;
  maxTokens?: number;
  remote?: string;
  token?: string;
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
      'record every episode to this JSONL file (appended; an existing file must be an episode file, and holding ' +
        "this run's seeds already for this env and agent, it is refused: see --overwrite)",
    )
    .option('--overwrite', 'empty the --out episode file before the run, instead of appending to it')
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
    .option(
      '--remote <url>',
      'run against the env served at this ws:// URL (turngym serve); --options go to the server; --agent random or ' +
        'a chat model',
    )
    .option('--token <token>', 'bearer token for --remote')
    .action(async (id: string, options: RunOptions, command: Command) => {
      if (options.overwrite && options.out === undefined)
        throw new UsageError('--overwrite empties the --out file: give --out <file.jsonl> with it.');
      checkSeedRange(options);
      const registry = options.remote
        ? remoteRegistryFor(id, options)
        : context.loadEnvironments(command.optsWithGlobals<GlobalOptions>()).registry;
      if (options.token !== undefined && !options.remote)
        throw new UsageError('--token is the bearer token for --remote: give --remote <ws://host:port> with it.');
      // Preflight: the id, the options, the agent and its endpoint are checked before any episode runs (remote: the
      // server is reached, serves the id and accepts the options and the token).
      const spec = options.remote
        ? await remoteSpec(registry, id, options.remote)
        : await specOf(registry, id, options.options);
      const agent = resolveAgentSource(registry, id, options.agent, {
        ...(options.baseUrl ? { baseURL: options.baseUrl } : {}),
        ...(options.apiKey ? { apiKey: options.apiKey } : {}),
        ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
        ...(options.maxRetries !== undefined ? { maxRetries: options.maxRetries } : {}),
        ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
        ...(options.maxTokens !== undefined ? { maxTokens: options.maxTokens } : {}),
      });
      const out = options.out !== undefined ? resolve(options.out) : undefined;
      try {
        if (options.out !== undefined) checkOutputFile('--out', options.out);
        // Run twice with the same --out, the file held every episode twice, and every reader counted them twice.
        if (out !== undefined && !options.overwrite) await refuseRecordedSeeds(out, spec.id, agent.name, options);
        // An endpoint that is down fails here in one line, not as N errored episodes (or N timeouts) later.
        await agent.check();
      } catch (error) {
        await agent.close();
        throw error;
      }
      // Before any episode: a file that is not an episode file is refused, not appended to (nor emptied).
      const sink = out ? openRecordSink(out, options.overwrite === true) : undefined;
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
          // A remote env gets its options from the server session, not from a local make().
          ...(options.options && !options.remote ? { options: options.options } : {}),
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
          ...(options.remote ? { remote: options.remote } : {}),
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

/**
 * The registry of `--remote`: the one id, served. The agent must not need the env in this process: `random` and chat
 * models act on what the wire carries; an env's own baselines (its `scripted` expert) read its state, so they are
 * refused here as `check --remote` refuses them, rather than failing on the first step.
 */
function remoteRegistryFor(id: string, options: RunOptions): Registry {
  const url = options.remote as string;
  checkRemoteUrl(url);
  const agent = options.agent.trim();
  if (/^[a-z][a-z0-9-]*$/i.test(agent) && agent !== 'random')
    throw new UsageError(
      `--remote runs --agent random or a chat-model spec (openai:<model>, local:<checkpoint>); "${agent}" is a ` +
        'baseline the env registers, which needs the env in this process: run it without --remote.',
    );
  return remoteRegistry(id, {
    url,
    ...(options.token !== undefined ? { token: options.token } : {}),
    ...(options.options ? { envOptions: options.options } : {}),
  });
}

/**
 * The spec of the served env: one session opened and closed, before any episode. A server that cannot be reached,
 * or that refuses the request (options its clients may not set, a missing or wrong token) is a usage error naming
 * the flag (exit 2), as an unreachable chat-model endpoint is; an id it does not serve or options that fail the env's
 * schema keep their own errors (exit 2 too).
 */
async function remoteSpec(registry: Registry, id: string, url: string): Promise<EnvSpec> {
  try {
    return await specOf(registry, id);
  } catch (error) {
    if (!TurnGymError.isInstance(error)) throw error;
    const message = error.message.replace(/\.?$/, '.');
    if (error.code === 'ENV_FAULT')
      throw new UsageError(`--remote ${url}: ${message} Is \`turngym serve\` running there?`);
    const protocolCode = (error as { protocolCode?: unknown }).protocolCode;
    const refused = error.code === 'PROTOCOL_ERROR' && protocolCode === 'VALIDATION_ERROR';
    if (refused || error.code === 'INVALID_REQUEST' || error.code === 'UNAUTHORIZED')
      throw new UsageError(`--remote ${url} refused the session: ${message}`);
    throw error;
  }
}

/**
 * The seeds a run plays are seed … seed + episodes − 1: each must be a safe integer, or the last episodes fail at their
 * reset (or, past 2^53, replay a neighbour's episode) after the first ones ran and spent their tokens.
 */
function checkSeedRange(options: RunOptions): void {
  const last = BigInt(options.seed) + BigInt(options.episodes) - 1n;
  if (last > BigInt(Number.MAX_SAFE_INTEGER))
    throw new UsageError(
      `--seed ${options.seed} --episodes ${options.episodes} would play seeds up to ${last}, past 2^53 − 1 ` +
        `(${Number.MAX_SAFE_INTEGER}), where seeds stop being exact: lower --seed or --episodes.`,
    );
}

/**
 * Refuses a run whose seeds `--out` already holds complete records of, for this env and agent: appending would
 * record those episodes twice. The message says which seeds, and how to run only the others or start afresh.
 */
async function refuseRecordedSeeds(out: string, envId: string, agent: string, options: RunOptions): Promise<void> {
  const seeds = await recordedSeeds(out, { envId, agent, first: options.seed, count: options.episodes });
  if (seeds.length === 0) return;
  const recorded = new Set(seeds);
  const missing = Array.from({ length: options.episodes }, (_, i) => options.seed + i).filter(
    (seed) => !recorded.has(seed),
  );
  const contiguous = missing.length > 0 && missing.at(-1)! - missing[0]! === missing.length - 1;
  const held =
    seeds.length === options.episodes ? 'every episode' : `${seeds.length} of the ${options.episodes} episodes`;
  const instead =
    missing.length === 0
      ? 'Choose another --out'
      : contiguous
        ? `Run the seeds it lacks with --seed ${missing[0]} --episodes ${missing.length}, choose another --out`
        : `Run the seeds it lacks (${seedRanges(missing)}) on their own, choose another --out`;
  throw new UsageError(
    `--out ${options.out} already holds ${held} of this run (${envId}, agent ${agent}, seeds ${seedRanges(seeds)}); ` +
      `appending would record them twice. ${instead}, or add --overwrite to empty the file first.`,
  );
}

/**
 * The episode file of `--out`, emptied first with `overwrite` (only once it is known to be an episode file); a path
 * the file system refuses (EACCES, EROFS, ENOENT) is a usage error naming it.
 */
function openRecordSink(path: string, overwrite: boolean): JsonlRecordSink {
  try {
    const sink = new JsonlRecordSink(path);
    if (overwrite) truncateSync(path, 0);
    return sink;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (typeof code !== 'string' || !/^E[A-Z]+$/.test(code)) throw error;
    throw new UsageError(`--out ${path}: cannot write there (${(error as Error).message}).`);
  }
}
