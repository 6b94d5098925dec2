import { EnvFaultError, InvalidOptionsError } from '@turngym/core';
import { BrowserPool } from './browser-pool';

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
