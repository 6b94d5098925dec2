/**
 * Header names that carry a credential: `Authorization`, `api-key` (Azure), `x-api-key`, `*-token`, `*-secret`,
 * cookies. Their values are masked wherever a model prints or reports them, and they are not sent on to another host
 * a redirect points at.
 */
export const CREDENTIAL_HEADER = /authorization|api[-_]?key|token|secret|password|cookie/i;
