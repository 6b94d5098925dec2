/** Line numbers of `SAVE_LINE_IDS("17-19, 108")`, or the reason they cannot be read. */
export type LineRangeParse = { ok: true; lines: number[] } | { ok: false; feedback: string };

/** Reads "17-19, 108-145" (also "17–19", "17 to 19", "L17-L19"); at most `limit` lines, in order, each once. */
export function parseLineRanges(text: string, limit: number): LineRangeParse {
  const parts = text
    // `(?<!\s)`: an ` and ` split starts only where a run of blanks starts; retried from inside every run it
    // was quadratic (a range followed by 100,000 blanks took 20 s).
    .split(/[,;]|(?<!\s)\s+and\s+/)
    .map((part) => part.trim())
    .filter(Boolean);
  if (parts.length === 0)
    return { ok: false, feedback: 'SAVE_LINE_IDS needs line numbers, e.g. SAVE_LINE_IDS(4-6, 12).' };
  const lines = new Set<number>();
  for (const part of parts) {
    // Feedback goes into the agent's context: "1000…(100,000 digits)-1" was echoed whole.
    const shown = part.length > 40 ? `${part.slice(0, 39)}…` : part;
    const match = /^L?(\d+)(?:\s*(?:-|–|—|to)\s*L?(\d+))?$/i.exec(part);
    if (!match) return { ok: false, feedback: `SAVE_LINE_IDS: cannot read "${shown}"; write ranges like 4-6, 12.` };
    const from = Number(match[1]);
    const to = match[2] === undefined ? from : Number(match[2]);
    if (from < 1 || to < from)
      return {
        ok: false,
        feedback: `SAVE_LINE_IDS: "${shown}" is not a range of line numbers (from ≤ to, starting at 1).`,
      };
    for (let line = from; line <= to; line++) {
      lines.add(line);
      if (lines.size > limit) return { ok: false, feedback: `SAVE_LINE_IDS: at most ${limit} lines at once.` };
    }
  }
  return { ok: true, lines: [...lines].sort((a, b) => a - b) };
}
