import type { MuxEnvelope, OpenData, SessionConfigData } from './protocol';
import { requestValidator, type RequestValidator } from './request-validation';
import { foldExtraFields, type ExtraFields } from './reset-fields';

/**
 * JSON Schemas of everything a client sends, compiled once. OpenEnv's pydantic models forbid extra fields on
 * messages (`{"type":"state","data":{}}` is a VALIDATION_ERROR); these schemas do the same. `reset`'s data and
 * the `POST /reset` and `POST /step` bodies allow extra fields, as OpenEnv's ResetRequest and StepRequest do
 * (`extra="allow"`): see `foldExtraFields` for where they go.
 */

const sessionConfigProperties = {
  env_id: { type: 'string', minLength: 1, maxLength: 200, description: 'Which served env this session runs.' },
  env_options: { type: 'object', description: "Options for make(), validated against the env's own schema." },
  max_turns: {
    type: 'integer',
    minimum: 1,
    maximum: 1000000,
    description: "Turn limit (default: the env's spec.maxTurns).",
  },
  budget: {
    type: 'object',
    additionalProperties: false,
    properties: {
      max_tool_calls: { type: 'integer', minimum: 0 },
      max_llm_tokens: { type: 'integer', minimum: 0 },
    },
    description: 'Per-episode budgets; the step that reaches one is truncated.',
  },
} as const;

/**
 * `reset` data / `POST /reset` body: OpenEnv's ResetRequest (`seed`, `episode_id`) plus TurnGym's keys, and
 * `request_id` (StepRequest's tracking id, which a client may add to every request; read by nobody). Over HTTP the
 * seed is OpenEnv's `ge=0`; over the WebSocket, where OpenEnv hands the seed to the env unchecked, it is any seed
 * an env's reset() takes, so a RemoteEnv resets as the env in-process does.
 */
function resetDataSchemaFrom(seedMinimum: number) {
  return {
    type: 'object',
    properties: {
      // The bounds every env's reset() enforces (SeededRng): a seed past them is the client's error, said here by
      // name, not a RangeError from inside the env (EXECUTION_ERROR, HTTP 500).
      seed: {
        type: 'integer',
        minimum: seedMinimum,
        maximum: Number.MAX_SAFE_INTEGER,
        description: 'Same seed, same episode.',
      },
      episode_id: { type: 'string', maxLength: 255 },
      options: { type: 'object', description: 'Per-episode options the env documents (ResetArgs.options).' },
      request_id: { type: 'string', maxLength: 255, description: 'A tracking id, as on /step; not read.' },
      ...sessionConfigProperties,
    },
  } as const;
}

export const resetDataSchema = resetDataSchemaFrom(-Number.MAX_SAFE_INTEGER);

/** `POST /reset` body: as `reset`'s data, with OpenEnv's ResetRequest bound on the seed (`ge=0`). */
const resetBodySchema = resetDataSchemaFrom(0);

/** The reset fields TurnGym reads; any other is one of the episode's reset options (`foldExtraFields`). */
const RESET_FIELDS: readonly string[] = Object.keys(resetDataSchema.properties);

export interface ResetData extends SessionConfigData {
  seed?: number;
  episode_id?: string;
  options?: Record<string, unknown>;
  request_id?: string;
}

export const sessionConfigSchema = {
  type: 'object',
  additionalProperties: false,
  properties: sessionConfigProperties,
} as const;

/**
 * OpenEnv's optional request fields (pydantic `Optional[...] = None`): null is their default, so a client may
 * send it. OpenEnv's own client does whenever a caller passes None along (`env.reset(seed=None)` sends
 * `{"seed": null}`): null means absent here too, rather than a VALIDATION_ERROR.
 */
const NULL_MEANS_ABSENT: readonly string[] = ['seed', 'episode_id', 'timeout_s', 'request_id'];

