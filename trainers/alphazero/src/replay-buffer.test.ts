import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SeededRng } from '@turngym/core';
import { ReplayBuffer, type ReplaySample } from './index';

const sample = (value: number): ReplaySample => ({
  features: Float32Array.from([value, value / 3]),
  legal: [1, 1],
  policy: [0.5, 0.5],
  return: value,
  chosen: value % 2 === 0 ? 0 : -1,
  rejected: value % 2 === 0 ? 1 : -1,
  referenceChosenLogp: -0.1,
  referenceRejectedLogp: -2.3,
});

describe('ReplayBuffer', () => {
  it('keeps the last `capacity` samples and restores them exactly from its snapshot', async () => {
    const buffer = new ReplayBuffer(3);
    for (let i = 0; i < 5; i++) buffer.add(sample(i));
    expect(buffer.size).toBe(3);
    expect(buffer.totalAdded).toBe(5);
    const dir = await mkdtemp(join(tmpdir(), 'replay-'));
    try {
      await buffer.save(dir);
      const restored = new ReplayBuffer(3);
      await restored.load(dir);
      // Same samples, same sampling order, same place for the next sample to overwrite.
      expect(restored.sample(6, new SeededRng(1))).toEqual(buffer.sample(6, new SeededRng(1)));
      expect(new Set(restored.sample(30, new SeededRng(2)).map((each) => each.return))).toEqual(new Set([2, 3, 4]));
      restored.add(sample(5));
      buffer.add(sample(5));
      expect(restored.pairs()).toEqual(buffer.pairs());
      await restored.reset();
      expect(restored.size).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
