import type { Registry } from '@turngym/core';
import type { EnvSpec } from '@turngym/spec';

/**
 * The spec of a registered id. Specs live on env instances, so this builds the env bare (no wrappers) with
 * the given options and closes it at once; envs keep construction cheap and start browsers or sandboxes on
 * reset.
 */
export async function specOf(registry: Registry, id: string, options?: Record<string, unknown>): Promise<EnvSpec> {
  const env = await registry.make(id, { bare: true, ...(options ? { options } : {}) });
  try {
    return env.spec;
  } finally {
    await env.close();
  }
}
