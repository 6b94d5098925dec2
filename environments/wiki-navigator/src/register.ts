import type { Registry } from '@turngym/core';
import type { BrowserPool } from './browser/browser-pool';
import { RandomNavigator } from './agents/random-navigator';
import { WikiExpert } from './agents/wiki-expert';
import { WIKI_QA_COMPACT_ID, WikiNavigatorEnv } from './wiki-navigator-env';
import {
  wikiNavigatorClientOptions,
  wikiNavigatorOptionsSchema,
  type WikiNavigatorOptions,
} from './wiki-navigator-options';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const manifest = require('../package.json') as { name: string; version: string };

const VARIANTS: readonly { id: string; fixedOptions: Pick<WikiNavigatorOptions, 'task' | 'observation'> }[] = [
  { id: 'turngym/wiki-qa-v1', fixedOptions: { task: 'qa', observation: 'full' } },
  { id: WIKI_QA_COMPACT_ID, fixedOptions: { task: 'qa', observation: 'compact' } },
  { id: 'turngym/wiki-race-v1', fixedOptions: { task: 'race', observation: 'full' } },
];

/**
 * Registers `turngym/wiki-qa-v1`, `turngym/wiki-qa-compact-v1` and `turngym/wiki-race-v1` (one entry point;
 * `task` and `observation` fixed per id, so `spec.id` names the id that made the env).
 * `make(id, { dependencies: { browserPool } })` shares a pool the caller owns across envs.
 */
export function register(registry: Registry): void {
  for (const { id, fixedOptions } of VARIANTS) {
    registry.register<WikiNavigatorOptions>({
      id,
      entryPoint: (options, dependencies) =>
        new WikiNavigatorEnv(
          options,
          dependencies.browserPool ? { browserPool: dependencies.browserPool as BrowserPool } : {},
        ),
      optionsSchema: wikiNavigatorOptionsSchema,
      fixedOptions,
      clientOptions: wikiNavigatorClientOptions,
      agents: {
        scripted: ({ env }) => new WikiExpert(env),
        random: ({ seed }) => new RandomNavigator(seed),
      },
      packageName: manifest.name,
      packageVersion: manifest.version,
    });
  }
}
