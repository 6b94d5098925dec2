import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CheckpointError } from '@turngym/lm';
import type { CheckpointStore } from './checkpoint-store';
import { checkJson, type JsonValue } from './json-value';

/** The one file a `JsonStatisticsStore` writes into its checkpoint directory. */
export const STATISTICS_FILE = 'statistics.json';

/**
 * Keyed statistics held in memory (a search tree's visit counts and value sums per node, per-task success
 * counts), saved as one JSON file. Keys are written sorted, so the same statistics give the same bytes
 * whatever order they were filled in.
 */
export class JsonStatisticsStore<Value extends JsonValue = JsonValue> implements CheckpointStore {
  private readonly entries = new Map<string, Value>();

  get size(): number {
    return this.entries.size;
  }

  get(key: string): Value | undefined {
    return this.entries.get(key);
  }

  /** Sets `key`; the value must be finite JSON (checked here, where the caller can still see why). */
  set(key: string, value: Value): void {
    checkJson(value, `statistics["${key}"]`);
    this.entries.set(key, value);
  }

  /** Replaces `key`'s value with `update(current)` (`current` undefined for a new key). */
  update(key: string, update: (current: Value | undefined) => Value): Value {
    const next = update(this.entries.get(key));
    this.set(key, next);
    return next;
  }

  /** Every entry, sorted by key. */
  toJSON(): Record<string, Value> {
    return Object.fromEntries([...this.entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }

  async save(dir: string): Promise<void> {
    await writeFile(join(dir, STATISTICS_FILE), `${JSON.stringify(this.toJSON())}\n`);
  }

  async load(dir: string): Promise<void> {
    const path = join(dir, STATISTICS_FILE);
    let saved: unknown;
    try {
      saved = JSON.parse(await readFile(path, 'utf8'));
    } catch (error) {
      throw new CheckpointError(`${path} cannot be read: ${(error as Error).message}`, { cause: error });
    }
    if (saved === null || typeof saved !== 'object' || Array.isArray(saved)) {
      throw new CheckpointError(`${path} does not hold an object of statistics.`);
    }
    this.entries.clear();
    for (const [key, value] of Object.entries(saved)) this.entries.set(key, value as Value);
  }

  async reset(): Promise<void> {
    this.entries.clear();
  }
}
