import { accessSync, constants } from 'node:fs';
import { basename } from 'node:path';

/**
 * Where Chromium is looked for, in order, after the option and `TURNGYM_CHROMIUM`. The headless shell
 * (Debian's `chromium-headless-shell`) comes first: it has no browser UI to update on every navigation and
 * costs about half the CPU per page load of the full browser in headless mode.
 */
export const CHROMIUM_CANDIDATES: readonly string[] = [
  '/usr/lib/chromium/chromium-headless-shell',
  '/usr/bin/chromium-headless-shell',
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
  '/Applications/Chromium.app/Contents/MacOS/Chromium',
];

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The Chrome that the full `puppeteer` package downloaded, if the user has it (we never download one). */
function puppeteersOwnChrome(): string | undefined {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const puppeteer = require('puppeteer') as { executablePath(): string };
    const path = puppeteer.executablePath();
    return executable(path) ? path : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The browser to launch: the `executablePath` option, else `TURNGYM_CHROMIUM`, else the first system
 * Chromium/Chrome found, else the Chrome of an installed `puppeteer` package. Undefined when there is none;
 * the caller turns that into an error that says how to install one.
 */
export function findChromium(explicit?: string): string | undefined {
  if (explicit) return explicit;
  const fromEnvironment = process.env.TURNGYM_CHROMIUM;
  if (fromEnvironment) return fromEnvironment;
  return CHROMIUM_CANDIDATES.find(executable) ?? puppeteersOwnChrome();
}

export const NO_CHROMIUM_MESSAGE =
  'no Chromium found: install one (Debian/Ubuntu: `apt-get install chromium-headless-shell` or `chromium`), set TURNGYM_CHROMIUM=/path/to/chrome, ' +
  'pass the `executablePath` option, or use mode "direct" (no browser needed)';

/** Whether `path` is a headless shell (launched with Puppeteer's `headless: 'shell'`), not a full browser. */
export function isHeadlessShell(path: string): boolean {
  return /headless[-_]shell/i.test(basename(path));
}
