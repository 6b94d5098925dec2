import type { JSONSchemaType } from 'ajv';
import { InvalidOptionsError } from './errors';
import { compileValidator, type Validator } from './schema-validation';

/**
 * Options objects are typed and validated side by side: `JSONSchemaType<T>` keeps the schema and the type
 * from drifting, `additionalProperties: false` catches typos, and the error names the field. The validator returns a
 * copy (defaults filled), never the caller's object.
 */
export function defineOptions<T>(subject: string, schema: JSONSchemaType<T>): Validator<T> {
  return compileValidator<T>(schema, (problems) => new InvalidOptionsError(subject, problems), 'options', 'always');
}
