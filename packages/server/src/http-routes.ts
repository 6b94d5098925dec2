import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { TurnGymError } from '@turngym/core';
import type { Action, Env, EnvSpec } from '@turngym/spec';
import { decodeAction } from './action-codec';
import { metadataOf, openApiOf, schemaOf } from './env-descriptions';
import { toErrorData } from './error-mapping';
import { decodeUtf8 } from './frame-text';
import { declaresBodyOver, leavesChunkedBodyUnread } from './http-limits';
import { checkJsonDepth } from './json-depth';
import { validateFingerprintBody, validateResetBody, validateStepBody, type ResetData } from './message-schemas';
import { answerMcp, type McpBody } from './mcp-route';
import { calledTool, callToolReply, isListTools, listToolsReply } from './mcp-tool-actions';
import { encodeReset, encodeStep } from './observation-codec';
import type { ErrorData, ProtocolErrorCode } from './protocol';
import type { EnvRoute, Route } from './routes';
import { InvalidRequestError, SessionNotFoundError } from './server-errors';
import type { Session } from './session';
import { mergeConfig, type SessionConfig } from './session-config';

/** What the HTTP routes need from the server. */
export interface HttpContext {
  readonly serverVersion: string;
  readonly maxFrameBytes: number;
  readonly isStopping: boolean;
  /** Canonical id of a served env (throws NameNotFoundError naming the served ones). */
  resolveEnvId(id: string): string;
  specOf(envId: string): EnvSpec;
  /** The served env's package version (from its registration or spec), if one is recorded. */
  envVersion(envId: string): string | undefined;
  servedSpecs(): EnvSpec[];
  session(sessionId: string): Session | undefined;
  /**
   * MCP's `openenv/session/create` over `POST /mcp`: a session no connection carries, reset (with `params.seed`, if
   * sent), on `endpoint` (the canonical id of an `/envs/<id>/mcp` path, else undefined). Throws McpRequestError.
   */
  openMcpSession(envId: string, endpoint: string | undefined, params: Record<string, unknown>): Promise<unknown>;
  /** A live session `openMcpSession` made on `endpoint`. */
  mcpSession(sessionId: string, endpoint: string | undefined): Session | undefined;
  /** `openenv/session/close` of such a session; throws McpRequestError for any other id. */
  closeMcpSession(sessionId: string, endpoint: string | undefined): Promise<unknown>;
  /** Builds a short-lived env for a stateless request, counted against capacity while it lives. */
  /** The client's `env_options` pass the allow-list first (a refusal: 422 naming the option). */
  withEnv<T>(config: SessionConfig, body: (env: Env<unknown, Action>) => Promise<T>): Promise<T>;
}

class PayloadTooLargeError extends TurnGymError {
  constructor(readonly limit: number) {
    super('PAYLOAD_TOO_LARGE', `Request body over the server's limit of ${limit} bytes`);
  }
}

const STATUS: Readonly<Record<ProtocolErrorCode, number>> = {
  INVALID_JSON: 422,
  UNKNOWN_TYPE: 400,
  VALIDATION_ERROR: 422,
  EXECUTION_ERROR: 500,
  CAPACITY_REACHED: 503,
  FACTORY_ERROR: 404,
  SESSION_ERROR: 404,
};

export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...(leavesChunkedBodyUnread(response) ? { connection: 'close' } : {}),
    ...headers,
  });
  response.end(text);
}

/**
 * 413 for a body over the limit, and the connection closed: the rest of the body is never read (a client sending
 * a gigabyte learns at once, and the server does not take it in only to drop it).
 */
export function sendPayloadTooLarge(response: ServerResponse, limit: number): void {
  sendJson(response, 413, { detail: new PayloadTooLargeError(limit).message }, { connection: 'close' });
}

/** FastAPI's error shapes: 422 → `{"detail": [{type, loc, msg}]}`, others `{"detail": message, code, …}`. */
function sendError(response: ServerResponse, error: unknown): void {
  if (error instanceof PayloadTooLargeError) {
    sendPayloadTooLarge(response, error.limit);
    return;
  }
  const data: ErrorData = toErrorData(error);
  const status = STATUS[data.code] ?? 500;
  if (status === 422) {
    const detail =
      data.errors && data.errors.length > 0 ? data.errors : [{ type: 'value_error', loc: ['body'], msg: data.message }];
    sendJson(response, 422, {
      detail,
      code: data.code,
      ...(data.turngym_code ? { turngym_code: data.turngym_code } : {}),
    });
    return;
  }
  const { message, ...rest } = data;
  sendJson(response, status, { detail: message, ...rest });
}

