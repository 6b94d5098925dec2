import type { EnvSpec } from '@turngym/spec';
import { actionSchema } from './action-codec';
import { ENV_ROUTES, type EnvRoute } from './routes';

/**
 * `GET /metadata`: OpenEnv's EnvironmentMetadata (its model forbids other keys, so there are none). `version`
 * is the env package's version (its registration's, else its spec's), left out when neither records one.
 */
export function metadataOf(spec: EnvSpec, version: string | undefined = spec.packageVersion): Record<string, unknown> {
  return {
    name: spec.id,
    description: spec.summary,
    readme_content: readmeOf(spec),
    ...(version ? { version } : {}),
  };
}

/** The env's Gymnasium-style doc sections as Markdown, plus its tools and the wire forms of an action. */
export function readmeOf(spec: EnvSpec): string {
  const lines = [`# ${spec.id}`, '', spec.summary, ''];
  const docs = spec.docs;
  if (docs) {
    const sections: Array<[string, string]> = [
      ['Description', docs.description],
      ['Action Space', docs.actionSpace],
      ['Observation Space', docs.observationSpace],
      ['Rewards', docs.rewards],
      ['Starting State', docs.startingState],
      ['Episode End', docs.episodeEnd],
      ['Arguments', docs.arguments],
      ['Version History', docs.versionHistory],
    ];
    for (const [title, text] of sections) lines.push(`## ${title}`, '', text, '');
  }
  const tools = spec.tools ?? (spec.actionSpace.type === 'tools' ? spec.actionSpace.tools : []);
  if (tools.length > 0) {
    lines.push('## Tools', '');
    for (const tool of tools)
      lines.push(`- \`${tool.name}\` ${tool.description} Arguments: \`${JSON.stringify(tool.parameters)}\``);
    lines.push('');
  }
  lines.push(
    '## Actions on the wire',
    '',
    'Send `{"text": "..."}` (the raw text), `{"tool": NAME, "arguments": {...}}` (tool spaces) or `{"index": n}` (discrete spaces).',
    '',
  );
  return lines.join('\n');
}

/**
 * `/schema`'s observation: a flat object schema (pydantic's shape, as for the action). Text envs send
 * `{"text": ...}`, others `{"value": <JSON>}`; the step's info is the reply's top-level `metadata`.
 */
export function observationSchema(spec: EnvSpec): Record<string, unknown> {
  return {
    type: 'object',
    title: 'TurnGymObservation',
    description:
      'Text envs send {"text": ...}, others {"value": <JSON>}. The step info is the top-level "metadata" of the observation reply.',
    properties: {
      text: { type: 'string', description: 'The observation of a text env.' },
      value: { description: 'The observation of any other env, as JSON.' },
    },
    required: spec.observationSpace.type === 'text' ? ['text'] : [],
  };
}

export const STATE_SCHEMA = {
  title: 'TurnGymState',
  type: 'object',
  properties: {
    episode_id: { type: 'string', description: "The client's episode_id, else <session_id>:<resets>." },
    step_count: { type: 'integer', minimum: 0 },
    env_id: { type: 'string' },
    session_id: { type: 'string' },
    seed: { type: ['integer', 'null'], description: 'The seed the last reset used (sent, or drawn by the env).' },
    done: { type: 'boolean' },
  },
  required: ['episode_id', 'step_count'],
};

/** `GET /schema`: OpenEnv's SchemaResponse. */
export function schemaOf(spec: EnvSpec): Record<string, unknown> {
  return { action: actionSchema(spec), observation: observationSchema(spec), state: STATE_SCHEMA };
}

