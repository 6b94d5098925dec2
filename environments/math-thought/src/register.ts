import type { Registry } from '@turngym/core';
import { MathThoughtEnv, MATH_THOUGHT_CALC_ID, MATH_THOUGHT_ID } from './math-thought-env';
import { MathThoughtExpert } from './math-thought-expert';
import { mathThoughtClientOptions, mathThoughtOptionsSchema, type MathThoughtOptions } from './math-thought-options';
import { MathThoughtRandomAgent } from './math-thought-random-agent';
import { PACKAGE_NAME, PACKAGE_VERSION } from './package-info';

/** Called by plugin discovery (`"turngym": { "register": "./dist/register.js" }` in package.json). */
export function register(registry: Registry): void {
  for (const [id, calculator] of [
    [MATH_THOUGHT_ID, false],
    [MATH_THOUGHT_CALC_ID, true],
  ] as const) {
    registry.register<MathThoughtOptions>({
      id,
      entryPoint: (options) => new MathThoughtEnv(options),
      optionsSchema: mathThoughtOptionsSchema,
      fixedOptions: { calculator },
      clientOptions: mathThoughtClientOptions,
      agents: {
        scripted: ({ env }) => new MathThoughtExpert(env),
        random: ({ seed }) => new MathThoughtRandomAgent(seed),
      },
      packageName: PACKAGE_NAME,
      packageVersion: PACKAGE_VERSION,
    });
  }
}
