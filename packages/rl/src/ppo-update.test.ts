import { packMinibatches } from './ppo-update';

describe('packMinibatches', () => {
  it('keeps the order and caps sequences and padded tokens per minibatch', () => {
    const lengths = [100, 900, 120, 80, 300, 50];
    const batches = packMinibatches([0, 1, 2, 3, 4, 5], lengths, { minibatchSize: 3, minibatchTokens: 1000 });
    expect(batches.flat()).toEqual([0, 1, 2, 3, 4, 5]);
    for (const batch of batches) {
      expect(batch.length).toBeLessThanOrEqual(3);
      const padded = batch.length * Math.max(...batch.map((index) => lengths[index]!));
      // A sequence longer than the cap goes alone; otherwise the cap holds.
      if (batch.length > 1) expect(padded).toBeLessThanOrEqual(1000);
    }
    expect(batches).toEqual([[0], [1], [2, 3, 4], [5]]);
  });

  it('puts a sequence longer than the cap in a minibatch of its own', () => {
    expect(packMinibatches([2, 0, 1], [10, 10, 5000], { minibatchSize: 8, minibatchTokens: 100 })).toEqual([
      [2],
      [0, 1],
    ]);
  });
});
