import { createHash } from 'node:crypto';

/**
 * The `<meta>` policy of a generated page: only its own scripts run (by their sha256 hash; `self` adds scripts
 * loaded from the page's own origin, such as data files beside it), and nothing is fetched from elsewhere. Every
 * text a page shows is escaped; this is the second wall: a markup slip in a later change (an `onerror=` that
 * gets through) stays inert. `default-src` does not cover `<base>` or form targets: `base-uri 'none'` keeps an injected
 * `<base href>` from sending the page's own relative loads ('self' data files) elsewhere, `form-action 'none'` an
 * injected form from posting anywhere.
 */
export function contentSecurityPolicy(scripts: readonly string[], options: { self?: boolean } = {}): string {
  const hashes = scripts.map((script) => `'sha256-${createHash('sha256').update(script).digest('base64')}'`);
  const sources = [...hashes, ...(options.self ? ["'self'"] : [])].join(' ');
  return `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src ${sources}; img-src data:; base-uri 'none'; form-action 'none'">`;
}
