/**
 * Control characters (C0, DEL, C1) and bidi overrides as visible escapes: cells often hold what an env or a model
 * wrote (fingerprints, labels, actions), and a terminal runs `\x1b[…` or an OSC title sequence it is sent, or lets
 * a bidi override reorder the columns around it.
 */
function visible(cell: string): string {
  return cell.replace(
    // eslint-disable-next-line no-control-regex -- matching control characters is the point
    /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** Left-aligned columns separated by two spaces; numbers are the caller's to format; control characters escaped. */
export function formatTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const all = [header, ...rows].map((row) => row.map(visible));
  const widths = header.map((_, column) => Math.max(...all.map((row) => (row[column] ?? '').length)));
  return all
    .map((row) =>
      row
        .map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
