/**
 * GPT-2's byte-to-character table (HF's ByteLevel pre-tokenizer): printable bytes map to themselves, the
 * rest to U+0100 upwards, so every byte is a visible character in `tokenizer.json`.
 */
export function bytesToUnicode(): string[] {
  const printable: number[] = [];
  for (let b = 0x21; b <= 0x7e; b++) printable.push(b);
  for (let b = 0xa1; b <= 0xac; b++) printable.push(b);
  for (let b = 0xae; b <= 0xff; b++) printable.push(b);
  const table = new Array<string>(256);
  const isPrintable = new Set(printable);
  let extra = 0;
  for (let b = 0; b < 256; b++) {
    table[b] = String.fromCodePoint(isPrintable.has(b) ? b : 256 + extra++);
  }
  return table;
}
