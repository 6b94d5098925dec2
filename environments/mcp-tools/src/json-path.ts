import { TaskFileError } from './task-file-error';

/** One step of a path: a property name, an array index, or every element/property (`*`). */
export type PathStep = { kind: 'key'; key: string } | { kind: 'index'; index: number } | { kind: 'all' };

/**
 * A small JSONPath subset for checks: `$`, `.name`, `["name"]`, `[0]`, `[*]`, `.*`. Parsed once when the task
 * file loads (an error names the task), evaluated in time linear in the values it visits.
 */
export function parseJsonPath(path: string, where: string): PathStep[] {
  if (!path.startsWith('$')) throw new TaskFileError(where, undefined, `path "${path}" must start with $`);
  const steps: PathStep[] = [];
  let rest = path.slice(1);
  while (rest.length > 0) {
    const name = /^\.([A-Za-z_$][\w$-]*|\*)/.exec(rest);
    if (name) {
      steps.push(name[1] === '*' ? { kind: 'all' } : { kind: 'key', key: name[1] as string });
      rest = rest.slice(name[0].length);
      continue;
    }
    const bracket = /^\[(?:(\d+)|\*|"((?:[^"\\]|\\.)*)"|'([^']*)')\]/.exec(rest);
    if (bracket) {
      if (bracket[1] !== undefined) steps.push({ kind: 'index', index: Number(bracket[1]) });
      else if (bracket[2] !== undefined) steps.push({ kind: 'key', key: JSON.parse(`"${bracket[2]}"`) as string });
      else if (bracket[3] !== undefined) steps.push({ kind: 'key', key: bracket[3] });
      else steps.push({ kind: 'all' });
      rest = rest.slice(bracket[0].length);
      continue;
    }
    throw new TaskFileError(where, undefined, `cannot read path "${path}" at "${rest}"`);
  }
  return steps;
}

/** Every value the path reaches in `document` (none when a step finds nothing). */
export function selectPath(document: unknown, steps: readonly PathStep[]): unknown[] {
  let values: unknown[] = [document];
  for (const step of steps) {
    const next: unknown[] = [];
    for (const value of values) {
      if (typeof value !== 'object' || value === null) continue;
      if (step.kind === 'all') next.push(...(Array.isArray(value) ? value : Object.values(value)));
      else if (step.kind === 'index') {
        if (Array.isArray(value) && step.index < value.length) next.push(value[step.index]);
      } else if (!Array.isArray(value) && Object.prototype.hasOwnProperty.call(value, step.key)) {
        next.push((value as Record<string, unknown>)[step.key]);
      }
    }
    values = next;
  }
  return values;
}
