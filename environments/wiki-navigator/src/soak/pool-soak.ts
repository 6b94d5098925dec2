import { runEpisode } from '@turngym/core';
import { RandomNavigator } from '../agents/random-navigator';
import { WikiExpert } from '../agents/wiki-expert';
import { BrowserPool } from '../browser/browser-pool';
import { readFileSync } from 'node:fs';
import { processesInGroups } from '../browser/chromium-processes';
import { WikiNavigatorEnv } from '../wiki-navigator-env';

export interface PoolSoakOptions {
  readonly episodes: number;
  /** Pages in the pool. Default 4. */
  readonly poolSize?: number;
  /** Envs running episodes at once (all sharing the pool). Default 4. */
  readonly concurrency?: number;
  /** Memory samples are taken every this many episodes. Default episodes / 10. */
  readonly sampleEvery?: number;
  /** A page is replaced after this many loads (see `BrowserPoolOptions.recycleAfter`). */
  readonly recycleAfter?: number;
  readonly articles?: number;
  /** A corpus other than the synthetic one: a JSONL file or an on-disk store (`.sqlite`). */
  readonly corpus?: string;
  readonly executablePath?: string;
  readonly onSample?: (sample: PoolSoakSample) => void;
}

export interface PoolSoakSample {
  readonly episodes: number;
  /** Seconds since the soak started. */
  readonly seconds: number;
  /** Proportional memory of the browser's whole process group. */
  readonly browserMb: number;
  /** Resident memory of the browser's processes, summed (shared pages counted in each). */
  readonly browserRssMb: number;
  /** Live Chromium processes (browser, GPU, utility, one renderer per page or site): a leaked tab adds one. */
  readonly browserProcesses: number;
  /** Pages the pool holds open. */
  readonly openPages: number;
  readonly nodeRssMb: number;
  readonly nodeHeapMb: number;
}

export interface PoolSoakReport {
  readonly episodes: number;
  readonly steps: number;
  readonly successes: number;
  /** Episodes that threw (an `EnvFaultError` after a failed retry). */
  readonly errors: number;
  readonly launches: number;
  readonly pagesCreated: number;
  readonly pagesRecycled: number;
  readonly maxOpenPages: number;
  /** Most Chromium processes seen at a sample. */
  readonly maxBrowserProcesses: number;
  readonly samples: readonly PoolSoakSample[];
  /** Browser memory growth from the first sample after warm-up to the largest later one. */
  readonly browserGrowthMb: number;
  readonly nodeHeapGrowthMb: number;
  readonly nodeRssGrowthMb: number;
  /** Live processes left in the browser's process groups after close (must be 0). */
  readonly leftoverProcesses: number;
  readonly wallMs: number;
}

const MB = 1024 * 1024;

/** Summed VmRSS (MiB) of some processes; one that exited meanwhile counts 0. */
function rssMb(pids: readonly number[]): number {
  let kilobytes = 0;
  for (const pid of pids) {
    try {
      const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (match) kilobytes += Number(match[1]);
    } catch {
      // exited between the listing and the read
    }
  }
  return kilobytes / 1024;
}

/**
 * Many episodes through one shared browser pool, alternating QA and race tasks and expert and random agents,
 * sampling the browser's and Node's memory as it goes. The test runs a short one; `run-pool-soak` the full
 * 1,000 episodes whose figure the README states.
 */
export async function runPoolSoak(options: PoolSoakOptions): Promise<PoolSoakReport> {
  const started = performance.now();
  const pool = new BrowserPool({
    size: options.poolSize ?? 4,
    ...(options.recycleAfter ? { recycleAfter: options.recycleAfter } : {}),
    ...(options.executablePath ? { executablePath: options.executablePath } : {}),
  });
  const concurrency = options.concurrency ?? 4;
  const sampleEvery = Math.max(1, options.sampleEvery ?? Math.ceil(options.episodes / 10));
  const base = {
    mode: 'browser' as const,
    articles: options.articles ?? 2000,
    ...(options.corpus ? { corpus: options.corpus } : {}),
  };
  const envs = Array.from(
    { length: concurrency },
    (_, i) => new WikiNavigatorEnv({ ...base, task: i % 2 === 0 ? 'qa' : 'race' }, { browserPool: pool }),
  );
  const samples: PoolSoakSample[] = [];
  let next = 0;
  let done = 0;
  let steps = 0;
  let successes = 0;
  let errors = 0;
  let maxOpenPages = 0;
  const sample = (): void => {
    (globalThis as { gc?: () => void }).gc?.();
    const memory = process.memoryUsage();
    const browser = processesInGroups(pool.launchedProcessGroups);
    const entry = {
      episodes: done,
      seconds: (performance.now() - started) / 1000,
      browserMb: pool.memoryMb(),
      browserRssMb: rssMb(browser),
      browserProcesses: browser.length,
      openPages: pool.stats().openPages,
      nodeRssMb: memory.rss / MB,
      nodeHeapMb: memory.heapUsed / MB,
    };
    samples.push(entry);
    options.onSample?.(entry);
  };
  try {
    await Promise.all(
      envs.map(async (env) => {
        for (let seed = next++; seed < options.episodes; seed = next++) {
          const agent = seed % 3 === 0 ? new RandomNavigator(seed) : new WikiExpert(env);
          try {
            const outcome = await runEpisode(env, agent, seed);
            steps += outcome.turns;
            successes += outcome.success ? 1 : 0;
          } catch {
            errors += 1;
          }
          done += 1;
          maxOpenPages = Math.max(maxOpenPages, pool.stats().openPages);
          if (done % sampleEvery === 0) sample();
        }
      }),
    );
  } finally {
    for (const env of envs) await env.close();
  }
  const stats = pool.stats();
  await pool.close();
  const warm = samples[Math.min(1, samples.length - 1)];
  const later = samples.slice(2);
  return {
    episodes: done,
    steps,
    successes,
    errors,
    launches: stats.launches,
    pagesCreated: stats.pagesCreated,
    pagesRecycled: stats.pagesRecycled,
    maxOpenPages,
    maxBrowserProcesses: Math.max(0, ...samples.map((entry) => entry.browserProcesses)),
    samples,
    browserGrowthMb: warm && later.length > 0 ? Math.max(...later.map((entry) => entry.browserMb)) - warm.browserMb : 0,
    nodeHeapGrowthMb:
      warm && later.length > 0 ? Math.max(...later.map((entry) => entry.nodeHeapMb)) - warm.nodeHeapMb : 0,
    nodeRssGrowthMb: warm && later.length > 0 ? Math.max(...later.map((entry) => entry.nodeRssMb)) - warm.nodeRssMb : 0,
    leftoverProcesses: processesInGroups(pool.launchedProcessGroups).length,
    wallMs: performance.now() - started,
  };
}