function withoutNullOptionals(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const record = value as Record<string, unknown>;
  if (!NULL_MEANS_ABSENT.some((key) => record[key] === null)) return value;
  return Object.fromEntries(
    Object.entries(record).filter(([key, field]) => !(field === null && NULL_MEANS_ABSENT.includes(key))),
  );
}

/** A validator that first drops OpenEnv's optional fields sent as null, from the body or from a message's data. */
function nullTolerant<T>(validator: RequestValidator<T>, at: 'body' | 'data'): RequestValidator<T> {
  const check = (input: unknown, loc?: readonly (string | number)[]): T => {
    if (at === 'body') return validator(withoutNullOptionals(input), loc);
    const message = input as Record<string, unknown> | null;
    const tolerant =
      typeof message === 'object' && message !== null && !Array.isArray(message) && 'data' in message
        ? { ...message, data: withoutNullOptionals(message.data) }
        : input;
    return validator(tolerant, loc);
  };
  return Object.assign(check, { schema: validator.schema });
}

const typeOnly = (type: string): object => ({
  type: 'object',
  additionalProperties: false,
  required: ['type'],
  properties: { type: { const: type } },
});

const withData = (type: string, data: object, required: boolean): object => ({
  type: 'object',
  additionalProperties: false,
  required: required ? ['type', 'data'] : ['type'],
  properties: { type: { const: type }, data },
});

export const MAX_FINGERPRINT_BATCH = 1024;

/** The most envelopes one `/mux` frame may carry. */
export const MAX_MUX_BATCH = 4096;

/** `reset`'s data with its extra fields moved into `options` (at `["data", <field>]` when one is refused). */
function foldingResetData(
  validator: RequestValidator<{ type: 'reset'; data?: ResetData }>,
): RequestValidator<{ type: 'reset'; data?: ResetData }> {
  const check = (input: unknown, loc: readonly (string | number)[] = []): { type: 'reset'; data?: ResetData } => {
    const message = validator(input, loc);
    if (message.data === undefined) return message;
    return {
      ...message,
      data: foldExtraFields(message.data, RESET_FIELDS, 'options', [...loc, 'data'], 'Invalid message'),
    };
  };
  return Object.assign(check, { schema: validator.schema });
}

export const validateMessage = {
  reset: foldingResetData(
    nullTolerant(
      requestValidator<{ type: 'reset'; data?: ResetData }>(
        withData('reset', resetDataSchema, false),
        'Invalid message',
      ),
      'data',
    ),
  ),
  // The action itself is checked by decodeAction against the session's action space.
  step: requestValidator<{ type: 'step'; data: unknown }>(
    withData('step', { type: 'object' }, true),
    'Invalid message',
  ),
  state: requestValidator<{ type: 'state' }>(typeOnly('state'), 'Invalid message'),
  close: requestValidator<{ type: 'close' }>(typeOnly('close'), 'Invalid message'),
  fork: requestValidator<{ type: 'fork' }>(typeOnly('fork'), 'Invalid message'),
  anchor: requestValidator<{ type: 'anchor' }>(typeOnly('anchor'), 'Invalid message'),
  session: requestValidator<{ type: 'session'; data?: SessionConfigData }>(
    withData('session', sessionConfigSchema, false),
    'Invalid message',
  ),
  open: requestValidator<{ type: 'open'; data?: OpenData }>(
    withData(
      'open',
      {
        type: 'object',
        additionalProperties: false,
        properties: { ...sessionConfigProperties, session: { type: 'string', minLength: 1, maxLength: 100 } },
      },
      false,
    ),
    'Invalid message',
  ),
  // OpenEnv's WSMCPMessage: `data` is a JSON-RPC request, checked as one by the MCP handler (-32600 if it is not).
  mcp: requestValidator<{ type: 'mcp'; data: Record<string, unknown> }>(
    withData('mcp', { type: 'object' }, true),
    'Invalid message',
  ),
  fingerprint: requestValidator<{ type: 'fingerprint'; data: { actions: unknown[] } }>(
    withData(
      'fingerprint',
      {
        type: 'object',
        additionalProperties: false,
        required: ['actions'],
        properties: { actions: { type: 'array', maxItems: MAX_FINGERPRINT_BATCH, items: { type: 'object' } } },
      },
      true,
    ),
    'Invalid message',
  ),
};