function readBody(request: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    if (declaresBodyOver(request, limit)) return reject(new PayloadTooLargeError(limit));
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size <= limit) {
        chunks.push(chunk);
        return;
      }
      // A chunked body past the limit is refused now, not once its last chunk is in: the 413 closes the
      // connection, and what the client is still sending is never read.
      request.off('data', onData);
      request.off('end', onEnd);
      request.pause();
      chunks.length = 0;
      reject(new PayloadTooLargeError(limit));
    };
    const onEnd = (): void => {
      const text = decodeUtf8(Buffer.concat(chunks));
      if (text !== undefined) resolve(text);
      else {
        reject(
          new InvalidRequestError('Invalid JSON: the body is not valid UTF-8', [
            { type: 'json_invalid', loc: ['body'], msg: 'JSON decode error: the body is not valid UTF-8' },
          ]),
        );
      }
    };
    request.on('data', onData);
    request.on('end', onEnd);
    request.on('error', reject);
  });
}

async function readJson(request: IncomingMessage, limit: number, emptyAs: unknown): Promise<unknown> {
  const text = await readBody(request, limit);
  if (text.trim() === '') return emptyAs;
  checkJsonDepth(text, ['body']);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new InvalidRequestError(`Invalid JSON: ${(error as Error).message}`, [
      { type: 'json_invalid', loc: ['body'], msg: 'JSON decode error' },
    ]);
  }
}

function configFor(envId: string, data: ResetData): SessionConfig {
  return mergeConfig({ envId }, data);
}

function resetArgs(data: ResetData): { seed?: number; options?: Record<string, unknown> } {
  return {
    ...(data.seed === undefined ? {} : { seed: data.seed }),
    ...(data.options === undefined ? {} : { options: data.options }),
  };
}

const ALLOWED_METHOD: Readonly<Record<Exclude<EnvRoute, 'ws' | 'mux'>, 'GET' | 'POST'>> = {
  health: 'GET',
  metadata: 'GET',
  schema: 'GET',
  state: 'GET',
  reset: 'POST',
  step: 'POST',
  'openapi.json': 'GET',
  mcp: 'POST',
};

