import { resolve } from 'node:path';
import { JsonlRecordSink, summarize } from '@turngym/core';
import { DEFAULT_MAX_CONSECUTIVE_ERRORS, runAgentEpisodes } from '@turngym/leaderboard';
import type { Command } from 'commander';
import { resolveAgentSource } from '../agent-source';
import type { CliContext, GlobalOptions } from '../cli-context';
import { writeLine } from '../cli-io';
import { specOf } from '../env-summaries';
import { formatRunSummary } from '../format-summary';
import { parseInteger, parseJsonObject, parsePositiveInteger } from '../parse-arguments';
import { createProgress } from '../progress';
import { checkOutputFile } from '../output-paths';

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
    .action(async (id: string, options: RunOptions, command: Command) => {
      const { registry } = context.loadEnvironments(command.optsWithGlobals<GlobalOptions>());
      // Preflight: the id, the options and the agent are checked before any episode runs.
      const spec = await specOf(registry, id, options.options);
      const agent = resolveAgentSource(registry, id, options.agent, {
        ...(options.baseUrl ? { baseURL: options.baseUrl } : {}),
        ...(options.apiKey ? { apiKey: options.apiKey } : {}),
      });
      if (options.out) checkOutputFile('--out', options.out);
      const out = options.out ? resolve(options.out) : undefined;
      // Before any episode: a file that is not an episode file is refused, not appended to.
      const sink = out ? new JsonlRecordSink(out) : undefined;
      const started = performance.now();
      const progress = createProgress(context.io, options.episodes, `${spec.id} · ${agent.name}`);
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
          onEpisode: () => progress.increment(),
        });
      } finally {
        progress.stop();
        await agent.close();
      }
      const summary = summarize(ran.outcomes, performance.now() - started);
      if (options.json) {
        const report = {
          envId: spec.id,
          agent: agent.name,
          seed: options.seed,
          episodes: options.episodes,
          options: options.options ?? {},
          out: out ?? null,
          summary,
          errored: ran.errors.length,
          errors: ran.errors,
        };
        writeLine(context.io.stdout, JSON.stringify(report, null, 2));
        return;
      }
      const last = options.seed + options.episodes - 1;
      writeLine(
        context.io.stdout,
        `${spec.id} · agent ${agent.name} · seeds ${options.seed}${last > options.seed ? `–${last}` : ''}`,
      );
      writeLine(context.io.stdout, formatRunSummary(summary, ran.errors.length));
      for (const error of ran.errors) {
        const message = error.message.replace(/\s*\n\s*/g, ' ');
        writeLine(context.io.stderr, `warning: seed ${error.seed} errored (${error.code}): ${message}`);
      }
      if (out) writeLine(context.io.stdout, `records written to ${out}`);
    });
}
