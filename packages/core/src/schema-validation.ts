import Ajv, { type ErrorObject, type JSONSchemaType, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { safePatternEngine } from './safe-pattern';

/**
 * `useDefaults` fills documented defaults; `verbose` keeps the failing schema so messages can list what a field
 * accepts.
 */
function newAjv(): Ajv {
  const instance = new Ajv({
    allErrors: true,
    useDefaults: true,
    verbose: true,
    strict: true,
    allowUnionTypes: true,
    // Schemas' `pattern`s run on untrusted input (an agent's tool arguments): see safe-pattern.ts.
    code: { regExp: safePatternEngine },
  });
  addFormats(instance);
  // Doc keywords that env schemas use for `turngym info`.
  instance.addKeyword({ keyword: 'x-doc', schemaType: 'string' });
  return instance;
}

/** One ajv instance for options and records: the schemas this codebase writes, each compiled once. */
export const ajv = newAjv();

/**
 * Tool schemas come from elsewhere (an env's author, an MCP server) and are compiled each time an env builds its
 * own objects: in the shared instance, every `$id` in them (nested ones too) stayed registered for the life of the
 * process, so the second make of an env whose schema has an `$id` threw "schema with key or id … already exists"
 * out of step(), and one server's `$id` could shadow another's. This instance forgets each schema once compiled.
 */
let toolAjv = newAjv();
let toolCompiles = 0;
/**
 * An ajv instance also keeps a little of every schema it compiled (its code scope): 5,000 tool schemas held 38 MB
 * after their envs were gone. A new instance every so many compiles lets that go with the validators that use it;
 * a new one costs ~20 ms (the meta-schema), 0.1 ms a compile at this rate.
 */
const COMPILES_PER_TOOL_AJV = 200;

/**
 * Validators by schema object: a tool's schema is checked by the spec checker, by an env that vets it (mcp-tools)
 * and at each call, and each of them compiled it again. Weak: a validator goes with its env's schema.
 */
const toolValidators = new WeakMap<object, ValidateFunction>();

/**
 * Compiles a tool's parameter schema on its own, once per schema object: no `$id` in it is seen by, or clashes
 * with, another schema.
 */
export function compileToolSchema(schema: object): ValidateFunction {
  const known = toolValidators.get(schema);
  if (known) return known;
  if (++toolCompiles > COMPILES_PER_TOOL_AJV) {
    toolAjv = newAjv();
    toolCompiles = 1;
  }
  try {
    const validate = toolAjv.compile(schema);
    toolValidators.set(schema, validate);
    return validate;
  } finally {
    // Drops every schema and reference but the meta-schemas; compiled validators keep what they resolved.
    toolAjv.removeSchema();
  }
}

/** At most 60 characters of `text`: feedback goes back into an agent's context, whatever size the input was. */
export function clip(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function show(value: unknown): string {
  // JSON has no Infinity or NaN: `1e400` in an agent's arguments was reported as "got null".
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  if (typeof value === 'bigint') return `${value}n`; // JSON.stringify throws on one
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    // JSON.stringify recurses: a value nested some thousands deep overflows the stack.
    return Array.isArray(value) ? 'an array nested too deeply to show' : 'an object nested too deeply to show';
  }
  if (text === undefined) return String(value);
  return clip(text);
}

function fieldName(base: string, instancePath: string): string {
  if (instancePath === '') return base;
  const path = instancePath
    .slice(1)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((part) => (/^\d+$/.test(part) ? `[${part}]` : `.${part}`))
    .join('');
  return `${base}${path}`;
}

/** Turns ajv's errors into lines a user can act on: the field, what it accepts, what it got. */
export function describeErrors(errors: readonly ErrorObject[] | null | undefined, base = 'options'): string[] {
  const lines = new Set<string>();
  for (const error of errors ?? []) {
    const field = fieldName(base, error.instancePath);
    const got = ` (got ${show(error.data)})`;
    const params = error.params as Record<string, unknown>;
    switch (error.keyword) {
      case 'required':
        lines.add(`${field}.${String(params.missingProperty)} is required`);
        break;
      case 'additionalProperties': {
        const allowed = Object.keys(
          ((error.parentSchema as { properties?: object } | undefined)?.properties ?? {}) as object,
        );
        lines.add(
          `${field} has unknown field "${clip(String(params.additionalProperty))}"` +
            (allowed.length > 0 ? `; allowed fields: ${allowed.join(', ')}` : '; no fields are allowed'),
        );
        break;
      }
      case 'enum':
        lines.add(`${field} must be one of: ${(params.allowedValues as unknown[]).map(show).join(', ')}${got}`);
        break;
      case 'const':
        lines.add(`${field} must be ${show(params.allowedValue)}${got}`);
        break;
      case 'type': {
        const type = Array.isArray(params.type) ? params.type.join(' or ') : String(params.type);
        lines.add(`${field} must be ${type}${got}`);
        break;
      }
      case 'minimum':
      case 'maximum':
      case 'exclusiveMinimum':
      case 'exclusiveMaximum':
        lines.add(`${field} must be ${String(params.comparison)} ${String(params.limit)}${got}`);
        break;
      case 'anyOf':
      case 'oneOf':
        // The branches' own errors are more specific; keep this line only if nothing else explains it.
        break;
      default:
        lines.add(`${field} ${error.message ?? 'is invalid'}${got}`);
    }
  }
  if (lines.size === 0 && (errors?.length ?? 0) > 0) lines.add(`${base} does not match any allowed shape`);
  return [...lines];
}

/** A node met while walking input: its parent link builds its field name only when one is reported. */
interface Visit {
  value: unknown;
  key: string | undefined;
  inArray: boolean;
  parent: Visit | undefined;
  depth: number;
}

function fieldOf(visit: Visit, base: string): string {
  const parts: string[] = [];
  for (let at: Visit | undefined = visit; at?.key !== undefined; at = at.parent)
    parts.push(at.inArray ? `[${at.key}]` : `.${at.key}`);
  return base + parts.reverse().join('');
}

/**
 * Walks `value` depth first in key order, without recursion (input can nest deeper than the stack), calling
 * `visit` on each node until it returns true; returns that node.
 */
function findNode(value: unknown, visit: (node: Visit) => boolean): Visit | undefined {
  const seen = new Set<object>();
  const stack: Visit[] = [{ value, key: undefined, inArray: false, parent: undefined, depth: 0 }];
  while (stack.length > 0) {
    const node = stack.pop() as Visit;
    if (visit(node)) return node;
    const current = node.value;
    if (typeof current !== 'object' || current === null || seen.has(current)) continue;
    seen.add(current);
    const entries = Object.entries(current);
    const inArray = Array.isArray(current);
    for (let index = entries.length - 1; index >= 0; index -= 1) {
      const [key, item] = entries[index] as [string, unknown];
      stack.push({ value: item, key, inArray, parent: node, depth: node.depth + 1 });
    }
  }
  return undefined;
}

/** Where in `value` the first thing sits that is not data (a function, a symbol), as a field name. */
function notData(value: unknown, field: string): string | undefined {
  const found = findNode(value, (node) => typeof node.value === 'function' || typeof node.value === 'symbol');
  if (!found) return undefined;
  return `${fieldOf(found, field)} must be data, not a ${typeof found.value === 'function' ? 'function' : 'symbol'}`;
}

/**
 * Nesting past what the stack can copy or check: structuredClone and ajv recurse, so input nested some thousands
 * deep (JSON.parse reads any depth) threw a bare RangeError instead of an error naming the field. Named at the first
 * level below `base` that holds the deepest part, with how deep it goes (the full path would be as long as the input).
 */
function tooDeep(value: unknown, base: string): string {
  let deepest: Visit | undefined;
  findNode(value, (node) => {
    if (deepest === undefined || node.depth > deepest.depth) deepest = node;
    return false;
  });
  let top = deepest;
  while (top?.parent?.parent !== undefined) top = top.parent;
  const levels = deepest?.depth ?? 0;
  return `${top ? fieldOf(top, base) : base} is nested too deeply (${levels} levels): plain data here must nest less deep`;
}

/** Whether `error` is a stack overflow (a RangeError, maybe from another realm: not tested by class). */
function isStackOverflow(error: unknown): boolean {
  const { name, message } = (error ?? {}) as { name?: unknown; message?: unknown };
  return name === 'RangeError' && typeof message === 'string' && /call stack/i.test(message);
}

/**
 * The copy that is validated (ajv fills defaults into it, never into the caller's object). Input that cannot be
 * copied is refused naming the field: a ChatModel passed as an option rather than a dependency got a bare
 * `DataCloneError`.
 */
export function cloneData(input: unknown, base: string, makeError: (problems: string[]) => Error): unknown {
  try {
    return structuredClone(input);
  } catch (error) {
    const problem = notData(input, base);
    if (problem) throw makeError([problem]);
    if (isStackOverflow(error)) throw makeError([tooDeep(input, base)]);
    throw makeError([`${base} must be plain data (${(error as Error).message})`]);
  }
}

/** Whether `value` holds, at any depth, something that is not data (iterative: records can nest deep). */
function holdsNonData(value: unknown): boolean {
  const seen = new Set<object>();
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const current = stack.pop();
    if (typeof current === 'function' || typeof current === 'symbol') return true;
    if (typeof current !== 'object' || current === null || seen.has(current)) continue;
    seen.add(current);
    for (const item of Object.values(current)) stack.push(item);
  }
  return false;
}

