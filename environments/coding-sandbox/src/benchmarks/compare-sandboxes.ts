#!/usr/bin/env node
/**
 * `npm run bench:sandboxes` (node dist/benchmarks/compare-sandboxes.js): measures the three sandbox candidates the
 * issue names — quickjs-emscripten (wasm), isolated-vm 5 in the host process, a locked-down child process per run —
 * and the design chosen from these measurements (isolated-vm inside supervised worker processes, `SandboxPool`).
 * Throughput is evaluations/s of a small solution against 8 tests; each attack runs in a throwaway process, because
 * some of them kill or wedge the process that hosts the sandbox. Prints a markdown report (the README's table).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatRunReport } from '../observations';
import { SandboxPool } from '../sandbox/sandbox-pool';

const CAP_MS = 15000;
const MEMORY_MB = 32;
const TIME_MS = 1000;

// The unit of work, in plain JavaScript with a tiny harness, for the candidates that have no test runner.
const PROGRAM = `
function eq(a, b) { if (a === b) return true; if (!a || !b || typeof a !== 'object' || typeof b !== 'object') return false; const ka = Object.keys(a), kb = Object.keys(b); return ka.length === kb.length && ka.every((k) => eq(a[k], b[k])); }
function reverseWords(s) { return s.split(' ').filter((w) => w.length > 0).reverse().join(' '); }
const cases = [['a b c', 'c b a'], ['', ''], ['  x  y ', 'y x'], ['hello world', 'world hello'], ['one', 'one'], ['a  b', 'b a'], ['q w e r t y', 'y t r e w q'], ['1 2', '2 1']];
let passed = 0; for (const [input, output] of cases) { try { if (eq(reverseWords(input), output)) passed += 1; } catch {} }
passed;`;

interface Attack {
  readonly name: string;
  readonly code: string;
}

const ATTACKS: readonly Attack[] = [
  { name: 'infinite loop', code: 'while (true) {}' },
  { name: 'heap growth (objects)', code: 'const a = []; for (;;) a.push({ x: [1, 2, 3] });' },
  { name: 'new Array(1e9).fill(0)', code: 'new Array(1e9).fill(0)' },
  { name: 'a.length = 1e9; a.sort()', code: 'const a = []; a.length = 1e9; a.sort(); 1' },
  {
    name: 'off-heap buffer 2 GB',
    code: "typeof Buffer === 'function' ? Buffer.alloc(2 ** 31).length : new ArrayBuffer(2 ** 31).byteLength",
  },
  { name: 'host capabilities', code: "[typeof require, typeof process, typeof fetch].join(',')" },
];

type Candidate = 'quickjs' | 'isolated-vm' | 'child process';

function candidateScript(candidate: Exclude<Candidate, 'child process'>, code: string): string {
  const source = JSON.stringify(code);
  if (candidate === 'quickjs') {
    return `const { getQuickJS, shouldInterruptAfterDeadline } = require(${JSON.stringify(require.resolve('quickjs-emscripten'))});
(async () => {
  const QuickJS = await getQuickJS();
  const runtime = QuickJS.newRuntime();
  runtime.setMemoryLimit(${MEMORY_MB} * 1024 * 1024);
  runtime.setMaxStackSize(256 * 1024);
  runtime.setInterruptHandler(shouldInterruptAfterDeadline(Date.now() + ${TIME_MS}));
  const context = runtime.newContext();
  const started = performance.now();
  const result = context.evalCode(${source});
  let outcome;
  if (result.error) { outcome = 'error: ' + String(context.dump(result.error).message ?? context.dump(result.error)); result.error.dispose(); }
  else { outcome = 'ok: ' + JSON.stringify(context.dump(result.value)); result.value.dispose(); }
  console.log(JSON.stringify({ outcome, ms: performance.now() - started }));
})();`;
  }
  return `const ivm = require(${JSON.stringify(require.resolve('isolated-vm'))});
const isolate = new ivm.Isolate({ memoryLimit: ${MEMORY_MB} });
const context = isolate.createContextSync();
const started = performance.now();
let outcome;
try { outcome = 'ok: ' + JSON.stringify(context.evalSync(${source}, { timeout: ${TIME_MS} })); } catch (error) { outcome = 'error: ' + error.message; }
console.log(JSON.stringify({ outcome, ms: performance.now() - started }));`;
}

interface Observed {
  readonly outcome: string;
  readonly ms: number;
}

function describeExit(status: number | null, signal: NodeJS.Signals | null, stderr: string): string {
  if (signal === 'SIGTERM') return `NOT STOPPED: the host process hung until killed at ${CAP_MS / 1000} s`;
  if (/out of memory|invalid size|allocation failed|is_heap_oom|heap limit/i.test(stderr))
    return `HOST PROCESS ABORTED (fatal V8 out-of-memory, ${signal ?? `exit ${status}`})`;
  return `host process died (${signal ?? `exit ${status}`})`;
}

function inThrowawayProcess(candidate: Candidate, code: string, directory: string): Observed {
  const started = performance.now();
  if (candidate === 'child process') {
    // The candidate itself: node with the permission model, an empty environment, killed at the time limit.
    const file = join(directory, 'program.js');
    writeFileSync(file, `console.log(JSON.stringify((0, eval)(${JSON.stringify(code)})));`);
    const run = spawnSync(
      process.execPath,
      ['--experimental-permission', `--allow-fs-read=${file}`, '--max-old-space-size=32', file],
      { env: {}, timeout: TIME_MS, encoding: 'utf8' },
    );
    const ms = performance.now() - started;
    if (run.signal === 'SIGTERM') return { outcome: `killed by the parent at ${TIME_MS} ms`, ms };
    if (run.status !== 0)
      return {
        outcome: /heap|memory/i.test(run.stderr)
          ? 'process died: V8 heap limit'
          : `process died (${run.signal ?? `exit ${run.status}`}): ${run.stderr.split('\n').find((line) => /Error/.test(line)) ?? ''}`.trim(),
        ms,
      };
    return { outcome: `ok: ${run.stdout.trim()}`, ms };
  }
  const run = spawnSync(process.execPath, ['-e', candidateScript(candidate, code)], {
    timeout: CAP_MS,
    encoding: 'utf8',
    maxBuffer: 1 << 20,
  });
  const ms = performance.now() - started;
  const line = run.stdout.trim().split('\n').pop() ?? '';
  if (run.status === 0 && line.startsWith('{')) return JSON.parse(line) as Observed;
  return { outcome: describeExit(run.status, run.signal, run.stderr), ms };
}

function throughputInProcess(candidate: Exclude<Candidate, 'child process'>, durationMs: number): number {
  const script = `${candidate === 'quickjs' ? `const { getQuickJS, shouldInterruptAfterDeadline } = require(${JSON.stringify(require.resolve('quickjs-emscripten'))});` : `const ivm = require(${JSON.stringify(require.resolve('isolated-vm'))});`}
(async () => {
  const PROGRAM = ${JSON.stringify(PROGRAM)};
  let run;
  ${
    candidate === 'quickjs'
      ? `const QuickJS = await getQuickJS();
  const runtime = QuickJS.newRuntime();
  runtime.setMemoryLimit(${MEMORY_MB} * 1024 * 1024);
  runtime.setMaxStackSize(256 * 1024);
  run = () => { const context = runtime.newContext(); try { runtime.setInterruptHandler(shouldInterruptAfterDeadline(Date.now() + ${TIME_MS})); return context.dump(context.unwrapResult(context.evalCode(PROGRAM))); } finally { context.dispose(); } };`
      : `const isolate = new ivm.Isolate({ memoryLimit: ${MEMORY_MB} });
  run = () => { const context = isolate.createContextSync(); try { return context.evalSync(PROGRAM, { timeout: ${TIME_MS} }); } finally { context.release(); } };`
  }
  if (run() !== 8) throw new Error('wrong result');
  for (let i = 0; i < 200; i++) run();
  let count = 0;
  const started = performance.now();
  while (performance.now() - started < ${durationMs}) { run(); count += 1; }
  console.log(count / ((performance.now() - started) / 1000));
})();`;
  const result = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: durationMs + 30000 });
  return Number(result.stdout.trim());
}

function throughputChildProcess(durationMs: number, directory: string): number {
  const file = join(directory, 'throughput.js');
  writeFileSync(file, `${PROGRAM.replace(/passed;\s*$/, 'console.log(passed);')}`);
  let count = 0;
  const started = performance.now();
  while (performance.now() - started < durationMs) {
    const run = spawnSync(process.execPath, ['--experimental-permission', `--allow-fs-read=${file}`, file], {
      env: {},
      encoding: 'utf8',
      timeout: TIME_MS,
    });
    if (run.stdout.trim() !== '8') throw new Error(`child process candidate failed: ${run.stderr}`);
    count += 1;
  }
  return count / ((performance.now() - started) / 1000);
}

async function chosenDesign(
  durationMs: number,
): Promise<{ sequential: number; concurrent: number; attacks: Observed[] }> {
  const pool = new SandboxPool({ workers: 2 });
  try {
    const limits = { timeMs: TIME_MS, totalTimeMs: 5 * TIME_MS, memoryMb: MEMORY_MB, outputChars: 2000 };
    const request = {
      files: {
        'solution.ts':
          'export function reverseWords(s: string): string {\n  return s.split(" ").filter((w) => w.length > 0).reverse().join(" ");\n}\n',
      },
      job: {
        type: 'tests' as const,
        snippets: {
          setup: "import { reverseWords } from './solution';",
          tests: [
            ['a b c', 'c b a'],
            ['', ''],
            ['  x  y ', 'y x'],
            ['hello world', 'world hello'],
            ['one', 'one'],
            ['a  b', 'b a'],
            ['q w e r t y', 'y t r e w q'],
            ['1 2', '2 1'],
          ].map(
            ([input, output]) => `expect(reverseWords(${JSON.stringify(input)})).toEqual(${JSON.stringify(output)});`,
          ),
        },
      },
      limits,
    };
    for (let i = 0; i < 100; i++) await pool.evaluate(request);
    const measure = async (inFlight: number): Promise<number> => {
      let count = 0;
      const started = performance.now();
      await Promise.all(
        Array.from({ length: inFlight }, async () => {
          while (performance.now() - started < durationMs) {
            await pool.evaluate(request);
            count += 1;
          }
        }),
      );
      return count / ((performance.now() - started) / 1000);
    };
    const sequential = await measure(1);
    const concurrent = await measure(4);
    const attacks: Observed[] = [];
    for (const attack of ATTACKS) {
      const started = performance.now();
      const result = await pool.evaluate({ files: {}, job: { type: 'run', code: attack.code }, limits });
      const report = formatRunReport('(code)', result).split('\n');
      attacks.push({
        outcome: (report[0] === 'RUN (code): finished.' ? report[1] : report[1]?.trim()) ?? '',
        ms: performance.now() - started,
      });
    }
    return { sequential, concurrent, attacks };
  } finally {
    await pool.close();
  }
}

async function main(): Promise<void> {
  const durationMs = Number(process.argv[process.argv.indexOf('--duration') + 1] || 3000);
  const directory = mkdtempSync(join(tmpdir(), 'turngym-sandboxes-'));
  try {
    const candidates: Candidate[] = ['quickjs', 'isolated-vm', 'child process'];
    const rate: Record<string, number> = {
      quickjs: throughputInProcess('quickjs', durationMs),
      'isolated-vm': throughputInProcess('isolated-vm', durationMs),
      'child process': throughputChildProcess(durationMs, directory),
    };
    const chosen = await chosenDesign(durationMs);
    const cell = (observed: Observed): string =>
      `${observed.outcome.replace(/\|/g, '/').slice(0, 110)} (${Math.round(observed.ms)} ms)`;
    const lines = [
      `# Sandbox candidates, measured ${new Date().toISOString().slice(0, 10)} (Node ${process.version}, ${cpus().length} cores, ${cpus()[0]?.model ?? 'unknown CPU'})`,
      '',
      `Limits: ${TIME_MS} ms, ${MEMORY_MB} MB. Each attack ran in a throwaway process (capped at ${CAP_MS / 1000} s) so that the host of the benchmark survives.`,
      '',
      `| | ${candidates.join(' | ')} | chosen: isolated-vm in worker processes |`,
      `|---|${candidates.map(() => '---|').join('')}---|`,
      `| evaluations/s (small solution, 8 tests) | ${candidates.map((candidate) => Math.round(rate[candidate] ?? 0)).join(' | ')} | ${Math.round(chosen.sequential)} (1 in flight), ${Math.round(chosen.concurrent)} (4 in flight, 2 workers) |`,
    ];
    for (const [index, attack] of ATTACKS.entries()) {
      const row = candidates.map((candidate) => cell(inThrowawayProcess(candidate, attack.code, directory)));
      lines.push(`| ${attack.name} | ${row.join(' | ')} | ${cell(chosen.attacks[index] as Observed)} |`);
    }
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
