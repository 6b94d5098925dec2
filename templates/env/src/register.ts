import { RandomAgent, type Registry } from '@turngym/core';
import { ExampleEnv } from './example-env';
import { exampleOptionsSchema, type ExampleOptions } from './example-options';
import { ExampleSolver } from './example-solver';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const manifest = require('../package.json') as { name: string; version: string };

/** Called by plugin discovery (`"turngym": { "register": "./dist/register.js" }` in package.json). */
export function register(registry: Registry): void {
  registry.register<ExampleOptions>({
    id: 'turngym/example-v1',
    entryPoint: (options) => new ExampleEnv(options),
    optionsSchema: exampleOptionsSchema,
    // Options a client of `turngym serve` may set; list none that names a file, a URL or a large size.
    clientOptions: { keys: true, chainLength: true, maxTurns: true },
    agents: {
      scripted: () => new ExampleSolver(),
      random: ({ seed }) => new RandomAgent(seed),
    },
    packageName: manifest.name,
    packageVersion: manifest.version,
  });
}
