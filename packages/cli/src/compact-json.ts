function entriesOf(value: object): [string, unknown][] {
  return Object.entries(value).filter(([, item]) => item !== undefined);
}

/** One-line JSON with a space after commas and colons. */
function oneLine(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(oneLine).join(', ')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = entriesOf(value);
    return entries.length === 0
      ? '{}'
      : `{ ${entries.map(([key, item]) => `${JSON.stringify(key)}: ${oneLine(item)}`).join(', ')} }`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * JSON that stays on one line where it fits in `width` columns and breaks into indented lines where it does
 * not: JSON Schemas stay readable in a terminal without one key per line.
 */
export function compactJson(value: unknown, width = 100, indent = ''): string {
  const flat = oneLine(value);
  if (flat.length + indent.length <= width || typeof value !== 'object' || value === null) return flat;
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    return `[\n${value.map((item) => `${inner}${compactJson(item, width, inner)}`).join(',\n')}\n${indent}]`;
  }
  return `{\n${entriesOf(value)
    .map(([key, item]) => `${inner}${JSON.stringify(key)}: ${compactJson(item, width - key.length - 4, inner)}`)
    .join(',\n')}\n${indent}}`;
}
