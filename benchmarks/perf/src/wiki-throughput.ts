import { runEpisode } from '@turngym/core';
import type { Action, Agent } from '@turngym/spec';
import {
  BrowserPool,
  RandomNavigator,
  WikiExpert,
  WikiNavigatorEnv,
  type WikiNavigatorOptions,
} from '@turngym/env-wiki-navigator';

export interface WikiThroughputOptions {
  /** How long each mode runs (after a warm-up that builds the corpus and launches the browser). */
  durationMs: number;
  /** Direct mode's page cache (default: the env's default, 4096; 0 fetches and parses every page). */
  directPageCache?: number;
}

export interface WikiThroughput {
  directStepsPerSecond: number;
  browserStepsPerSecond: number;
  pagesInPool: number;
  /** Extra proportional memory (PSS) of the browser for each extra pooled page. */
  memoryPerPageMb: number;
  /** CPU time per step (Node), a figure that other load on the machine does not inflate much. */
  directCpuMsPerStep: number;
  /** CPU time per step, Node plus every Chromium process. */
  browserCpuMsPerStep: number;
}

const POOL_PAGES = 4;
const CONCURRENT_ENVS = 4;

interface Run {
  stepsPerSecond: number;
  cpuMsPerStep: number;
}

/**
 * Steps per second of `turngym/wiki-*` in both modes on one workload: 4 envs at once (2 QA, 2 races), the
 * scripted expert and the random surfer in turn, new seeds until the time is up. Browser mode shares one pool
 * of 4 pages (the goal: ≥ 50 steps/s on 2 cores); direct mode runs the same envs without a browser
 * (goal ≥ 2,000 steps/s). CPU per step is reported beside each rate: on a shared machine the rate moves with
 * the other load, the CPU cost much less.
 */
export async function wikiThroughput(options: WikiThroughputOptions): Promise<WikiThroughput> {
  const pool = new BrowserPool({ size: POOL_PAGES });
  try {
    const memoryPerPageMb = await measurePageMemory(pool);
    const direct = await measure(
      { mode: 'direct', ...(options.directPageCache !== undefined ? { pageCache: options.directPageCache } : {}) },
      undefined,
      options.durationMs,
    );
    const browser = await measure({ mode: 'browser' }, pool, options.durationMs);
    return {
      directStepsPerSecond: direct.stepsPerSecond,
      browserStepsPerSecond: browser.stepsPerSecond,
      pagesInPool: POOL_PAGES,
      memoryPerPageMb,
      directCpuMsPerStep: direct.cpuMsPerStep,
      browserCpuMsPerStep: browser.cpuMsPerStep,
    };
  } finally {
    await pool.close();
  }
}

async function measure(
  options: Partial<WikiNavigatorOptions>,
  pool: BrowserPool | undefined,
  durationMs: number,
): Promise<Run> {
  const envs = Array.from(
    { length: CONCURRENT_ENVS },
    (_, i) =>
      new WikiNavigatorEnv({ ...options, task: i % 2 === 0 ? 'qa' : 'race' }, pool ? { browserPool: pool } : {}),
  );
  const agentFor = (env: WikiNavigatorEnv, seed: number): Agent<string, Action> =>
    seed % 2 === 0 ? new WikiExpert(env) : new RandomNavigator(seed);
  try {
    // Warm-up outside the timed window: corpus, task bank, search index, server, browser and pages.
    await Promise.all(envs.map((env, i) => runEpisode(env, agentFor(env, i), i)));
    await Promise.all(envs.map((env, i) => runEpisode(env, agentFor(env, i + 1), i + 1)));
    let steps = 0;
    let seed = 1000;
    const cpuBefore = process.cpuUsage();
    const browserCpuBefore = pool?.cpuMs() ?? 0;
    const started = performance.now();
    const deadline = started + durationMs;
    await Promise.all(
      envs.map(async (env) => {
        while (performance.now() < deadline) {
          const current = seed++;
          // Awaited first: `steps += await …` would read `steps` before the await and lose other envs' steps.
          const outcome = await runEpisode(env, agentFor(env, current), current);
          steps += outcome.turns;
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    const cpuMs = (cpu.user + cpu.system) / 1000 + ((pool?.cpuMs() ?? 0) - browserCpuBefore);
    return { stepsPerSecond: steps / seconds, cpuMsPerStep: cpuMs / Math.max(1, steps) };
  } finally {
    for (const env of envs) await env.close();
  }
}

/** PSS of the browser with 1 page open, then with the pool full; the difference per extra page. */
async function measurePageMemory(pool: BrowserPool): Promise<number> {
  const env = new WikiNavigatorEnv({ mode: 'browser', task: 'race' }, { browserPool: pool });
  const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 500));
  try {
    for (let seed = 0; seed < 3; seed++) await env.reset({ seed });
    await settle();
    const onePage = pool.memoryMb();
    const others = Array.from(
      { length: POOL_PAGES },
      () => new WikiNavigatorEnv({ mode: 'browser', task: 'race' }, { browserPool: pool }),
    );
    try {
      for (let round = 0; round < 3; round++) {
        await Promise.all(others.map((other, i) => other.reset({ seed: 10 * round + i })));
      }
    } finally {
      for (const other of others) await other.close();
    }
    await settle();
    return (pool.memoryMb() - onePage) / Math.max(1, pool.stats().openPages - 1);
  } finally {
    await env.close();
  }
}
