/** Keywords whose values are data, not schemas: never walked into. */
const DATA_KEYWORDS = new Set(['enum', 'const', 'default', 'examples']);
/** Keywords whose values map names (a property may be called "pattern") to schemas. */
const NAME_MAPS = new Set(['properties', '$defs', 'definitions', 'dependentSchemas']);

/**
 * A server's JSON Schema without its regular expressions (`pattern`, `patternProperties`), for the env to validate
 * the agent's arguments with. JavaScript's regular expressions can backtrack for exponential time and cannot be
 * interrupted, and here the server writes the expression and the model under test writes the text: `^(a+)+$`
 * against 40 `a`s and a `!` held the env's process for hours. The server still checks its patterns on its side,
 * where a hang is a call past `callTimeoutMs` (a fault), not a frozen env. Each removed pattern is kept in the
 * description, so the agent still reads it.
 */
export function withoutPatterns(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutPatterns);
  if (typeof schema !== 'object' || schema === null) return schema;
  const result: Record<string, unknown> = {};
  const source = schema as Record<string, unknown>;
  for (const [key, value] of Object.entries(source)) {
    // `pattern` is the keyword only when it holds a string: a property named "pattern" holds a schema.
    if (key === 'pattern' && typeof value === 'string') continue;
    if (key === 'patternProperties') continue;
    if (NAME_MAPS.has(key) && typeof value === 'object' && value !== null && !Array.isArray(value))
      result[key] = Object.fromEntries(Object.entries(value).map(([name, inner]) => [name, withoutPatterns(inner)]));
    else result[key] = DATA_KEYWORDS.has(key) ? value : withoutPatterns(value);
  }
  if (typeof source.pattern === 'string') {
    const note = `Must match the pattern ${source.pattern} (the server checks it).`;
    result.description = typeof source.description === 'string' ? `${source.description} ${note}` : note;
  }
  // Properties the dropped patternProperties allowed must not now fall to additionalProperties: the server judges.
  if (source.patternProperties !== undefined) delete result.additionalProperties;
  return result;
}
