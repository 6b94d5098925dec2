import { existsSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';

/*
 * Its own file, apart from optional-modules: that one imports the optional peers' types (@turngym/lm, the
 * trainers…), and scaffoldEnv's public options name CliInstallation, so the public .d.ts reached them and an API
 * user without those packages got "Cannot find module '@turngym/lm'" unless they set skipLibCheck.
 */

/** Where this CLI runs from: what decides how to add a package beside it, or how to run it from elsewhere. */
export type CliInstallation =
  /** A TurnGym checkout: every package is a workspace that the root's `npm install` links. */
  | { readonly kind: 'checkout' }
  /** `npm i -g @turngym/cli` (the README's install): its bin is on the PATH, it requires only beside itself. */
  | { readonly kind: 'global' }
  /** `npx @turngym/cli …`: npm's cache, gone after the command. */
  | { readonly kind: 'npx' }
  /** `npm i @turngym/cli` in a project: its bin is in `<root>/node_modules/.bin`, on no PATH. */
  | { readonly kind: 'project'; readonly root: string };

/** `cliDir` is the CLI package's directory (this file's package by default). */
export function cliInstallation(cliDir = join(__dirname, '..')): CliInstallation {
  const at = cliDir.indexOf(`${sep}node_modules${sep}`);
  if (at < 0) return { kind: 'checkout' };
  const root = cliDir.slice(0, at);
  if (root.split(sep).includes('_npx')) return { kind: 'npx' };
  // npm's global folder (<prefix>/lib/node_modules) has no package.json above it; a project always has one.
  if (!existsSync(join(root, 'package.json'))) return { kind: 'global' };
  return { kind: 'project', root };
}

/** `directory` is `root` or under it (npm and npx walk up from there to the project). */
export function isInside(directory: string, root: string): boolean {
  const path = relative(root, directory);
  return path === '' || (!path.startsWith('..') && !isAbsolute(path));
}

/**
 * The command that adds `name` where this CLI's `require` finds it: a global CLI looks only beside itself, so
 * a plain `npm i` in the current directory would not help it. `cwd` is where the user is.
 */
export function installCommand(
  name: string,
  installation: CliInstallation = cliInstallation(),
  cwd = process.cwd(),
): string {
  switch (installation.kind) {
    case 'checkout':
      return 'npm install at the root of the TurnGym checkout';
    case 'npx':
      return `npx -p @turngym/cli -p ${name} turngym …`;
    case 'global':
      return `npm i -g ${name}`;
    case 'project':
      return isInside(cwd, installation.root)
        ? `npm i ${name}`
        : `npm i ${name} --prefix ${JSON.stringify(installation.root)}`;
  }
}
