import { ajv, describeErrors } from '@turngym/core';
import type { ValidationDetail } from './protocol';
import { InvalidRequestError } from './server-errors';

// Types taken from core's ajv (v8); a bare `import from 'ajv'` here would find the root's unrelated v6.
type ErrorObject = NonNullable<Parameters<typeof describeErrors>[0]>[number];

function pathParts(instancePath: string): (string | number)[] {
  if (instancePath === '') return [];
  return instancePath
    .slice(1)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((part) => (/^\d+$/.test(part) ? Number(part) : part));
}

/** ajv's errors in pydantic's shape (`{type, loc, msg}`), each message naming the field as core words it. */
export function validationDetails(
  errors: readonly ErrorObject[] | null | undefined,
  loc: readonly (string | number)[],
): ValidationDetail[] {
  const details: ValidationDetail[] = [];
  const base = loc.length > 0 ? loc.join('.') : 'request';
  for (const error of errors ?? []) {
    // anyOf/oneOf summaries repeat what their branches already said.
    if (error.keyword === 'anyOf' || error.keyword === 'oneOf') continue;
    const params = error.params as Record<string, unknown>;
    const extra =
      error.keyword === 'required'
        ? [String(params.missingProperty)]
        : error.keyword === 'additionalProperties'
          ? [String(params.additionalProperty)]
          : [];
    const msg = describeErrors([error], base)[0] ?? `${base} is invalid`;
    details.push({ type: error.keyword, loc: [...loc, ...pathParts(error.instancePath), ...extra], msg });
  }
  if (details.length === 0 && (errors?.length ?? 0) > 0)
    details.push({ type: 'value_error', loc: [...loc], msg: `${base} does not match any allowed shape` });
  return details;
}

/** A compiled request schema that throws `InvalidRequestError` (VALIDATION_ERROR on the wire). */
export interface RequestValidator<T> {
  (input: unknown, loc?: readonly (string | number)[]): T;
  readonly schema: object;
}

export function requestValidator<T>(schema: object, summary: string): RequestValidator<T> {
  const validate = ajv.compile(schema);
  const check = (input: unknown, loc: readonly (string | number)[] = []): T => {
    if (validate(input)) return input as T;
    const details = validationDetails(validate.errors, loc);
    throw new InvalidRequestError(`${summary}: ${details.map((detail) => detail.msg).join('; ')}`, details);
  };
  return Object.assign(check, { schema });
}