/**
 * Whether validating against `schema` may write into the data: of this instance's options only `useDefaults` does
 * (no coercion, no removal of fields). Any `default` key counts (a property named "default" too, which only costs
 * a copy), and so does a `$ref` out of the schema, whose target is not walked here.
 */
function mayFillDefaults(schema: unknown): boolean {
  const seen = new Set<object>();
  const stack: unknown[] = [schema];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== 'object' || node === null || seen.has(node)) continue;
    seen.add(node);
    if (!Array.isArray(node)) {
      if ('default' in node) return true;
      const ref = (node as { $ref?: unknown }).$ref;
      if (typeof ref === 'string' && !ref.startsWith('#')) return true;
    }
    for (const item of Object.values(node)) stack.push(item);
  }
  return false;
}

export type Validator<T> = ((input: unknown) => T) & { readonly schema: object };

/**
 * Compiles a schema once; the validator returns the input with its defaults filled, or throws what `makeError`
 * builds from the problem lines (each names its field). The caller's object is never written. `copy`:
 * - `'to-fill-defaults'` (data: records, files, wire bodies): a schema with defaults validates (and returns) a copy;
 *   one without validates the input itself and returns it, since copying a large record (a JSONL line of a long
 *   episode) on every read cost several times the check itself;
 * - `'always'` (options, `defineOptions`): always a copy, so an object built from options keeps them as they were
 *   when it was built, whatever its caller does to its own object later.
 */
export function compileValidator<T>(
  schema: JSONSchemaType<T> | object,
  makeError: (problems: string[]) => Error,
  base = 'options',
  copy: 'to-fill-defaults' | 'always' = 'to-fill-defaults',
): Validator<T> {
  const validate = ajv.compile(schema) as ValidateFunction<T>;
  const fillsDefaults = copy === 'always' || mayFillDefaults(schema);
  const validator = (input: unknown): T => {
    let checked: unknown;
    if (input === undefined) checked = {};
    else if (fillsDefaults) checked = cloneData(input, base, makeError);
    else if (holdsNonData(input)) throw makeError([notData(input, base) ?? `${base} must be plain data`]);
    else checked = input;
    let valid: boolean;
    try {
      valid = validate(checked);
    } catch (error) {
      // A recursive schema ($ref to itself) walks the input as deep as it nests.
      if (isStackOverflow(error)) throw makeError([tooDeep(checked, base)]);
      throw error;
    }
    if (!valid) throw makeError(describeErrors(validate.errors, base));
    return checked as T; // valid: the guard's narrowing does not outlive the try
  };
  return Object.assign(validator, { schema });
}