function servesEnv(context: HttpContext, envId: string): boolean {
  try {
    context.resolveEnvId(envId);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether a route of `allowed` takes `method`. A GET route answers HEAD too, as OpenEnv's (Starlette adds HEAD to
 * every GET route): uptime monitors and load balancers probe `/health` with HEAD. Node sends a HEAD reply's
 * headers without its body.
 */
function allows(allowed: 'GET' | 'POST', method: string): boolean {
  return method === allowed || (allowed === 'GET' && method === 'HEAD');
}

function allowHeader(allowed: 'GET' | 'POST'): string {
  return allowed === 'GET' ? 'GET, HEAD' : allowed;
}

/** Answers one HTTP request (auth is checked by the caller; /health needs none). */
export async function handleHttp(
  context: HttpContext,
  route: Route,
  envId: string,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const method = request.method ?? 'GET';
  try {
    if (route.kind === 'envs') {
      if (!allows('GET', method))
        return sendJson(response, 405, { detail: 'Method Not Allowed' }, { allow: allowHeader('GET') });
      return sendJson(response, 200, {
        envs: context.servedSpecs().map((spec) => ({ id: spec.id, summary: spec.summary, spec })),
      });
    }
    if (route.kind === 'session') return await handleSessionRoute(context, route, method, request, response);
    if (route.route === 'ws' || route.route === 'mux') {
      return sendJson(
        response,
        426,
        { detail: `Upgrade Required: /${route.route} is a WebSocket endpoint` },
        { upgrade: 'websocket' },
      );
    }
    const allowed = ALLOWED_METHOD[route.route];
    if (!allows(allowed, method))
      return sendJson(response, 405, { detail: 'Method Not Allowed' }, { allow: allowHeader(allowed) });
    if (route.route === 'health') {
      // A probe of one env's path (`/envs/<id>/health`) is told when this server does not serve that env, rather
      // than "healthy" for a typo; without the list of served ids, since /health needs no token.
      if (!servesEnv(context, envId)) return sendJson(response, 404, { detail: 'Not Found' });
      return sendJson(response, context.isStopping ? 503 : 200, {
        status: context.isStopping ? 'unhealthy' : 'healthy',
      });
    }
    const canonical = context.resolveEnvId(envId);
    const spec = context.specOf(canonical);
    switch (route.route) {
      case 'metadata':
        return sendJson(response, 200, metadataOf(spec, context.envVersion(canonical)));
      case 'schema':
        return sendJson(response, 200, schemaOf(spec));
      case 'openapi.json':
        return sendJson(response, 200, openApiOf(spec, context.serverVersion));
      case 'state':
        // Stateless, like OpenEnv's GET /state: the state of a fresh env, whose episode gets a fresh id as
        // OpenEnv's envs give theirs (State.episode_id), so a generic client always reads a string there.
        return sendJson(response, 200, {
          episode_id: randomUUID(),
          step_count: 0,
          env_id: canonical,
          seed: null,
          done: false,
        });
      case 'reset': {
        // A JSON `null` body is no body, as FastAPI reads it for OpenEnv's optional ResetRequest body.
        const body = await readJson(request, context.maxFrameBytes, {});
        const data = validateResetBody(body === null ? {} : body, ['body']);
        const reply = await context.withEnv(configFor(canonical, data), async (env) =>
          encodeReset(await env.reset(resetArgs(data)), () => env.anchor()),
        );
        return sendJson(response, 200, reply);
      }
      case 'step': {
        // OpenEnv builds a fresh env per request; a TurnGym env needs a reset first (seed from the body, else 0).
        const raw = await readJson(request, context.maxFrameBytes, {});
        // FastAPI reads a JSON `null` as no body: StepRequest's is required, so it is `missing`, not a wrong type.
        if (raw === null)
          throw new InvalidRequestError('Invalid request body: body is required', [
            { type: 'missing', loc: ['body'], msg: 'body is required', input: null },
          ]);
        const body = validateStepBody(raw, ['body']);
        // OpenEnv's ListToolsAction: the env's tools, from its spec; no env is built and no step taken.
        if (isListTools(body.action, [])) return sendJson(response, 200, listToolsReply(spec, false));
        const toolName = calledTool(body.action);
        const reply = await context.withEnv(configFor(canonical, body), async (env) => {
          // OpenEnv validates the action as its own model, so a bad field's loc is the field alone (`["text"]`);
          // an action that is no action object at all stays at `["body", "action"]`.
          const action = decodeAction(body.action, env.spec, ['body', 'action'], []);
          await env.reset({ seed: body.seed ?? 0, ...(body.options === undefined ? {} : { options: body.options }) });
          return encodeStep(await env.step(action), () => env.anchor());
        });
        return sendJson(response, 200, toolName === undefined ? reply : callToolReply(reply, toolName));
      }
      case 'mcp': {
        // A body too large is refused as on every route (413); one that is no JSON is JSON-RPC's parse error.
        const body: McpBody = await readJson(request, context.maxFrameBytes, undefined).then(
          (value) => ({ value }),
          (error: unknown) => {
            if (error instanceof PayloadTooLargeError) throw error;
            return { parseError: (error as Error).message };
          },
        );
        const endpoint = route.envId === undefined ? undefined : canonical;
        const answer = await answerMcp(
          context,
          canonical,
          spec,
          body,
          request.headers['mcp-protocol-version'],
          endpoint,
        );
        if (answer.status === 202) {
          response.writeHead(202, { 'content-length': 0 });
          response.end();
          return;
        }
        return sendJson(response, answer.status, answer.reply);
      }
    }
  } catch (error) {
    sendError(response, error);
  }
}

async function handleSessionRoute(
  context: HttpContext,
  route: Extract<Route, { kind: 'session' }>,
  method: string,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const session = context.session(route.sessionId);
  // A session answers on the env path it was opened on only (as its forks are claimed): a proxy may grant a
  // client one env's path and not another's.
  let endpoint: string | undefined;
  try {
    endpoint = route.envId === undefined ? undefined : context.resolveEnvId(route.envId);
  } catch {
    throw new SessionNotFoundError(route.sessionId);
  }
  if (!session || session.isClosing || session.endpoint !== endpoint) throw new SessionNotFoundError(route.sessionId);
  if (route.operation === 'anchor') {
    if (!allows('GET', method))
      return sendJson(response, 405, { detail: 'Method Not Allowed' }, { allow: allowHeader('GET') });
    return sendJson(response, 200, { anchor: session.currentEnv.anchor() });
  }
  if (method !== 'POST') return sendJson(response, 405, { detail: 'Method Not Allowed' }, { allow: 'POST' });
  const body = validateFingerprintBody(await readJson(request, context.maxFrameBytes, {}), ['body']);
  const action = decodeAction(body.action, session.spec, ['body', 'action']);
  return sendJson(response, 200, { fingerprint: session.currentEnv.fingerprint(action) });
}
