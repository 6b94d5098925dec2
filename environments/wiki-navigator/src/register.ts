import type { Registry } from '@turngym/core';
import type { BrowserPool } from './browser/browser-pool';
import { RandomNavigator } from './agents/random-navigator';
import { WikiExpert } from './agents/wiki-expert';
import { WikiNavigatorEnv } from './wiki-navigator-env';
import { wikiNavigatorOptionsSchema, type WikiNavigatorOptions } from './wiki-navigator-options';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const manifest = require('../package.json') as { name: string; version: string };

/**
 * Registers `turngym/wiki-qa-v1` and `turngym/wiki-race-v1` (one entry point, `task` fixed per id).
 * `make(id, { dependencies: { browserPool } })` shares a pool the caller owns across envs.
 */
export function register(registry: Registry): void {
  for (const task of ['qa', 'race'] as const) {
    registry.register<WikiNavigatorOptions>({
      id: `turngym/wiki-${task}-v1`,
      entryPoint: (options, dependencies) =>
        new WikiNavigatorEnv(
          options,
          dependencies.browserPool ? { browserPool: dependencies.browserPool as BrowserPool } : {},
        ),
      optionsSchema: wikiNavigatorOptionsSchema,
      fixedOptions: { task },
      agents: {
        scripted: ({ env }) => new WikiExpert(env),
        random: ({ seed }) => new RandomNavigator(seed),
      },
      packageName: manifest.name,
      packageVersion: manifest.version,
    });
  }
}
