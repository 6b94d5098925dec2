import { RandomAgent, type Registry } from '@turngym/core';
import { CODING_FIX_ID, CODING_FUNCTION_ID, CodingEnv, type CodingDependencies } from './coding-env';
import { CodingExpert } from './coding-expert';
import { codingClientOptions, codingOptionsSchema, type CodingOptions } from './coding-options';
import type { SandboxPool } from './sandbox/sandbox-pool';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const manifest = require('../package.json') as { name: string; version: string };

function dependenciesOf(dependencies: Readonly<Record<string, unknown>>): CodingDependencies {
  const sandbox = dependencies.sandbox as SandboxPool | undefined;
  return sandbox ? { sandbox } : {};
}

/** Called by plugin discovery (`"turngym": { "register": "./dist/register.js" }` in package.json). */
export function register(registry: Registry): void {
  for (const [id, taskKind] of [
    [CODING_FUNCTION_ID, 'function'],
    [CODING_FIX_ID, 'fix'],
  ] as const) {
    registry.register<CodingOptions>({
      id,
      entryPoint: (options, dependencies) => new CodingEnv(options, dependenciesOf(dependencies)),
      optionsSchema: codingOptionsSchema,
      fixedOptions: { taskKind },
      clientOptions: codingClientOptions,
      agents: {
        scripted: ({ env }) => new CodingExpert((env.unwrapped as CodingEnv | undefined)?.tasks),
        random: ({ seed }) => new RandomAgent(seed),
      },
      packageName: manifest.name,
      packageVersion: manifest.version,
    });
  }
}
