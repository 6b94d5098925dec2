import { readdirSync, readFileSync } from 'node:fs';
import { readProcessStat } from '@turngym/core';

/** A process as `/proc` knows it: its pid and its start time, which tells it from a later process given that pid. */
export interface ProcessIdentity {
  readonly pid: number;
  readonly start: string;
}

/**
 * The start time (field 22 of `/proc/PID/stat`, in clock ticks since boot), or undefined when the pid is not running
 * (or is a zombie, dead and waiting for its parent to read its exit).
 */
function startOf(pid: number): string | undefined {
  const stat = readProcessStat(pid);
  return stat === undefined || stat.state === 'Z' ? undefined : stat.startTicks;
}

function childrenOf(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((thread) =>
      readFileSync(`/proc/${pid}/task/${thread}/children`, 'latin1')
        .trim()
        .split(' ')
        .filter((text) => text !== '')
        .map(Number),
    );
  } catch {
    return [];
  }
}

/**
 * The processes `pid` started, and theirs, as they run now (Linux, from `/proc`; empty elsewhere). A stdio server
 * started through a wrapper (`sh -c "python server.py"`, `npx`, `uv run`) is such a tree, and stopping it stops
 * only the wrapper: a server that outlives its stdin's end was left running, one process per episode.
 */
export function descendantsOf(pid: number): ProcessIdentity[] {
  const found: ProcessIdentity[] = [];
  const queue = childrenOf(pid);
  while (queue.length > 0 && found.length < 10_000) {
    const next = queue.shift() as number;
    const start = startOf(next);
    if (start === undefined || found.some((known) => known.pid === next)) continue;
    found.push({ pid: next, start });
    queue.push(...childrenOf(next));
  }
  return found;
}

/** Whether the process is still the one identified (not ended, its pid not taken by a newer one). */
function stillRunning(process: ProcessIdentity): boolean {
  return startOf(process.pid) === process.start;
}

/**
 * Stops what is left of `processes`: SIGTERM, then SIGKILL for those still running after `graceMs`. A process whose
 * pid now belongs to another (a different start time) is left alone.
 */
export async function stopProcesses(processes: readonly ProcessIdentity[], graceMs = 2000): Promise<void> {
  const signal = (name: NodeJS.Signals): ProcessIdentity[] =>
    processes.filter((one) => {
      if (!stillRunning(one)) return false;
      try {
        process.kill(one.pid, name);
        return true;
      } catch {
        return false;
      }
    });
  if (signal('SIGTERM').length === 0) return;
  for (let waited = 0; waited < graceMs; waited += 50) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    if (!processes.some(stillRunning)) return;
  }
  signal('SIGKILL');
}
