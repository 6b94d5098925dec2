import { readFileSync } from 'node:fs';

/** What `/proc/<pid>/stat` says of a process (Linux), the fields TurnGym reads. */
export interface ProcessStat {
  readonly pid: number;
  /** `R` running, `S` sleeping, `T`/`t` stopped (a signal, a debugger), `Z` zombie, `X` dead, … */
  readonly state: string;
  /** The parent's pid. */
  readonly parent: number;
  /** The process group id. */
  readonly group: number;
  /** Start time in clock ticks since boot: tells a process from a later one given the same pid. */
  readonly startTicks: string;
}

/**
 * Reads `/proc/<pid>/stat`; undefined where the process does not exist or there is no /proc (not Linux). The command
 * name (field 2) may hold spaces and parentheses, so the fields are read after its last ')'. Read as latin1: a name
 * that is not UTF-8 still leaves every byte, and so every field after it, in place.
 */
export function readProcessStat(pid: number): ProcessStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return undefined;
  }
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return {
    pid,
    state: fields[0] ?? '',
    parent: Number(fields[1]),
    group: Number(fields[2]),
    startTicks: fields[19] ?? '',
  };
}
