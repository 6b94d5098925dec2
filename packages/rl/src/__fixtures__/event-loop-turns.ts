/**
 * Runs `work` with a clock on which every look finds 100 ms of work done since the last (so every pause point an
 * `eventLoopYielder` guards turns the event loop), and counts how often a setImmediate callback — a stand-in for a
 * SIGINT/SIGTERM handler, which is a macrotask too — ran while `work` ran. More than once: the loop ran again and
 * again inside the work, not once at its start.
 */
export async function countEventLoopTurns<T>(work: () => Promise<T>): Promise<{ result: T; turns: number }> {
  let clock = 0;
  const now = jest.spyOn(performance, 'now').mockImplementation(() => (clock += 100));
  let finished = false;
  let turns = 0;
  const handler = (): void => {
    if (finished) return;
    turns += 1;
    setImmediate(handler);
  };
  try {
    setImmediate(handler);
    const result = await work();
    return { result, turns };
  } finally {
    finished = true;
    now.mockRestore();
  }
}
