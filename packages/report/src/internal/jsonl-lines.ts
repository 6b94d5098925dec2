import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { endsCleanly, withoutByteOrderMark } from '@turngym/core';

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

/** The non-blank lines of a JSONL file, streamed (a trajectories file can be far larger than memory wants). */
export async function* readJsonlLines(path: string): AsyncGenerator<JsonlLine> {
  const clean = await endsCleanly(path);
  const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
  let held: { text: string; number: number } | undefined;
  let number = 0;
  for await (const line of lines) {
    number++;
    const text = number === 1 ? withoutByteOrderMark(line) : line;
    if (held) yield { ...held, torn: false };
    held = text.trim() === '' ? undefined : { text, number };
  }
  if (held) yield { ...held, torn: !clean };
}
