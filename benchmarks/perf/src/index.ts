#!/usr/bin/env node
/**
 * `npm run bench`: throughput benchmarks, each reported against a baseline measured in the same run.
 * `npm run bench -- --help` lists the sections and flags: --duration, --only a,b, --runs n (median and spread),
 * --write <markdown> (with its JSON results beside it), --compare <results.json> (flags figures that got worse).
 * A section is one entry of `sections` below: a name, a title and `run(durationMs)` returning markdown lines;
 * the harness reads the figures from its tables and records the context of every run.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { checkSectionNames, formatHelp, parseBenchArguments } from './harness/bench-arguments';
import { BenchArgumentError } from './harness/bench-error';
import { compareResults, formatComparison } from './harness/compare-results';
import { updateMarkdownSections } from '@turngym/report';
import { mergeResults, readResults, type SectionResult } from './harness/results-file';
import { checkoutState, commandLine, describeContext, startContext } from './harness/run-context';
import { combineRuns } from './harness/table-figures';
import { lmThroughput } from './lm-throughput';
import { mathThoughtThroughput } from './math-thought-throughput';
import { planActSection } from './plan-act-section';
import { mcpSection } from './mcp-section';
import { rolloutSchedule } from './rollout-schedule';
import { rolloutThroughput } from './rollout-throughput';
import { sandboxThroughput } from './sandbox-throughput';
import { selfAcSection } from './self-ac-section';
import { sellerThroughput } from './seller-throughput';
import { serverScalingSection } from './server-scaling-section';
import { serverThroughput, type ServerThroughputRow } from './server-throughput';
import { stdbSection } from './stdb-throughput';
import { trivialEpisodeRate } from './trivial-episode-rate';
import { wikiDumpScale } from './wiki-dump-scale';
import { wikiThroughput } from './wiki-throughput';
import { webGpuSection } from './webgpu-section';
import { wrapperOverhead } from './wrapper-overhead';

interface Section {
  readonly name: string;
  /** Minutes rather than seconds: runs only when named with --only. */
  readonly slow?: boolean;
  readonly title: string;
  run(durationMs: number): Promise<string[]>;
}

const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');

/** An env driven by its expert in the `runEpisode` loop, against a do-nothing env in the same loop. */
function expertThroughput(
  name: string,
  title: string,
  label: string,
  measure: (options: { durationMs: number }) => Promise<{ stepsPerSecond: number; episodes: number; steps: number }>,
): Section {
  return {
    name,
    title,
    async run(durationMs) {
      const result = await measure({ durationMs });
      const stepsPerEpisode = result.steps / result.episodes;
      const episodeLength = Math.max(1, Math.round(stepsPerEpisode));
      const baseline = await trivialEpisodeRate({ durationMs: durationMs / 2, episodeLength });
      return [
        '| loop | steps/s | vs trivial env |',
        '|---|---:|---:|',
        `| trivial env, same loop, ${episodeLength}-step episodes (baseline) | ${fmt(baseline)} | 100% |`,
        `| ${label} (${stepsPerEpisode.toFixed(1)} steps/episode) | ${fmt(result.stepsPerSecond)} | ${((100 * result.stepsPerSecond) / baseline).toFixed(0)}% |`,
      ];
    },
  };
}

