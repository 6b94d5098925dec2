import { readTextWithin } from './read-text-within';

function streamOf(
  chunks: readonly Uint8Array[],
  pulled: { count: number; cancelled: boolean },
): ReadableStream<Uint8Array> {
  let index = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      pulled.count += 1;
      if (index < chunks.length) controller.enqueue(chunks[index++]!);
      else controller.close();
    },
    cancel() {
      pulled.cancelled = true;
    },
  });
}

describe('readTextWithin', () => {
  it('reads a body within the limit whole, a character split across chunks included', async () => {
    const bytes = new TextEncoder().encode('héllo 北京');
    const pulled = { count: 0, cancelled: false };
    const read = await readTextWithin(
      streamOf([bytes.subarray(0, 2), bytes.subarray(2, 9), bytes.subarray(9)], pulled),
      bytes.length,
    );
    expect(read).toEqual({ text: 'héllo 北京', cut: false });
    expect(pulled.cancelled).toBe(false);
  });

  it('stops at the limit: the first bytes kept, the stream cancelled, nothing past the chunk that crossed it read', async () => {
    const chunk = new TextEncoder().encode('0123456789');
    const pulled = { count: 0, cancelled: false };
    const read = await readTextWithin(
      streamOf(
        Array.from({ length: 1000 }, () => chunk),
        pulled,
      ),
      25,
    );
    expect(read).toEqual({ text: '0123456789012345678901234', cut: true });
    expect(pulled.cancelled).toBe(true);
    expect(pulled.count).toBeLessThan(10);
  });

  it('reads no body as empty', async () => {
    expect(await readTextWithin(null, 10)).toEqual({ text: '', cut: false });
  });
});
