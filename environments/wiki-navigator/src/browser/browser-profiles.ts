import { mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { processAlive } from '@turngym/core';
import { killProcessGroup, processesInGroups } from './chromium-processes';

/**
 * Chromium profile directories (`--user-data-dir`) that outlive neither the pool nor the Node process.
 *
 * `BrowserPool.close()` removes its profile, but a training run rarely ends that way: Ctrl-C, a scheduler's
 * SIGTERM, an uncaught exception or `process.exit()` end Node without the pool's close. Chromium then exits
 * by itself (its pipe closes), yet its profile (about 1.2 MB) stayed in the temp directory, one more per run
 * and per relaunch. So every live profile is registered here: on `exit`, and on a SIGINT/SIGTERM/SIGHUP
 * that would end the process anyway, the browsers' process groups are killed and their profiles removed;
 * a SIGKILL (the OOM killer) cannot be caught, so profiles carry their Node pid and the next launch in any
 * process removes those whose process is gone.
 */
const PREFIX = 'turngym-chromium-';
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

export interface BrowserProfile {
  readonly directory: string;
  /** The browser's process group, once launched: killed before the directory is removed at exit. */
  group: number | undefined;
  /** Removes the directory (idempotent) and stops tracking it. */
  remove(): void;
}

const live = new Set<BrowserProfile>();
let swept = false;
let hooked = false;

export function createBrowserProfile(): BrowserProfile {
  if (!swept) {
    swept = true;
    sweepStaleProfiles();
  }
  const directory = mkdtempSync(join(tmpdir(), `${PREFIX}${process.pid}-`));
  const profile: BrowserProfile = {
    directory,
    group: undefined,
    remove() {
      live.delete(profile);
      rmSync(directory, { recursive: true, force: true });
      if (live.size === 0) unhook();
    },
  };
  live.add(profile);
  hook();
  return profile;
}

/**
 * Removes profiles whose Node process is gone (`turngym-chromium-<pid>-*`). A profile without a pid (older
 * versions) is left alone: nothing says whether its process still runs.
 */
export function sweepStaleProfiles(directory: string = tmpdir()): string[] {
  let names: string[];
  try {
    names = readdirSync(directory);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const match = new RegExp(`^${PREFIX}(\\d+)-`).exec(name);
    if (!match || processAlive(Number(match[1]))) continue;
    const path = join(directory, name);
    // Its Node process is gone but its browser may still be shutting down (it notices the closed pipe a
    // moment later) and writing there: Chromium's lock names the browser's pid ("host-pid"). A lock of another
    // host is another machine's, or another container's sharing this /tmp, whose pids mean nothing here.
    const holder = lockHolder(path);
    if (holder && (holder.host !== hostname() || processAlive(holder.pid))) continue;
    try {
      rmSync(path, { recursive: true, force: true });
      removed.push(path);
    } catch {
      // another process's sweep, or not ours to remove: leave it
    }
  }
  return removed;
}

/** Who holds a profile by Chromium's `SingletonLock` (a link to "host-pid"); undefined when none does. */
function lockHolder(profile: string): { host: string; pid: number } | undefined {
  let target: string;
  try {
    target = readlinkSync(join(profile, 'SingletonLock'));
  } catch {
    return undefined;
  }
  const match = /^(.*)-(\d+)$/.exec(target);
  return match ? { host: match[1] as string, pid: Number(match[2]) } : { host: '', pid: 0 };
}

/** Synchronous (the `exit` event allows nothing else): kill every browser, wait briefly, remove profiles. */
function cleanUpNow(): void {
  const groups = [...live].flatMap((profile) => (profile.group && profile.group > 0 ? [profile.group] : []));
  for (const group of groups) killProcessGroup(group);
  // A browser still writing its profile would recreate files behind rmSync: let SIGKILL land first (≤ 1 s).
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let i = 0; i < 50 && processesInGroups(groups).length > 0; i++) Atomics.wait(pause, 0, 0, 20);
  for (const profile of [...live]) profile.remove();
}

function onSignal(signal: NodeJS.Signals): void {
  // Another listener means the program handles this signal itself (and may go on running): its own
  // close() or exit does the cleanup then. Alone, we are what stands between the signal and the default
  // action, so clean up and let the signal end the process as it would have.
  if (process.listenerCount(signal) > 1) return;
  cleanUpNow();
  unhook();
  process.kill(process.pid, signal);
}

function hook(): void {
  if (hooked) return;
  hooked = true;
  process.on('exit', cleanUpNow);
  for (const signal of SIGNALS) process.on(signal, onSignal);
}

function unhook(): void {
  if (!hooked) return;
  hooked = false;
  process.off('exit', cleanUpNow);
  for (const signal of SIGNALS) process.off(signal, onSignal);
}
