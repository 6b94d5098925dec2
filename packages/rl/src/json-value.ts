import { TrainingCheckpointError } from './rl-errors';

/** A JSON value (what checkpoint state may hold). */
export type JsonValue = string | number | boolean | null | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/** Rejects what JSON would silently change (NaN → null, undefined dropped), naming the path. */
export function checkJson(value: unknown, path: string): void {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return;
  if (typeof value === 'number') {
    if (!Number.isFinite(value))
      throw new TrainingCheckpointError(`${path} is ${value}; checkpoint state must be finite JSON.`);
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((item, index) => checkJson(item, `${path}[${index}]`));
    return;
  }
  if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    for (const [key, item] of Object.entries(value)) checkJson(item, `${path}.${key}`);
    return;
  }
  throw new TrainingCheckpointError(
    `${path} is ${typeof value === 'object' ? 'a class instance' : typeof value}; checkpoint state must be JSON.`,
  );
}
