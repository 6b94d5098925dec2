/** The paths the server answers. Every env route also exists under `/envs/<env id>/` for that env. */
export const ENV_ROUTES = [
  'ws',
  'mux',
  'health',
  'metadata',
  'schema',
  'state',
  'reset',
  'step',
  'openapi.json',
  'mcp',
] as const;
export type EnvRoute = (typeof ENV_ROUTES)[number];

export type Route =
  | { kind: 'env'; route: EnvRoute; envId?: string }
  | { kind: 'envs' }
  | { kind: 'session'; sessionId: string; operation: 'fingerprint' | 'anchor'; envId?: string };

const ENV_SCOPED = new RegExp(`^/envs/(.+)/(${ENV_ROUTES.map((route) => route.replace('.', '\\.')).join('|')})$`);
// Session routes sit under the path prefix of the session's own WebSocket (`/envs/<id>`, or none), which
// RemoteEnv derives its side requests from; any other prefix is the server's own paths.
const SESSION = /^(.*)\/sessions\/([A-Za-z0-9-]{1,100})\/(fingerprint|anchor)$/;

/** The env id of a path's `/envs/<id>/…` part, percent-encoded or not; undefined when it is no valid encoding. */
function decodeEnvId(encoded: string): string | undefined {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return undefined;
  }
}

/**
 * The one reading of a request path, for the env server and the MCP server alike:
 * `/ws`, `/envs/turngym/example-v1/ws`, `/sessions/<id>/fingerprint` … An env id inside a path may be
 * percent-encoded or not (`/envs/turngym%2Fexample-v1/ws`): OpenEnv's client appends `/ws` to whatever base
 * URL it is given, so a per-env base URL is how it picks an env.
 */
export function parseRoute(pathname: string): Route | undefined {
  if (pathname === '/envs' || pathname === '/envs/') return { kind: 'envs' };
  const session = SESSION.exec(pathname);
  if (session) {
    const prefix = /^\/envs\/(.+)$/.exec(session[1] as string)?.[1];
    const envId = prefix === undefined ? undefined : decodeEnvId(prefix);
    if (prefix !== undefined && envId === undefined) return undefined;
    return {
      kind: 'session',
      sessionId: session[2] as string,
      operation: session[3] as 'fingerprint' | 'anchor',
      ...(envId === undefined ? {} : { envId }),
    };
  }
  const scoped = ENV_SCOPED.exec(pathname);
  if (scoped) {
    const envId = decodeEnvId(scoped[1] as string);
    return envId === undefined ? undefined : { kind: 'env', route: scoped[2] as EnvRoute, envId };
  }
  const plain = /^\/([a-z.]+)$/.exec(pathname);
  if (plain && (ENV_ROUTES as readonly string[]).includes(plain[1] as string))
    return { kind: 'env', route: plain[1] as EnvRoute };
  return undefined;
}
