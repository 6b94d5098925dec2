import { spreadTaskIds } from './index';

describe('spreadTaskIds', () => {
  it("keeps the benchmark's 41 evaluation tasks, and covers the whole split when asked for all of it", () => {
    // The committed results' tasks: every 4th of the 164 test tasks.
    expect(spreadTaskIds(41, 164)).toEqual(Array.from({ length: 41 }, (_, i) => i * 4));
    expect(spreadTaskIds(164, 164)).toEqual(Array.from({ length: 164 }, (_, i) => i));
    const some = spreadTaskIds(82, 164);
    expect(new Set(some).size).toBe(82);
    expect(some.at(-1)).toBe(162);
    // More episodes than tasks: each task in turn, evenly.
    expect(spreadTaskIds(6, 3)).toEqual([0, 0, 1, 1, 2, 2]);
    expect(() => spreadTaskIds(4, 0)).toThrow(/total/);
  });
});
