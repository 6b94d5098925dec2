import { InvalidIdError } from './errors';

export interface ParsedEnvId {
  readonly namespace: string | undefined;
  readonly name: string;
  readonly version: number;
  /** `namespace/name` without the version. */
  readonly family: string;
}

const ID_PATTERN = /^(?:([a-z0-9][a-z0-9_.-]*)\/)?([a-z0-9][a-z0-9_.-]*?)-v(\d+)$/i;

/** Parses `[namespace/]name-vN` (Gymnasium's scheme, lower-case by convention). */
export function parseEnvId(id: string): ParsedEnvId {
  const match = ID_PATTERN.exec(id);
  if (!match) throw new InvalidIdError(id);
  const [, namespace, name, version] = match as unknown as [string, string | undefined, string, string];
  return { namespace, name, version: Number(version), family: namespace ? `${namespace}/${name}` : name };
}

export function formatEnvId(parts: { namespace?: string | undefined; name: string; version: number }): string {
  return `${parts.namespace ? `${parts.namespace}/` : ''}${parts.name}-v${parts.version}`;
}
