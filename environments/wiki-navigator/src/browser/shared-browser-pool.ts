import { BrowserPool, type BrowserPoolOptions } from './browser-pool';

const pools = new Map<string, BrowserPool>();

/**
 * The process-wide pool for envs that were not handed one: envs with the same browser settings share one
 * Chromium, each holding a reference; the last env's `close()` shuts the browser down.
 */
export function retainSharedBrowserPool(options: BrowserPoolOptions): BrowserPool {
  const key = JSON.stringify([options.executablePath ?? '', options.size ?? 4, options.taskTimeoutMs ?? 15_000]);
  let pool = pools.get(key);
  if (!pool || pool.isClosed) {
    pool = new BrowserPool(options);
    pools.set(key, pool);
  }
  return pool.retain();
}