/** `GET /openapi.json`: enough of an OpenAPI 3.1 document for `openenv validate` and API browsers. */
export function openApiOf(spec: EnvSpec, serverVersion: string): Record<string, unknown> {
  const json = (schema: object): Record<string, unknown> => ({ content: { 'application/json': { schema } } });
  const observationReply = {
    type: 'object',
    required: ['observation', 'reward', 'done'],
    properties: {
      observation: observationSchema(spec),
      reward: { type: ['number', 'null'] },
      done: { type: 'boolean' },
      metadata: { type: 'object' },
      terminated: { type: 'boolean' },
      truncated: { type: 'boolean' },
    },
  };
  // FastAPI's HTTPValidationError: what every 422 carries.
  const validationError = {
    description: 'Validation Error',
    ...json({
      type: 'object',
      properties: {
        detail: {
          type: 'array',
          items: {
            type: 'object',
            required: ['type', 'loc', 'msg'],
            properties: {
              type: { type: 'string' },
              loc: { type: 'array', items: { type: ['string', 'integer'] } },
              msg: { type: 'string' },
              input: {},
            },
          },
        },
      },
    }),
  };
  const envPaths: Record<EnvRoute, Record<string, unknown>> = {
    health: { get: { summary: 'Health check', responses: { '200': { description: 'healthy' } } } },
    metadata: {
      get: { summary: 'Environment metadata', responses: { '200': { description: 'EnvironmentMetadata' } } },
    },
    schema: {
      get: {
        summary: 'Action, observation and state schemas',
        responses: { '200': { description: 'SchemaResponse' } },
      },
    },
    state: {
      get: {
        summary: 'State of a fresh env (stateless; a WebSocket session answers `{"type":"state"}` with its own)',
        responses: { '200': { description: 'State', ...json(STATE_SCHEMA) } },
      },
    },
    reset: {
      post: {
        summary: 'Reset a fresh env (stateless)',
        requestBody: json({
          type: 'object',
          // As OpenEnv's ResetRequest: extra fields allowed (here: the episode's reset options).
          additionalProperties: true,
          properties: {
            seed: { type: 'integer', minimum: 0 },
            episode_id: { type: 'string', maxLength: 255 },
            options: { type: 'object' },
          },
        }),
        responses: { '200': { description: 'observation', ...json(observationReply) }, '422': validationError },
      },
    },
    step: {
      post: {
        summary: 'Reset a fresh env and apply one action (stateless)',
        requestBody: json({
          type: 'object',
          required: ['action'],
          // As OpenEnv's StepRequest: extra fields allowed (step parameters, which no TurnGym step takes).
          additionalProperties: true,
          properties: {
            action: actionSchema(spec),
            timeout_s: { type: 'number', exclusiveMinimum: 0 },
            request_id: { type: 'string', maxLength: 255 },
            seed: { type: 'integer', minimum: 0 },
          },
        }),
        responses: {
          '200': { description: 'observation', ...json(observationReply) },
          '422': validationError,
        },
      },
    },
    'openapi.json': {
      get: { summary: 'This OpenAPI document', responses: { '200': { description: 'OpenAPI 3.1' } } },
    },
    mcp: {
      post: {
        summary: 'MCP JSON-RPC 2.0: tools/list, tools/call (stateless)',
        responses: { '200': { description: 'JSON-RPC response' } },
      },
    },
    ws: {
      get: {
        summary: 'WebSocket session (reset, step, state, close; TurnGym: session, fork, fingerprint, anchor)',
        responses: { '101': { description: 'upgrade' } },
      },
    },
    mux: {
      get: {
        summary: 'WebSocket carrying many sessions, one per channel (TurnGym)',
        responses: { '101': { description: 'upgrade' } },
      },
    },
  };
  const envId = { name: 'env_id', in: 'path', required: true, schema: { type: 'string' } };
  const sessionId = { name: 'session_id', in: 'path', required: true, schema: { type: 'string' } };
  const paths: Record<string, unknown> = {};
  for (const route of ENV_ROUTES) paths[`/${route}`] = envPaths[route];
  // Every env route again under /envs/<env id>/ (the id percent-encoded or not).
  for (const route of ENV_ROUTES) {
    const operations: Record<string, unknown> = {};
    for (const [method, operation] of Object.entries(envPaths[route]))
      operations[method] = { ...(operation as object), parameters: [envId] };
    paths[`/envs/{env_id}/${route}`] = operations;
  }
  paths['/envs'] = {
    get: { summary: 'Served env ids and specs (TurnGym)', responses: { '200': { description: 'envs' } } },
  };
  paths['/sessions/{session_id}/fingerprint'] = {
    post: {
      summary: "Fingerprint of an action in a session's current state (TurnGym; RemoteEnv's synchronous hook)",
      parameters: [sessionId],
      requestBody: json({ type: 'object', required: ['action'], properties: { action: actionSchema(spec) } }),
      responses: { '200': { description: '{fingerprint}' }, '422': validationError },
    },
  };
  paths['/sessions/{session_id}/anchor'] = {
    get: {
      summary: "Anchor of a session's current state (TurnGym)",
      parameters: [sessionId],
      responses: { '200': { description: '{anchor}' } },
    },
  };
  return {
    openapi: '3.1.0',
    info: { title: `TurnGym env server: ${spec.id}`, version: serverVersion, description: spec.summary },
    paths,
  };
}
