import { readdirSync, readFileSync } from 'node:fs';
import { readProcessStat, type ProcessStat } from '@turngym/core';

/**
 * Process bookkeeping for Chromium, read from /proc (Linux). Puppeteer starts the browser as the leader of
 * a new process group, so a browser and every helper it forked (zygotes, renderers, GPU and network
 * processes) share one process group id: the browser's pid. That is how tests count leftovers and how the
 * pool measures memory without mistaking another program's Chromium for its own.
 */
function allProcesses(): ProcessStat[] {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  const out: ProcessStat[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readProcessStat(Number(name));
    if (stat) out.push(stat);
  }
  return out;
}

/** Live (not zombie) processes whose process group is one of `groups`. */
export function processesInGroups(groups: Iterable<number>): number[] {
  const wanted = new Set(groups);
  if (wanted.size === 0) return [];
  return allProcesses()
    .filter((stat) => wanted.has(stat.group) && stat.state !== 'Z' && stat.state !== 'X')
    .map((stat) => stat.pid);
}

/** Live processes descended from `root` (default: this process) whose executable looks like Chrome/Chromium. */
export function chromiumDescendants(root: number = process.pid): number[] {
  const processes = allProcesses();
  const children = new Map<number, number[]>();
  for (const stat of processes) children.set(stat.parent, [...(children.get(stat.parent) ?? []), stat.pid]);
  const byPid = new Map(processes.map((stat) => [stat.pid, stat]));
  const out: number[] = [];
  const queue = [...(children.get(root) ?? [])];
  while (queue.length > 0) {
    const pid = queue.shift() as number;
    queue.push(...(children.get(pid) ?? []));
    const stat = byPid.get(pid);
    if (!stat || stat.state === 'Z') continue;
    let command = '';
    try {
      command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\u0000')[0] ?? '';
    } catch {
      continue;
    }
    if (/chrom(e|ium)/i.test(command)) out.push(pid);
  }
  return out;
}

/** Proportional set size (MiB) of every live process in `group`: shared pages counted once across them. */
export function processGroupPssMb(group: number): number {
  let kilobytes = 0;
  for (const pid of processesInGroups([group])) {
    try {
      const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
      const match = /^Pss:\s+(\d+) kB/m.exec(rollup);
      if (match) kilobytes += Number(match[1]);
    } catch {
      // the process exited between the listing and the read
    }
  }
  return kilobytes / 1024;
}

/** Kills a whole process group (orphaned Chromium helpers survive a crashed browser otherwise). */
export function killProcessGroup(group: number): void {
  try {
    process.kill(-group, 'SIGKILL');
  } catch {
    // already gone
  }
}

/**
 * CPU time (ms) spent by the live processes of `group`, including their reaped children (a renderer that
 * exited is counted through its parent). Tick-granular (usually 10 ms).
 */
export function processGroupCpuMs(group: number): number {
  const ticksPerSecond = 100; // USER_HZ on Linux
  let ticks = 0;
  for (const pid of processesInGroups([group])) {
    try {
      const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
      // Fields 14–17 of stat (utime, stime, cutime, cstime) are 11–14 after the command name.
      ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
    } catch {
      // exited between the listing and the read
    }
  }
  return (ticks * 1000) / ticksPerSecond;
}
