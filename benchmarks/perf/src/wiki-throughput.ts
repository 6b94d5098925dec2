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
}

export interface WikiThroughput {
  /** Direct mode with its page cache holding every article (the steady state of a long run). */
  directStepsPerSecond: number;
  /** Direct mode with no page cache: every page rendered, parsed and extracted (a cold run's cost). */
  directUncachedStepsPerSecond: number;
  directUncachedCpuMsPerStep: number;
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
 * of 4 pages (goal: ≥ 50 steps/s on 2 cores). Direct mode is measured twice: with its page cache already
 * holding every article, as after the first minutes of a long run (goal ≥ 10k steps/s), and with no cache,
 * every page rendered, parsed and extracted. The cache used to fill inside the timed window, so the figure
 * depended on how much of the window was spent filling it: 2× between runs, and more with a longer --duration.
 * CPU per step is reported beside each rate: on a shared machine the rate moves with the other load, the CPU
 * cost much less.
 */
export async function wikiThroughput(options: WikiThroughputOptions): Promise<WikiThroughput> {
  const pool = new BrowserPool({ size: POOL_PAGES });
  try {
    const memoryPerPageMb = await measurePageMemory(pool);
    const direct = await measure({ mode: 'direct' }, undefined, options.durationMs, true);
    const uncached = await measure({ mode: 'direct', pageCache: 0 }, undefined, options.durationMs, false);
    const browser = await measure({ mode: 'browser' }, pool, options.durationMs, false);
    return {
      directStepsPerSecond: direct.stepsPerSecond,
      directUncachedStepsPerSecond: uncached.stepsPerSecond,
      directUncachedCpuMsPerStep: uncached.cpuMsPerStep,
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

/**
 * Opens every article of the corpus once through `env` (a QA env: NAVIGATE), so the page cache its server
 * shares with the other envs holds them all. Search pages stay uncached: queries keep changing.
 */
async function fillPageCache(env: WikiNavigatorEnv): Promise<void> {
  const corpus = env.corpus as WikiNavigatorEnv['corpus'] & { articles?(): readonly { title: string }[] };
  const titles = corpus.articles?.().map((article) => article.title) ?? [];
  let open = false;
  for (const title of titles) {
    if (!open) await env.reset({ seed: 0 });
    const outcome = await env.step({ name: 'NAVIGATE', arguments: { title } });
    open = !(outcome.terminated || outcome.truncated);
  }
}

async function measure(
  options: Partial<WikiNavigatorOptions>,
  pool: BrowserPool | undefined,
  durationMs: number,
  fillCache: boolean,
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
    if (fillCache) await fillPageCache(envs[0] as WikiNavigatorEnv);
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