/** A body validator that then folds the body's extra fields (`foldExtraFields`). */
function foldingBody<T extends ResetData>(
  validator: RequestValidator<T>,
  known: readonly string[],
  extras: ExtraFields,
): RequestValidator<T> {
  const check = (input: unknown, loc: readonly (string | number)[] = []): T =>
    foldExtraFields(validator(input, loc), known, extras, loc, 'Invalid request body');
  return Object.assign(check, { schema: validator.schema });
}

const stepBodySchema = {
  type: 'object',
  required: ['action'],
  properties: {
    action: { type: 'object' },
    timeout_s: { type: 'number', exclusiveMinimum: 0 },
    ...resetBodySchema.properties,
  },
} as const;

/**
 * `POST /step` body: OpenEnv's StepRequest (`action`, `timeout_s`, `request_id`) plus the reset keys of the
 * episode it steps. Other fields are step parameters in OpenEnv (`env.step(action, **kwargs)`): no TurnGym step
 * takes one, so they are ignored, as an OpenEnv env whose step() has no such parameter never sees them.
 */
export const validateStepBody = foldingBody(
  nullTolerant(
    requestValidator<ResetData & { action: unknown; timeout_s?: number }>(stepBodySchema, 'Invalid request body'),
    'body',
  ),
  Object.keys(stepBodySchema.properties),
  'ignored',
);

/** `POST /reset` body; extra fields are the episode's reset options. */
export const validateResetBody = foldingBody(
  nullTolerant(requestValidator<ResetData>(resetBodySchema, 'Invalid request body'), 'body'),
  RESET_FIELDS,
  'options',
);

/** `POST /sessions/<id>/fingerprint` body (the synchronous side channel of RemoteEnv.fingerprint). */
export const validateFingerprintBody = requestValidator<{ action: unknown }>(
  { type: 'object', additionalProperties: false, required: ['action'], properties: { action: { type: 'object' } } },
  'Invalid request body',
);

/**
 * Query parameters of every route. Unknown ones are ignored, as FastAPI (OpenEnv's server) ignores them: a
 * load balancer's probe or a proxy adds cache-busters and tracking parameters the client never chose.
 */
export const validateQuery = requestValidator<{ env?: string; session?: string; token?: string }>(
  {
    type: 'object',
    additionalProperties: true,
    properties: {
      env: { type: 'string', minLength: 1, maxLength: 200 },
      session: { type: 'string', minLength: 1, maxLength: 100 },
      token: { type: 'string' },
    },
  },
  'Invalid query',
);

/** `POST /mcp`: a JSON-RPC 2.0 request. */
export const validateJsonRpc = requestValidator<{
  jsonrpc: '2.0';
  id?: string | number | null;
  method: string;
  params?: Record<string, unknown>;
}>(
  {
    type: 'object',
    required: ['jsonrpc', 'method'],
    additionalProperties: false,
    properties: {
      jsonrpc: { const: '2.0' },
      id: { type: ['string', 'integer', 'null'] },
      method: { type: 'string' },
      params: { type: 'object' },
    },
  },
  'Invalid JSON-RPC request',
);

/** A `/mux` frame: an array of envelopes `{c, m}`. */
export const validateMuxFrame = requestValidator<MuxEnvelope[]>(
  {
    type: 'array',
    maxItems: MAX_MUX_BATCH,
    items: {
      type: 'object',
      additionalProperties: false,
      required: ['c', 'm'],
      properties: { c: { type: 'integer', minimum: 0, maximum: 2147483647 }, m: {} },
    },
  },
  'Invalid frame',
);