const sections: Section[] = [
  {
    name: 'wrappers',
    title: 'Standard wrapper stack on a trivial env (goal: wrapped ≥ 100k steps/s and ≥ 50% of bare)',
    async run(durationMs) {
      const rows = await wrapperOverhead({ durationMs });
      return [
        '| stack | steps/s | vs bare |',
        '|---|---:|---:|',
        ...rows.map((row) => `| ${row.stack} | ${fmt(row.stepsPerSecond)} | ${(100 * row.ratioToBare).toFixed(0)}% |`),
      ];
    },
  },
  expertThroughput(
    'math-thought',
    'turngym/math-thought-v1 with its scripted expert, in-process (goal: ≥ 50k steps/s)',
    'math-thought-v1 + scripted expert',
    mathThoughtThroughput,
  ),
  expertThroughput(
    'seller',
    'turngym/seller-commander-v1 with simulated roles and its scripted expert, in-process (goal: ≥ 10k steps/s)',
    'seller-commander-v1 + simulated roles + expert',
    sellerThroughput,
  ),
  {
    name: 'server',
    title:
      'Env server over loopback vs in-process, math-thought-v1 + scripted expert (goal at 64 sessions: ≥ 5k steps/s, p99 < 5 ms)',
    async run(durationMs) {
      const rows = await serverThroughput({
        durationMs: durationMs / 2,
        sessions: [1, 64],
        offeredStepsPerSecond: 5000,
        paced: [64],
      });
      const key = (row: ServerThroughputRow): string => `${row.sessions}/${row.offeredStepsPerSecond ?? ''}`;
      const inProcess = new Map(rows.filter((row) => row.mode === 'in-process').map((row) => [key(row), row]));
      return [
        'Saturated: each session sends its next step as soon as the last returns (the most steps/s; the latency is',
        "then mostly the queue, sessions ÷ steps/s). At 5,000 steps/s: the sessions' steps leave on fixed schedules",
        'that add up to the goal rate, and the latency is that of a server carrying that load.',
        '',
        '| mode | sessions | load | steps/s | vs in-process | p50 ms | p99 ms |',
        '|---|---:|---|---:|---:|---:|---:|',
        ...rows.map(
          (row) =>
            `| ${row.mode} | ${row.sessions} | ${row.offeredStepsPerSecond ? `${fmt(row.offeredStepsPerSecond)} steps/s` : 'saturated'} | ${fmt(row.stepsPerSecond)} | ${((100 * row.stepsPerSecond) / (inProcess.get(key(row))?.stepsPerSecond ?? row.stepsPerSecond)).toFixed(0)}% | ${row.p50Ms.toFixed(2)} | ${row.p99Ms.toFixed(2)} |`,
        ),
      ];
    },
  },
  mcpSection,
  { ...stdbSection, slow: true },
  {
    name: 'scaling',
    slow: true,
    title: "Env server at scale, OpenEnv's scaling protocol (goal: 16,384 sessions at ≥ 95% success on this machine)",
    run: serverScalingSection,
  },
  {
    name: 'sandbox',
    title:
      'Coding sandbox: evaluations/s of a small solution against its tests, sandboxed vs unsandboxed (goal: ≥ 600/s on 2 cores)',
    async run(durationMs) {
      const result = await sandboxThroughput({ durationMs });
      return [
        '| evaluation | per second | vs unsandboxed | CPU ms per evaluation |',
        '|---|---:|---:|---:|',
        `| unsandboxed (same code, same tests, in the host) | ${fmt(result.unsandboxedPerSecond)} | 100% | ${result.unsandboxedCpuMs.toFixed(3)} |`,
        `| sandboxed (isolated-vm in a supervised worker process) | ${fmt(result.sandboxedPerSecond)} | ${(100 * result.ratio).toFixed(1)}% | ${result.sandboxedCpuMs === undefined ? '—' : result.sandboxedCpuMs.toFixed(2)} |`,
        `| sandboxed, the suite also imports node:assert (built per evaluation only then; before 7a391d2, always) | ${fmt(result.withAssertPerSecond)} | ${((100 * result.withAssertPerSecond) / result.unsandboxedPerSecond).toFixed(1)}% | ${result.withAssertCpuMs === undefined ? '—' : result.withAssertCpuMs.toFixed(2)} |`,
      ];
    },
  },
  {
    name: 'wiki',
    title:
      'Wiki navigator, 4 envs at once, expert and random in turn: direct vs browser (goals: direct ≥ 10k steps/s with its page cache filled, browser ≥ 50 steps/s with 4 pages)',
    async run(durationMs) {
      const result = await wikiThroughput({ durationMs });
      const vsDirect = (rate: number): string => `${((100 * rate) / result.directStepsPerSecond).toFixed(1)}%`;
      return [
        '| mode | steps/s | vs direct | CPU ms/step |',
        '|---|---:|---:|---:|',
        `| direct, page cache filled (every article opened once before timing; same HTML, no browser) | ${fmt(result.directStepsPerSecond)} | 100% | ${result.directCpuMsPerStep.toFixed(3)} |`,
        `| direct, no page cache (every page rendered, parsed and extracted) | ${fmt(result.directUncachedStepsPerSecond)} | ${vsDirect(result.directUncachedStepsPerSecond)} | ${result.directUncachedCpuMsPerStep.toFixed(3)} |`,
        `| browser (Chromium, pool of ${result.pagesInPool} pages) | ${fmt(result.browserStepsPerSecond)} | ${vsDirect(result.browserStepsPerSecond)} | ${result.browserCpuMsPerStep.toFixed(2)} |`,
        '',
        '| browser pool | MB (PSS) per extra page |',
        '|---|---:|',
        `| ${result.pagesInPool} pages | ${result.memoryPerPageMb.toFixed(1)} |`,
      ];
    },
  },
  {
    name: 'wiki-dumps',
    slow: true,
    title:
      'Wiki navigator at Wikipedia scale: a ~0.9 GB .bz2 dump of 300k articles converted, stored on disk (SQLite + FTS5) and served (goals: conversion RSS < 1 GB and flat in dump size; env start-up < 2 s; search p50 < 5 ms; env memory flat in corpus size)',
    run: () =>
      wikiDumpScale({
        directory: flag('wiki-dir') ?? '/tmp/turngym-wiki-bench',
        ...(flag('wiki-convert') ? { convert: sizes(flag('wiki-convert')) } : {}),
        ...(flag('wiki-stores') ? { stores: sizes(flag('wiki-stores')) } : {}),
      }),
  },
  {
    name: 'lm',
    slow: true,
    title:
      'tfjs decoder LM: training and generation per backend and tiny config (goal: training at 8M ≥ 40% of the matmul ceiling)',
    run: (durationMs) => lmThroughput({ durationMs }),
  },
  {
    name: 'rollouts',
    slow: true,
    title:
      'GRPO-family rollouts and training, tiny-1m on wasm: chains (G=4) vs Tree-GRPO trees (M=2, N=2, L=1) (goals: trees ≥ 1.4× the rollouts per generated token, ≥ 1.3× per CPU-second)',
    run: (durationMs) => {
      const math = flag('math-checkpoint');
      const wiki = flag('wiki-checkpoint');
      return rolloutThroughput({
        durationMs,
        checkpoints: { ...(math ? { math } : {}), ...(wiki ? { wiki } : {}) },
      });
    },
  },
  {
    name: 'rollout-schedule',
    slow: true,
    title:
      'Rollout schedules: lockstep rounds vs continuous batching, GRPO math rollouts of the warm start (decoder passes, wall time)',
    run: () =>
      rolloutSchedule({
        log: (line) => process.stderr.write(`${line}\n`),
        ...(flag('schedule-prompts') ? { prompts: Number(flag('schedule-prompts')) } : {}),
        ...(flag('schedule-max-batch') ? { maxBatch: Number(flag('schedule-max-batch')) } : {}),
      }),
  },
  planActSection,
  selfAcSection,
  webGpuSection,
];

