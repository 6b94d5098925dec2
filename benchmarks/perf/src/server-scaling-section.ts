import { cpus } from 'node:os';
import { serverScaling } from './server-scaling';

const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');

/** OpenEnv's published figures (tutorial/03-scaling.md, local-uvicorn: 8 cores, 8 workers, wait = 1.0 s). */
const OPENENV_8_CORES: Record<number, string> = {
  256: '—',
  1024: '—',
  2048: '96.5% · P99 1.97 s · 932 req/s',
  4096: '63.8% · P99 3.20 s',
  8192: '36.9% · P99 5.75 s',
  16384: '— (two nodes, 96 cores: 100% · P99 29.8 s · 518 req/s)',
};

/**
 * The `scaling` section of `npm run bench`: OpenEnv's scaling protocol on this machine, OpenEnv's 8-core
 * figures beside ours, memory per held session, and CPU-bound throughput at 1, 2 and N workers.
 */
export async function serverScalingSection(durationMs: number): Promise<string[]> {
  const cores = cpus().length;
  const result = await serverScaling({
    sizes: [256, 1024, 2048, 4096, 8192, 16384],
    workers: [1, 2],
    reps: 3,
    waitMs: 1000,
    holdSessions: 16384,
    cpuMs: 5,
    cpuSessions: 64,
    durationMs,
  });
  const held = (workers: number): number =>
    Math.max(
      0,
      ...result.batches.filter((row) => row.workers === workers && row.successRate >= 0.95).map((row) => row.sessions),
    );
  const lines = [
    `Each request: connect \`/ws\`, reset, one step whose env sleeps ${result.waitMs / 1000} s, close; a batch starts N at once,`,
    `${result.reps} repetitions; a size is held only if every repetition reaches ≥ 95% success (OpenEnv's rule). Client`,
    `timeouts: 60 s to connect, 60 s per reply. Client and server share this ${cores}-core machine;`,
    `open-file limit ${result.openFileLimit}. OpenEnv's column is its published local-uvicorn run (8 cores, 8 workers).`,
    '',
    '| sessions | workers | success (lowest rep) | P50 s | P99 s | requests/s | failures | OpenEnv, 8 cores |',
    '|---:|---:|---:|---:|---:|---:|---|---|',
    ...result.batches.map(
      (row) =>
        `| ${fmt(row.sessions)} | ${row.workers} | ${(100 * row.successRate).toFixed(1)}% | ${(row.p50Ms / 1000).toFixed(2)} | ${(row.p99Ms / 1000).toFixed(2)} | ${fmt(row.requestsPerSecond)} | ${
          Object.entries(row.failures)
            .map(([why, count]) => `${count}× ${why}`)
            .join(', ') || '—'
        } | ${OPENENV_8_CORES[row.sessions] ?? '—'} |`,
    ),
    '',
    `Sessions held at ≥ 95% on ${cores} cores: ${fmt(held(1))} with 1 worker (${fmt(held(1) / cores)} per core), ${fmt(held(2))} with 2 workers; OpenEnv: 2,048 on 8 cores (256 per core), 16,384 on two nodes (96 cores).`,
    '',
    '| workers | sessions held open (connected, reset) | server PSS idle MB | server PSS held MB | KB per session |',
    '|---:|---:|---:|---:|---:|',
    ...result.memory.map(
      (row) =>
        `| ${row.workers} | ${fmt(row.held)} of ${fmt(row.sessions)} | ${row.idleMb.toFixed(0)} | ${row.heldMb.toFixed(0)} | ${row.kbPerSession.toFixed(1)} |`,
    ),
    '',
    `CPU-bound env (each step computes ${result.cpuBound.cpuMs} ms), ${result.cpuBound.sessions} sessions stepping in closed loops:`,
    '',
    '| workers | steps/s | vs 1 worker |',
    '|---:|---:|---:|',
    ...result.cpuBound.rows.map(
      (row) =>
        `| ${row.workers} | ${fmt(row.stepsPerSecond)} | ${(row.stepsPerSecond / (result.cpuBound.rows[0]?.stepsPerSecond ?? 1)).toFixed(2)}× |`,
    ),
  ];
  return lines;
}
