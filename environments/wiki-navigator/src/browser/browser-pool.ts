import { defineOptions, EnvFaultError, runUnowned, type JSONSchemaType } from '@turngym/core';
import type { Browser, CDPSession, Page } from 'puppeteer-core';
import { createBrowserProfile, type BrowserProfile } from './browser-profiles';
import { BrowserTab } from './browser-tab';
import { findChromium, isHeadlessShell, NO_CHROMIUM_MESSAGE } from './chromium-executable';
import { killProcessGroup, processGroupCpuMs, processGroupPssMb, processesInGroups } from './chromium-processes';

export interface BrowserPoolOptions {
  /** Pages (tabs) kept open; at most this many page loads run at once. Default 4. */
  readonly size?: number;
  /** Browser executable; default `findChromium()` (option, `TURNGYM_CHROMIUM`, system paths). */
  readonly executablePath?: string;
  /** Longest wait for the browser to start. Default 30 s. */
  readonly launchTimeoutMs?: number;
  /** Longest a page task (navigation + extraction) may take before the page counts as hung. Default 15 s. */
  readonly taskTimeoutMs?: number;
  /** A page is replaced after this many tasks, bounding renderer memory over long runs. Default 200. */
  readonly recycleAfter?: number;
  /**
   * Run the compositor on each renderer's main thread (`MAIN_THREAD_COMPOSITING_ARGS`): about 15% less CPU per
   * page load on 2 cores. Default true. Turn it off when `withPage` callers take screenshots or click: with
   * these flags Puppeteer's `page.screenshot` and `page.click` hang in the headless shell.
   */
  readonly mainThreadCompositing?: boolean;
  /** Extra Chromium flags. */
  readonly extraArgs?: readonly string[];
}

/**
 * Checked at construction: a pool size or timeout read from a flag or an environment variable is NaN when
 * the value is missing, and a NaN size let no page open, so the first page load waited forever.
 */
const browserPoolOptionsSchema = {
  type: 'object',
  additionalProperties: false,
  required: [],
  properties: {
    size: { type: 'integer', minimum: 1, maximum: 256, nullable: true },
    executablePath: { type: 'string', minLength: 1, nullable: true },
    launchTimeoutMs: { type: 'integer', minimum: 100, nullable: true },
    taskTimeoutMs: { type: 'integer', minimum: 100, nullable: true },
    recycleAfter: { type: 'integer', minimum: 1, nullable: true },
    mainThreadCompositing: { type: 'boolean', nullable: true },
    extraArgs: { type: 'array', items: { type: 'string' }, nullable: true },
  },
} as unknown as JSONSchemaType<BrowserPoolOptions>;

const validateBrowserPoolOptions = defineOptions<BrowserPoolOptions>('BrowserPool', browserPoolOptionsSchema);

export interface BrowserPoolStats {
  /** Browser processes started (1 + restarts after crashes). */
  readonly launches: number;
  readonly pagesCreated: number;
  /** Pages replaced after `recycleAfter` tasks. */
  readonly pagesRecycled: number;
  /** Failed tasks that were retried (after replacing the page or relaunching the browser). */
  readonly retries: number;
  readonly tasks: number;
  /** Pages open now (idle + busy). */
  readonly openPages: number;
  readonly busyPages: number;
  readonly waiting: number;
}

/**
 * Flags for a headless Chromium that talks to nothing but our loopback server. `--no-sandbox`: the pages are
 * escaped corpus text without scripts, and the sandbox fails as root, in containers and on CI runners that
 * restrict user namespaces. The resolver rule fails every lookup except loopback, so Chromium's own
 * background traffic (Google hosts) cannot leave the machine or stall on a missing network.
 */