/** `--wiki-convert 30000,300000` → [30000, 300000]; `none` → []. */
const sizes = (text: string | undefined): number[] => (text === 'none' ? [] : String(text).split(',').map(Number));

function flag(name: string): string | undefined {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? process.argv[index + 1] : undefined;
}

const DOCUMENT_HEADER = [
  '# Performance benchmarks',
  '',
  'Ratios compare variants measured in the same run; absolute numbers depend on the machine and its load. Each',
  'section says how it was measured (commit, date, Node, cores, load average, command); the figures are also in',
  'the JSON file beside this one, which `npm run bench -- --compare` checks against.',
  '',
].join('\n');

async function main(): Promise<void> {
  const args = parseBenchArguments(process.argv.slice(2));
  if (args.help) {
    process.stdout.write(formatHelp(sections));
    return;
  }
  const recorded = args.compare ? readResults(args.compare) : undefined;
  const names = sections.map((section) => section.name);
  let only = args.only;
  if (!only && recorded) only = Object.keys(recorded.sections).filter((name) => names.includes(name));
  if (only) checkSectionNames(only, names);
  if (only?.length === 0)
    throw new BenchArgumentError(`${args.compare} records none of the sections: ${names.join(', ')}`);
  const checkout = checkoutState();
  const results: Record<string, SectionResult> = {};
  const out: string[] = ['# Performance benchmarks'];
  for (const section of sections) {
    if (only ? !only.includes(section.name) : section.slow) continue;
    // --compare without --duration measures with the duration the recorded figures were measured with.
    const durationMs = args.durationGiven
      ? args.durationMs
      : (recorded?.sections[section.name]?.context.durationMs ?? args.durationMs);
    const context = startContext(checkout, {
      command: commandLine(process.argv.slice(2)),
      durationMs,
      runs: args.runs,
    });
    const runs: string[][] = [];
    for (let run = 0; run < args.runs; run++) {
      process.stderr.write(`running ${section.name}${args.runs > 1 ? ` (${run + 1}/${args.runs})` : ''}…\n`);
      runs.push(await section.run(durationMs));
    }
    const { lines, figures } = combineRuns(runs);
    const finished = context.finish();
    results[section.name] = {
      title: section.title,
      context: finished,
      figures,
      markdown: [describeContext(finished), '', ...lines],
    };
    out.push('', `## ${section.title}`, '', ...results[section.name]!.markdown);
  }
  process.stdout.write(`${out.join('\n')}\n`);
  if (args.write) {
    const document = existsSync(args.write) ? readFileSync(args.write, 'utf8') : DOCUMENT_HEADER;
    const updated = updateMarkdownSections(
      document,
      Object.entries(results).map(([name, result]) => ({ name, title: result.title, lines: result.markdown })),
    );
    writeFileSync(args.write, updated.text.endsWith('\n') ? updated.text : `${updated.text}\n`);
    for (const name of updated.kept)
      process.stderr.write(
        `${args.write}: section ${name} had no bench markers; its old text is kept below the new figures: remove what they replace\n`,
      );
  }
  if (args.json) mergeResults(args.json, results);
  if (recorded) {
    const rows = compareResults(recorded, results, args.threshold);
    process.stdout.write(`\n${formatComparison(rows, recorded, results, args.threshold)}`);
    if (rows.some((row) => row.status === 'regression')) process.exitCode = 1;
  }
}

main().then(
  () => process.exit(process.exitCode ?? 0),
  (error: unknown) => {
    if (error instanceof BenchArgumentError) {
      process.stderr.write(`${error.message} (npm run bench -- --help)\n`);
      process.exit(2);
    }
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  },
);
