import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CheckpointError } from '@turngym/lm';
import { JsonStatisticsStore, STATISTICS_FILE } from './json-statistics-store';
import { TrainingCheckpointError } from './rl-errors';

type Edge = { visits: number; valueSum: number };

describe('JsonStatisticsStore', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'turngym-statistics-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes the same bytes for the same statistics whatever order they were filled in, and loads them back', async () => {
    const a = new JsonStatisticsStore<Edge>();
    a.set('n2', { visits: 1, valueSum: 0.5 });
    a.update('n1', (known) => ({ visits: (known?.visits ?? 0) + 1, valueSum: 1 }));
    const b = new JsonStatisticsStore<Edge>();
    b.set('n1', { visits: 1, valueSum: 1 });
    b.set('n2', { visits: 1, valueSum: 0.5 });
    await a.save(dir);
    const bytes = readFileSync(join(dir, STATISTICS_FILE), 'utf8');
    await b.save(dir);
    expect(readFileSync(join(dir, STATISTICS_FILE), 'utf8')).toBe(bytes);

    const loaded = new JsonStatisticsStore<Edge>();
    loaded.set('stale', { visits: 9, valueSum: 9 });
    await loaded.load(dir);
    expect(loaded.toJSON()).toEqual({ n1: { visits: 1, valueSum: 1 }, n2: { visits: 1, valueSum: 0.5 } });
    await loaded.reset();
    expect(loaded.size).toBe(0);
  });

  it('refuses values JSON would change and a file that holds no statistics', async () => {
    const store = new JsonStatisticsStore<Edge>();
    expect(() => store.set('n1', { visits: 1, valueSum: NaN })).toThrow(TrainingCheckpointError);
    expect(() => store.set('n1', { visits: 1, valueSum: NaN })).toThrow(/statistics\["n1"\]\.valueSum is NaN/);
    writeFileSync(join(dir, STATISTICS_FILE), '[1, 2]');
    await expect(store.load(dir)).rejects.toThrow(CheckpointError);
  });
});
