import { createReadStream, existsSync } from 'node:fs';
import { createInterface } from 'node:readline';

/**
 * The seeds in `[first, first + count)` that the episode file at `path` already holds a complete record of, for this
 * env and agent, in order. Read line by line (an episode file may be large) and leniently: a line that is not a
 * record (a torn last line, another tool's line further down) holds no seed, since refusing to append is
 * `JsonlRecordSink`'s call. An errored or abandoned episode (`complete: false`) is no duplicate: running its seed
 * again is how it gets done. A file that does not exist holds none.
 */
export async function recordedSeeds(
  path: string,
  run: { envId: string; agent: string; first: number; count: number },
): Promise<number[]> {
  const found = new Set<number>();
  if (!existsSync(path)) return [];
  const lines = createInterface({ input: createReadStream(path), crlfDelay: Infinity });
  try {
    for await (const line of lines) {
      let record: unknown;
      try {
        record = JSON.parse(line);
      } catch {
        continue;
      }
      if (typeof record !== 'object' || record === null) continue;
      const { envId, agent, seed, complete } = record as Record<string, unknown>;
      if (complete !== true || envId !== run.envId || agent !== run.agent || typeof seed !== 'number') continue;
      if (seed >= run.first && seed < run.first + run.count) found.add(seed);
    }
  } finally {
    lines.close();
  }
  return [...found].sort((a, b) => a - b);
}
