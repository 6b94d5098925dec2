import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { createInterface } from 'node:readline';

export interface JsonlLine {
  readonly text: string;
  /** 1-based, counting blank lines, as an editor shows it. */
  readonly number: number;
  /**
   * The file's last line when the file does not end with a newline: a trainer killed mid-write (or one
   * writing right now) leaves such a line, so a parse failure there is a torn write rather than bad data.
   */
  readonly torn: boolean;
}

async function endsWithNewline(path: string): Promise<boolean> {
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    if (size === 0) return true;
    const last = Buffer.alloc(1);
    await handle.read(last, 0, 1, size - 1);
    return last[0] === 0x0a;
  } finally {
    await handle.close();
  }
}

/** The non-blank lines of a JSONL file, streamed (a trajectories file can be far larger than memory wants). */
export async function* readJsonlLines(path: string): AsyncGenerator<JsonlLine> {
  const clean = await endsWithNewline(path);
  const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
  let held: { text: string; number: number } | undefined;
  let number = 0;
  for await (const text of lines) {
    number++;
    if (held) yield { ...held, torn: false };
    held = text.trim() === '' ? undefined : { text, number };
  }
  if (held) yield { ...held, torn: !clean };
}
