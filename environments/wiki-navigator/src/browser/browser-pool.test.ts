import {
  currentFaultOwner,
  EnvFaultError,
  InvalidOptionsError,
  runOwnedBy,
  runUnowned,
  trackEnvFaultOwners,
  type EnvFaultOwner,
} from '@turngym/core';
import { BrowserPool } from './browser-pool';
import { findChromium } from './chromium-executable';

// Construction only: nothing here launches a browser.
describe('BrowserPool options', () => {
  it('rejects a size or timeout that is not a number it can use, naming the field', () => {
    // Number(process.env.POOL) with POOL unset: a NaN size let no page open, and the first load waited forever.
    const bad: Array<[object, RegExp]> = [
      [{ size: Number(undefined) }, /options\.size must be integer \(got NaN\)/],
      [{ size: 0 }, /options\.size must be >= 1/],
      [{ taskTimeoutMs: Number('15s') }, /options\.taskTimeoutMs must be integer/],
      [{ taskTimeoutMs: -5 }, /options\.taskTimeoutMs must be >= 100/],
      [{ launchTimeoutMs: 0 }, /options\.launchTimeoutMs must be >= 100/],
      [{ recycleAfter: 0 }, /options\.recycleAfter must be >= 1/],
      [{ sise: 2 }, /unknown field "sise"/],
    ];
    for (const [options, message] of bad) {
      const error = (() => {
        try {
          new BrowserPool(options);
        } catch (caught) {
          return caught;
        }
        return undefined;
      })();
      expect(error).toBeInstanceOf(InvalidOptionsError);
      expect((error as Error).message).toMatch(message);
    }
  });

  it('keeps the defaults and the options it is given', () => {
    expect(new BrowserPool().size).toBe(4);
    expect(new BrowserPool({ size: undefined, executablePath: undefined }).size).toBe(4);
    expect(new BrowserPool({ size: 2, taskTimeoutMs: 2500, extraArgs: ['--lang=en'] }).size).toBe(2);
  });

  it('refuses work once closed, as a fault no retry can fix (not retryable)', async () => {
    // A runner retries retryable faults: a closed pool would have it replay episodes that can only fail again.
    const pool = new BrowserPool({ executablePath: '/nonexistent/chromium' });
    await pool.close();
    const refusals = [
      await Promise.resolve()
        .then(() => pool.retain())
        .catch((error: unknown) => error),
      await pool.withTab(async () => 'loaded').catch((error: unknown) => error),
      await pool.withPage(async () => 'loaded').catch((error: unknown) => error),
    ];
    for (const error of refusals) {
      expect(error).toBeInstanceOf(EnvFaultError);
      expect(error).toMatchObject({ code: 'ENV_FAULT', isRetryable: false });
      expect((error as Error).message).toMatch(/the browser pool (is|was) closed/);
    }
    expect(pool.stats().launches).toBe(0);
  });
});

// Launches Chromium (where there is one).
const withChromium = findChromium() ? describe : describe.skip;

withChromium('BrowserPool shared by the sessions of an env server', () => {
  it("starts its browser and tabs as no session's code, and runs each task as its caller's", async () => {
    // As `turngym serve` does: owners are tracked, and each session's env code runs as that session.
    const untrack = trackEnvFaultOwners();
    const pool = new BrowserPool({ size: 1 });
    type Machinery = 'launch' | 'open' | 'shutdownNow';
    const seen: Record<Machinery, Array<EnvFaultOwner | undefined>> = { launch: [], open: [], shutdownNow: [] };
    const prototype = BrowserPool.prototype as unknown as Record<Machinery, (...args: never[]) => unknown>;
    const spies = (['launch', 'open', 'shutdownNow'] as const).map((name) => {
      const original = prototype[name];
      return jest.spyOn(prototype, name).mockImplementation(function (this: unknown, ...args: never[]) {
        seen[name].push(currentFaultOwner());
        return original.apply(this, args);
      });
    });
    try {
      const unowned = runUnowned(currentFaultOwner);
      const sessionA: EnvFaultOwner = { label: 'session A', fail: jest.fn() };
      const sessionB: EnvFaultOwner = { label: 'session B', fail: jest.fn() };
      const loadAs = (owner: EnvFaultOwner, expression: string) =>
        runOwnedBy(owner, () =>
          pool.withPage(async (page) => ({
            value: await page.evaluate(expression),
            taskOf: currentFaultOwner()?.label,
          })),
        );
      // A's task launches the browser and opens the only tab; B's waits for it.
      expect(await Promise.all([loadAs(sessionA, '1 + 1'), loadAs(sessionB, '2 + 2')])).toEqual([
        { value: 2, taskOf: 'session A' },
        { value: 4, taskOf: 'session B' },
      ]);
      // The last env's close() (here A's) closes the pool.
      await runOwnedBy(sessionA, () => pool.close());
      // Before, the browser, its pipe's handlers and its tab were A's (its task started them): a fault of theirs,
      // serving B, closed A.
      expect(unowned).toBeDefined();
      expect(seen).toEqual({ launch: [unowned], open: [unowned], shutdownNow: [unowned] });
    } finally {
      for (const spy of spies) spy.mockRestore();
      untrack();
      await pool.close();
    }
  });
});