export const CHROMIUM_ARGS: readonly string[] = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
  '--no-first-run',
  '--disable-domain-reliability',
  '--disable-client-side-phishing-detection',
  '--disable-extensions',
  '--mute-audio',
  // A pooled tab never goes back (BACK is replayed from Node's history), so cached documents only cost memory.
  // RenderDocument (on by default in recent Chromium) builds a new frame, widget and compositor for every
  // navigation; off, a same-site navigation reuses them: 40% less CPU per page load on Chromium 156 (issue 32).
  '--disable-features=BackForwardCache,Translate,OptimizationHints,MediaRouter,RenderDocument',
  '--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE localhost , EXCLUDE 127.0.0.1',
];

/**
 * The compositor on the renderer's main thread: the pages are static, and on 2 cores the thread hops cost more
 * than the parallelism gives (about 15% less CPU per page load). Kept apart from `CHROMIUM_ARGS` because
 * Puppeteer's screenshots and clicks hang under them in the headless shell (`mainThreadCompositing: false`).
 */
export const MAIN_THREAD_COMPOSITING_ARGS: readonly string[] = [
  '--disable-threaded-compositing',
  '--disable-threaded-animation',
  '--disable-threaded-scrolling',
];

/** A pooled tab: a Puppeteer page (`withPage`) or a bare tab (`withTab`); both count towards `size`. */
interface PooledPage {
  readonly page?: Page;
  readonly tab?: BrowserTab;
  readonly generation: number;
  tasks: number;
}

interface Running {
  readonly browser: Browser;
  readonly pid: number;
  readonly profile: BrowserProfile;
  readonly generation: number;
  /** A session on the browser target, opened with the first bare tab (it creates and closes them). */
  root?: Promise<CDPSession>;
}

type PageKind = 'page' | 'tab';

class TimeoutError extends Error {}

/**
 * A closed pool stays closed: no retry of the call, the step or the episode can succeed on it, so the fault is
 * not retryable (an `EnvFaultError` is by default), and a runner that retries retryable faults gives up at once
 * instead of replaying episodes against it. Closing a pool its envs still use is the owner's mistake.
 */
