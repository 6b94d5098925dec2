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
  | { kind: 'session'; sessionId: string; operation: 'fingerprint' | 'anchor' };

const ENV_SCOPED = new RegExp(`^/envs/(.+)/(${ENV_ROUTES.map((route) => route.replace('.', '\\.')).join('|')})$`);
// Session routes may sit under any prefix (a proxy path, /envs/<id>): session ids are unique server-wide.
const SESSION = /^(?:.*)\/sessions\/([A-Za-z0-9-]{1,100})\/(fingerprint|anchor)$/;

/**
 * `/ws`, `/envs/turngym/example-v1/ws`, `/sessions/<id>/fingerprint` … An env id inside a path may be
 * percent-encoded or not (`/envs/turngym%2Fexample-v1/ws`): OpenEnv's client appends `/ws` to whatever base
 * URL it is given, so a per-env base URL is how it picks an env.
 */
export function parseRoute(pathname: string): Route | undefined {
  if (pathname === '/envs' || pathname === '/envs/') return { kind: 'envs' };
  const session = SESSION.exec(pathname);
  if (session)
    return { kind: 'session', sessionId: session[1] as string, operation: session[2] as 'fingerprint' | 'anchor' };
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
