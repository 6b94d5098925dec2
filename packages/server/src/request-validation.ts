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

/** pydantic 2's error `type` for a failed JSON Schema keyword, so generic OpenEnv clients read the same words. */
function pydanticType(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return 'missing';
    case 'additionalProperties':
      return 'extra_forbidden';
    case 'type': {
      const expected = Array.isArray(params.type) ? String(params.type[0]) : String(params.type);
      // pydantic's word for 1.5 where an int is wanted (its lax mode takes 1.0, as JSON.parse here does).
      if (expected === 'integer' && typeof error.data === 'number' && Number.isFinite(error.data))
        return 'int_from_float';
      const words: Record<string, string> = {
        string: 'string_type',
        integer: 'int_type',
        number: 'float_type',
        boolean: 'bool_type',
        object: 'dict_type',
        array: 'list_type',
        null: 'none_required',
      };
      return words[expected] ?? 'value_error';
    }
    case 'enum':
      return 'enum';
    case 'const':
      return 'literal_error';
    case 'minimum':
      return 'greater_than_equal';
    case 'maximum':
      return 'less_than_equal';
    case 'exclusiveMinimum':
      return 'greater_than';
    case 'exclusiveMaximum':
      return 'less_than';
    case 'minLength':
      return 'string_too_short';
    case 'maxLength':
      return 'string_too_long';
    case 'minItems':
    case 'minProperties':
      return 'too_short';
    case 'maxItems':
    case 'maxProperties':
      return 'too_long';
    case 'pattern':
      return 'string_pattern_mismatch';
    case 'multipleOf':
      return 'multiple_of';
    default:
      return 'value_error';
  }
}

/** pydantic's `ctx`: the bound a value broke, under the name of pydantic's constraint (`{"ge": 0}`). */
function pydanticContext(error: ErrorObject): { ctx?: Record<string, unknown> } {
  const params = error.params as Record<string, unknown>;
  const names: Partial<Record<string, string>> = {
    minimum: 'ge',
    maximum: 'le',
    exclusiveMinimum: 'gt',
    exclusiveMaximum: 'lt',
    minLength: 'min_length',
    maxLength: 'max_length',
    pattern: 'pattern',
  };
  const name = names[error.keyword];
  if (name === undefined) return {};
  const bound = error.keyword === 'pattern' ? params.pattern : params.limit;
  return bound === undefined ? {} : { ctx: { [name]: bound } };
}

/** Largest `input` echoed back (JSON characters): pydantic echoes the value, but a client's megabyte stays home. */
const MAX_ECHOED_INPUT = 1024;

/** `{input}` when the value is small enough to echo, else nothing. */
export function echoedInput(value: unknown): { input?: unknown } {
  if (value === undefined) return {};
  try {
    const text = JSON.stringify(value);
    return text !== undefined && text.length <= MAX_ECHOED_INPUT ? { input: value } : {};
  } catch {
    return {};
  }
}

/** ajv's errors in pydantic's shape (`{type, loc, msg, input}`), each message naming the field as core words it. */
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
    // pydantic's input: the extra field's value, the object a required field is missing from, else the value.
    const input =
      error.keyword === 'additionalProperties'
        ? (error.data as Record<string, unknown> | undefined)?.[String(params.additionalProperty)]
        : error.data;
    details.push({
      type: pydanticType(error),
      loc: [...loc, ...pathParts(error.instancePath), ...extra],
      msg,
      ...echoedInput(input),
      ...pydanticContext(error),
    });
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
