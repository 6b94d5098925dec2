import type { Browser, CDPSession } from 'puppeteer-core';

/** The script's answer from inside the page: its value, or what it threw. */
interface ScriptOutcome {
  readonly value?: unknown;
  readonly error?: string;
}

/**
 * A tab driven over a CDP session of its own, without a Puppeteer `Page` (issue 32). A `Page` enables the
 * Runtime, lifecycle and frame events and builds an isolated world in every new document; each navigation
 * then sends about twenty events through the browser process and the pipe, and the caller needs three
 * round trips (navigate, wait for the lifecycle event, evaluate). Here the script to run is installed once
 * per tab (`Page.addScriptToEvaluateOnNewDocument`) and calls back through a binding at DOMContentLoaded,
 * so a page load is one command (`Page.navigate`) and one event, and the page is still a real navigation
 * that Chromium loads and parses (the env's extraction then hides the page: `EXTRACT_IN_PAGE`). Measured in
 * the perf wiki section: 10–20% less CPU per load than `page.goto` + `page.evaluate`.
 */
export class BrowserTab {
  /** Scripts installed in this tab: expression → the binding it calls back through. */
  private readonly bindings = new Map<string, string>();
  private closed = false;
  /** Rejects the load in flight when the tab can no longer answer (crash, detach, browser gone). */
  private abort: ((error: Error) => void) | undefined;
  private readonly onDisconnected: () => void;

  private constructor(
    private readonly browser: Browser,
    private readonly root: CDPSession,
    private readonly session: CDPSession,
    private readonly targetId: string,
  ) {
    const gone = (why: string) => (): void => {
      this.closed = true;
      this.abort?.(new Error(why));
    };
    session.on('Inspector.targetCrashed', gone('the tab crashed'));
    session.on('Inspector.detached', gone('the tab was detached'));
    this.onDisconnected = gone('the browser disconnected');
    browser.on('disconnected', this.onDisconnected);
  }

  /**
   * Opens a blank tab. `root` is a session on the browser target (`browser.target().createCDPSession()`),
   * shared by the pool's tabs to create and close them.
   */
  static async open(browser: Browser, root: CDPSession): Promise<BrowserTab> {
    const { targetId } = await root.send('Target.createTarget', { url: 'about:blank' });
    try {
      const { sessionId } = await root.send('Target.attachToTarget', { targetId, flatten: true });
      const session = root.connection()?.session(sessionId);
      if (!session) throw new Error('no CDP session for the new tab');
      const tab = new BrowserTab(browser, root, session, targetId);
      // Page: scripts for new documents need it; Runtime: bindings report only to a session that enabled it;
      // Inspector: crash events. None of them sends events per navigation beyond the binding's.
      await Promise.all([
        session.send('Page.enable'),
        session.send('Runtime.enable'),
        session.send('Inspector.enable'),
      ]);
      return tab;
    } catch (error) {
      await root.send('Target.closeTarget', { targetId }).catch(() => undefined);
      throw error;
    }
  }

  isClosed(): boolean {
    return this.closed || !this.browser.connected;
  }

  /**
   * Navigates to `url` and resolves with the value of `expression` evaluated in the new document at
   * DOMContentLoaded (JSON values only). Rejects when the navigation fails, the expression throws, or
   * the tab or browser goes away; a page that never loads is left to the caller's timeout.
   */
  async load(url: string, expression: string): Promise<unknown> {
    if (this.isClosed()) throw new Error('the tab is closed');
    const binding = await this.install(expression);
    let listener: ((event: { name: string; payload: string }) => void) | undefined;
    const answered = new Promise<ScriptOutcome>((resolve, reject) => {
      this.abort = reject;
      listener = (event): void => {
        if (event.name === binding) resolve(JSON.parse(event.payload) as ScriptOutcome);
      };
      this.session.on('Runtime.bindingCalled', listener);
    });
    try {
      const navigation = await Promise.race([this.session.send('Page.navigate', { url }), answered.then(() => null)]);
      if (navigation?.errorText) throw new Error(`navigation to ${url} failed: ${navigation.errorText}`);
      // No loaderId: a same-document navigation (a fragment change), which runs no new-document script.
      const outcome =
        navigation && navigation.loaderId === undefined ? await this.evaluate(expression) : await answered;
      if (outcome.error !== undefined) throw new Error(`the page script threw: ${outcome.error}`);
      return outcome.value;
    } finally {
      this.abort = undefined;
      if (listener) this.session.off('Runtime.bindingCalled', listener);
      answered.catch(() => undefined);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.browser.off('disconnected', this.onDisconnected);
    await this.root.send('Target.closeTarget', { targetId: this.targetId });
  }

  private async install(expression: string): Promise<string> {
    const known = this.bindings.get(expression);
    if (known) return known;
    const binding = `__turngymTab${this.bindings.size}`;
    await this.session.send('Runtime.addBinding', { name: binding });
    await this.session.send('Page.addScriptToEvaluateOnNewDocument', { source: callbackScript(binding, expression) });
    this.bindings.set(expression, binding);
    return binding;
  }

  private async evaluate(expression: string): Promise<ScriptOutcome> {
    const { result, exceptionDetails } = await this.session.send('Runtime.evaluate', {
      expression,
      returnByValue: true,
    });
    return exceptionDetails ? { error: exceptionDetails.text } : { value: result.value as unknown };
  }
}

/**
 * Runs `expression` once the document is parsed and sends `{ value }` or `{ error }` through the binding. It runs
 * before any script of the page, so it takes the binding (and `JSON.stringify`) for itself and removes the global:
 * a page script cannot then answer in the extraction's place.
 */
function callbackScript(binding: string, expression: string): string {
  return `(() => {
  const send = globalThis[${JSON.stringify(binding)}];
  const stringify = JSON.stringify;
  delete globalThis[${JSON.stringify(binding)}];
  const run = () => {
    let outcome;
    try { outcome = { value: (${expression}) }; } catch (error) { outcome = { error: String(error && error.message || error) }; }
    send(stringify(outcome));
  };
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', run, { once: true });
  else run();
})();`;
}
