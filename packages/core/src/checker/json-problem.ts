/**
 * Where `value` stops being plain JSON, in words (`info.total is not JSON (bigint)`), or undefined. Infos
 * travel as JSON (records, the env server), so anything JSON.stringify drops, mangles or throws on is a bug.
 * A property whose value is undefined is allowed: JSON leaves it out, which reads back the same.
 */
export function jsonProblem(value: unknown, path: string, ancestors: object[] = []): string | undefined {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return undefined;
    case 'number':
      return Number.isFinite(value) ? undefined : `${path} is not JSON (${value})`;
    case 'object':
      break;
    default:
      return `${path} is not JSON (${typeof value})`;
  }
  if (value === null) return undefined;
  if (ancestors.includes(value)) return `${path} is not JSON (a circular reference)`;
  const inside = [...ancestors, value];
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const problem =
        item === undefined ? `${path}[${i}] is not JSON (undefined)` : jsonProblem(item, `${path}[${i}]`, inside);
      if (problem) return problem;
    }
    return undefined;
  }
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null)
    return `${path} is not JSON (a ${prototype?.constructor?.name ?? 'class'} instance, not a plain object)`;
  for (const [key, item] of Object.entries(value)) {
    if (item === undefined) continue;
    const problem = jsonProblem(item, `${path}.${key}`, inside);
    if (problem) return problem;
  }
  return undefined;
}
