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

/**
 * `/ws`, `/envs/turngym/example-v1/ws`, `/sessions/<id>/fingerprint` … An env id inside a path may be
 * percent-encoded or not (`/envs/turngym%2Fexample-v1/ws`): OpenEnv's client appends `/ws` to whatever base
 * URL it is given, so a per-env base URL is how it picks an env.
 */
export function parseRoute(pathname: string): Route | undefined {
  if (pathname === '/envs' || pathname === '/envs/') return { kind: 'envs' };
  const session = SESSION.exec(pathname);
  if (session) {
    const prefix = /^\/envs\/(.+)$/.exec(session[1] as string)?.[1];
    let envId: string | undefined;
    try {
      envId = prefix === undefined ? undefined : decodeURIComponent(prefix);
    } catch {
      return undefined;
    }
    return {
      kind: 'session',
      sessionId: session[2] as string,
      operation: session[3] as 'fingerprint' | 'anchor',
      ...(envId === undefined ? {} : { envId }),
    };
  }
  const scoped = ENV_SCOPED.exec(pathname);
  if (scoped) {
    let envId: string;
    try {
      envId = decodeURIComponent(scoped[1] as string);
    } catch {
      return undefined;
    }
    return { kind: 'env', route: scoped[2] as EnvRoute, envId };
  }
  const plain = /^\/([a-z.]+)$/.exec(pathname);
  if (plain && (ENV_ROUTES as readonly string[]).includes(plain[1] as string))
    return { kind: 'env', route: plain[1] as EnvRoute };
  return undefined;
}
