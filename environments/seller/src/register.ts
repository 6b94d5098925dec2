import { RandomAgent, type Registry } from '@turngym/core';
import { PACKAGE_NAME, PACKAGE_VERSION } from './package-info';
import { SellerEnv, SELLER_COMMANDER_ID, SELLER_ID } from './seller-env';
import { SellerExpert } from './seller-expert';
import { sellerClientOptions, sellerOptionsSchema, type SellerOptions } from './seller-options';

/** Called by plugin discovery (`"turngym": { "register": "./dist/register.js" }` in package.json). */
export function register(registry: Registry): void {
  for (const [id, mode] of [
    [SELLER_COMMANDER_ID, 'commander'],
    [SELLER_ID, 'seller'],
  ] as const) {
    registry.register<SellerOptions>({
      id,
      entryPoint: (options, dependencies) => new SellerEnv(options, dependencies),
      optionsSchema: sellerOptionsSchema,
      fixedOptions: { mode },
      clientOptions: sellerClientOptions,
      agents: {
        scripted: () => new SellerExpert(),
        // Commander: a legal meta-action uniformly; seller: one of the space's example utterances.
        random: ({ seed }) => new RandomAgent(seed),
      },
      packageName: PACKAGE_NAME,
      packageVersion: PACKAGE_VERSION,
    });
  }
}
