import { readFileSync } from 'node:fs';

/**
 * This process's limit on open files (the soft RLIMIT_NOFILE, which Node raises to the hard limit at start), from
 * Linux's /proc/self/limits; undefined where that cannot be read (another OS) or there is no limit.
 */
export function openFileLimit(
  read: () => string = () => readFileSync('/proc/self/limits', 'utf8'),
): number | undefined {
  let limits: string;
  try {
    limits = read();
  } catch {
    return undefined;
  }
  const soft = /^Max open files\s+(\d+)\s/m.exec(limits)?.[1];
  return soft === undefined ? undefined : Number(soft);
}

/**
 * The most connections a server may hold under this process's open-file limit, past which it could not even accept
 * one to refuse it (the kernel's connections are then reset unanswered, `/health` included): 90% of what the limit
 * leaves once `reserved` files of the server's own are counted (stdio, the listener, libuv's …), the other tenth
 * kept for refusals in flight, each holding its socket for up to a second. Undefined where the limit is unknown.
 */
export function connectionsWithinFileLimit(reserved: number, limit = openFileLimit()): number | undefined {
  return limit === undefined ? undefined : Math.max(1, Math.floor((limit - reserved) * 0.9));
}