function closedPoolError(message: string, cause?: unknown): EnvFaultError {
  return new EnvFaultError(message, { isRetryable: false, ...(cause === undefined ? {} : { cause }) });
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimeoutError(`${what} took longer than ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * A pool of pages in one lazily launched Chromium (puppeteer-core; it never downloads a browser).
 *
 * Envs borrow a page per page load (`withPage`), not per episode, so any number of envs share `size` pages
 * and the state of an episode lives in Node, not in a tab. Faults: a task that throws or hangs
 * (`taskTimeoutMs`) discards its page; if the browser died it is relaunched (its whole process group killed
 * first); the task is then retried once, and a second failure is an `EnvFaultError`.
 *
 * Sharing: `retain()`/`release()` count users; the last release closes the browser, removes its profile
 * directory and kills its process group, so no Chromium process outlives the pool's last user.
 *
 * The browser, its tabs and their handlers and timers serve every env that shares the pool: they are started as
 * no session's code (`runUnowned`), whichever env's page load happened to start them, so that an env server
 * does not close that session for a later fault of the pool's. A task is its caller's: it runs in the caller's
 * scope, and its failure rejects the caller's promise.
 */
export class BrowserPool {
  readonly size: number;
  private readonly options: BrowserPoolOptions;
  private running: Running | undefined;
  private launching: Promise<Running> | undefined;
  private generation = 0;
  private idle: PooledPage[] = [];
  private readonly busy = new Set<PooledPage>();
  private pageCount = 0;
  private waiters: Array<() => void> = [];
  private references = 0;
  private closed = false;
  private readonly groups: number[] = [];
  private readonly shutdowns = new Set<Promise<void>>();
  private counters = { launches: 0, pagesCreated: 0, pagesRecycled: 0, retries: 0, tasks: 0 };

  constructor(options: BrowserPoolOptions = {}) {
    this.options = validateBrowserPoolOptions(options);
    this.size = this.options.size ?? 4;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** The running browser's pid (its process group id), if one is running. */
  get browserPid(): number | undefined {
    return this.running?.pid;
  }

  /** Every process group this pool ever started (tests assert none has a live process after close). */
  get launchedProcessGroups(): readonly number[] {
    return this.groups;
  }

  stats(): BrowserPoolStats {
    return { ...this.counters, openPages: this.pageCount, busyPages: this.busy.size, waiting: this.waiters.length };
  }

  /**
   * Resolves once every browser shutdown started so far has finished: its process group killed and reaped
   * (or still alive after 5 s), its profile removed. A crashed browser is shut down in the background while
   * the retry goes on, so callers that count leftover processes after a crash wait on this first.
   */
  async settled(): Promise<void> {
    while (this.shutdowns.size > 0) await Promise.all(this.shutdowns);
  }

  /** Proportional memory of the browser and all its helper processes (0 when not running). */
  memoryMb(): number {
    return this.running ? processGroupPssMb(this.running.pid) : 0;
  }

  /** CPU time (ms) used so far by the running browser's processes (0 when not running). */
  cpuMs(): number {
    return this.running ? processGroupCpuMs(this.running.pid) : 0;
  }

  retain(): this {
    if (this.closed) throw closedPoolError('the browser pool is closed');
    this.references += 1;
    return this;
  }

  /** Drops one reference; the last one closes the pool. */
  async release(): Promise<void> {
    this.references = Math.max(0, this.references - 1);
    if (this.references === 0) await this.close();
  }

  /**
   * Runs `task` on a pooled page. A failure or hang replaces the page (and the browser, if it died) and the
   * task runs once more; a second failure throws `EnvFaultError`. The task must be safe to repeat.
   */
  withPage<T>(task: (page: Page) => Promise<T>): Promise<T> {
    return this.run('page', (pooled) => task(pooled.page as Page));
  }

  /**
   * `withPage` for a bare tab (`BrowserTab`: one CDP command and one event per page load, no Puppeteer page);
   * the same pool, limits, timeouts and retries. The env's page loads use this.
   */
  withTab<T>(task: (tab: BrowserTab) => Promise<T>): Promise<T> {
    return this.run('tab', (pooled) => task(pooled.tab as BrowserTab));
  }

  private async run<T>(kind: PageKind, task: (pooled: PooledPage) => Promise<T>): Promise<T> {
    let lastError: unknown;
    for (let attempt = 0; attempt < 2; attempt++) {
      if (attempt > 0) this.counters.retries += 1;
      let pooled: PooledPage | undefined;
      try {
        pooled = await this.acquire(kind);
        this.counters.tasks += 1;
        const result = await withTimeout(task(pooled), this.options.taskTimeoutMs ?? 15_000, 'a page task');
        this.giveBack(pooled);
        return result;
      } catch (error) {
        lastError = error;
        if (pooled) this.discard(pooled);
        if (this.closed) break;
        if (error instanceof EnvFaultError && !error.isRetryable) break;
        // A crashed browser may not have reported its disconnection yet: ask it. A dead one fails the health
        // check at once, a hung one after 2 s; either way the retry gets a fresh browser.
        const running = this.running;
        if (running && (!running.browser.connected || !(await this.responds(running)))) this.forgetBrowser(running);
      }
    }
    const reason = lastError instanceof Error ? lastError.message : String(lastError);
    if (this.closed) throw closedPoolError(`the browser pool was closed during a page load (${reason})`, lastError);
    throw new EnvFaultError(`browser page load failed twice: ${reason}`, { cause: lastError });
  }

  /** Closes every page and the browser, kills its process group and removes its profile. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
    const launching = this.launching;
    if (launching) await launching.catch(() => undefined);
    const running = this.running;
    if (running) await this.shutdown(running);
    this.idle = [];
    this.pageCount = 0;
  }

  private async acquire(kind: PageKind): Promise<PooledPage> {
    for (;;) {
      if (this.closed) throw closedPoolError('the browser pool is closed');
      const running = await this.ensureBrowser();
      const stale = this.idle.findIndex((pooled) => pooled.generation !== running.generation || isClosed(pooled));
      if (stale >= 0) {
        // Closed too (a renderer that crashed while idle, say to the OOM killer): dropped without closing, its
        // dead target stayed open in the browser, and its listener on the browser, one more per crash.
        const [gone] = this.idle.splice(stale, 1) as [PooledPage];
        this.pageCount -= 1;
        void this.closePage(gone);
        continue;
      }
      const index = this.idle.findLastIndex((pooled) => kindOf(pooled) === kind);
      if (index >= 0) {
        const [idle] = this.idle.splice(index, 1) as [PooledPage];
        this.busy.add(idle);
        return idle;
      }
      // Full, and only tabs of the other kind idle: one of them makes room.
      if (this.pageCount >= this.size && this.idle.length > 0) {
        const other = this.idle.shift() as PooledPage;
        this.pageCount -= 1;
        void this.closePage(other);
      }
      if (this.pageCount < this.size) {
        this.pageCount += 1;
        try {
          const opened = withTimeout(
            runUnowned(() => this.open(kind, running)),
            this.options.launchTimeoutMs ?? 30_000,
            'opening a page',
          );
          const pooled: PooledPage = { ...(await opened), generation: running.generation, tasks: 0 };
          this.counters.pagesCreated += 1;
          this.busy.add(pooled);
          return pooled;
        } catch (error) {
          this.pageCount -= 1;
          this.wake();
          throw error;
        }
      }
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  private async open(kind: PageKind, running: Running): Promise<{ page?: Page; tab?: BrowserTab }> {
    if (kind === 'page') return { page: await running.browser.newPage() };
    if (!running.root) {
      const root = running.browser.target().createCDPSession();
      running.root = root;
      root.catch(() => {
        if (running.root === root) running.root = undefined; // the next tab tries again
      });
    }
    return { tab: await BrowserTab.open(running.browser, await running.root) };
  }

  private giveBack(pooled: PooledPage): void {
    this.busy.delete(pooled);
    pooled.tasks += 1;
    if (pooled.tasks >= (this.options.recycleAfter ?? 200) || this.closed || pooled.generation !== this.generation) {
      if (pooled.tasks >= (this.options.recycleAfter ?? 200)) this.counters.pagesRecycled += 1;
      this.pageCount -= 1;
      void this.closePage(pooled);
    } else {
      this.idle.push(pooled);
    }
    this.wake();
  }

  /** A page that failed or hung is never reused. */
  private discard(pooled: PooledPage): void {
    if (!this.busy.delete(pooled)) return;
    this.pageCount -= 1;
    void this.closePage(pooled);
    this.wake();
  }

  private closePage(pooled: PooledPage): Promise<void> {
    return runUnowned(() => this.closePageNow(pooled));
  }

  private async closePageNow(pooled: PooledPage): Promise<void> {
    try {
      await withTimeout(
        pooled.page ? pooled.page.close() : (pooled.tab as BrowserTab).close(),
        2_000,
        'closing a page',
      );
    } catch {
      // a crashed or hung tab: the browser's shutdown (or group kill) takes it with it
    }
  }

  private async responds(running: Running): Promise<boolean> {
    try {
      await withTimeout(running.browser.version(), 2_000, 'a browser health check');
      return true;
    } catch {
      return false;
    }
  }

  private wake(): void {
    this.waiters.shift()?.();
  }

  private async ensureBrowser(): Promise<Running> {
    if (this.running && this.running.browser.connected) return this.running;
    if (this.running) this.forgetBrowser(this.running);
    if (!this.launching) {
      this.launching = runUnowned(() =>
        this.launch().finally(() => {
          this.launching = undefined;
        }),
      );
    }
    return this.launching;
  }

  private async launch(): Promise<Running> {
    const executablePath = findChromium(this.options.executablePath);
    if (!executablePath) throw new EnvFaultError(NO_CHROMIUM_MESSAGE, { isRetryable: false });
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const puppeteer = require('puppeteer-core') as typeof import('puppeteer-core');
    const profile = createBrowserProfile();
    let browser: Browser;
    try {
      browser = await puppeteer.launch({
        executablePath,
        headless: isHeadlessShell(executablePath) ? 'shell' : true,
        pipe: true,
        userDataDir: profile.directory,
        args: [
          ...CHROMIUM_ARGS,
          ...(this.options.mainThreadCompositing === false ? [] : MAIN_THREAD_COMPOSITING_ARGS),
          ...(this.options.extraArgs ?? []),
        ],
        timeout: this.options.launchTimeoutMs ?? 30_000,
        protocolTimeout: Math.max(30_000, this.options.taskTimeoutMs ?? 15_000),
        // Puppeteer's network and issue tracking cost the browser process CPU on every navigation, and the
        // pool needs neither (pages are checked by what the extraction reads, not by HTTPResponse objects).
        networkEnabled: false,
        issuesEnabled: false,
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false,
      });
    } catch (error) {
      profile.remove();
      throw new EnvFaultError(`could not launch ${executablePath}: ${(error as Error).message}`, { cause: error });
    }
    const child = browser.process();
    // A pool its owner forgot to close must not keep Node running once its work is done (the corpus server
    // is unref'd for the same reason): the browser and its pipes do not hold the event loop open, and the
    // exit hook of `browser-profiles` kills the browser and removes its profile. Work in flight still holds
    // the loop: every launch, page task and close runs under a timer.
    child?.unref();
    for (const stream of child?.stdio ?? []) (stream as { unref?: () => void } | null)?.unref?.();
    const pid = child?.pid ?? -1;
    if (pid > 0) profile.group = pid;
    this.counters.launches += 1;
    if (pid > 0) this.groups.push(pid);
    this.generation += 1;
    const running: Running = { browser, pid, profile, generation: this.generation };
    browser.on('disconnected', () => {
      if (this.running === running) this.forgetBrowser(running);
    });
    this.running = running;
    if (this.closed) {
      await this.shutdown(running);
      throw closedPoolError('the browser pool was closed while the browser started');
    }
    return running;
  }

  /** A crashed or killed browser: drop its pages, kill what is left of its process group, clean its profile. */
  private forgetBrowser(running: Running): void {
    if (this.running !== running) return;
    this.running = undefined;
    for (const pooled of this.idle) if (pooled.generation === running.generation) this.pageCount -= 1;
    this.idle = this.idle.filter((pooled) => pooled.generation !== running.generation);
    void this.shutdown(running);
  }

  private shutdown(running: Running): Promise<void> {
    const shutdown: Promise<void> = runUnowned(() =>
      this.shutdownNow(running).finally(() => this.shutdowns.delete(shutdown)),
    );
    this.shutdowns.add(shutdown);
    return shutdown;
  }

  private async shutdownNow(running: Running): Promise<void> {
    if (this.running === running) this.running = undefined;
    try {
      await withTimeout(running.browser.close(), 5_000, 'closing the browser');
    } catch {
      // crashed or hung: the group kill below is the real guarantee
    }
    if (running.pid > 0) {
      killProcessGroup(running.pid);
      // Wait for the kernel to reap (helpers are not our children, so /proc is the only place to see them
      // go); callers (and tests) then see no live process in the group. Bounded for a process stuck in D.
      for (let i = 0; i < 250 && processesInGroups([running.pid]).length > 0; i++)
        await new Promise((resolve) => setTimeout(resolve, 20));
    }
    running.profile.remove();
  }
}

function kindOf(pooled: PooledPage): PageKind {
  return pooled.page ? 'page' : 'tab';
}

function isClosed(pooled: PooledPage): boolean {
  return pooled.page ? pooled.page.isClosed() : (pooled.tab as BrowserTab).isClosed();
}
