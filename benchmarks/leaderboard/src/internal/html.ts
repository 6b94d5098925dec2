/** Escapes text for HTML element content and attribute values (always quoted with "). */
export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/**
 * A submitter's text as escaped HTML in its own bidi isolate. A right-to-left override (U+202E) in a label or a
 * name otherwise runs on to the end of the line: the page's own words after it ("skipped (not installed)", "link")
 * were shown reversed. An isolate ends every override opened inside it.
 */
export function isolatedText(text: string): string {
  return `<bdi>${escapeHtml(text)}</bdi>`;
}

/**
 * JSON that is safe inside a <script> element: `<` is escaped so no string can close the element or open a
 * comment, and the two line separators JavaScript once rejected are escaped too.
 */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** A URL fragment of key=value pairs: `run=quick-v1--scripted&env=turngym%2Fmath-thought-v1`. */
export function fragment(values: Record<string, string>): string {
  return Object.entries(values)
    .map(([key, value]) => `${key}=${encodeURIComponent(value)}`)
    .join('&');
}

/** In every page the leaderboard writes: how `writeLeaderboard` tells its own pages from a user's. */
export const GENERATOR_META = '<meta name="generator" content="turngym leaderboard">';

/**
 * The page's policy: only its own scripts run (by hash; `'self'` adds the viewer's data files), nothing is fetched
 * from elsewhere. Core's builder, shared with the report.
 */
export { contentSecurityPolicy } from '@turngym/core';
