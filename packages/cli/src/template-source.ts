import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { TurnGymError } from '@turngym/core';

/**
 * Where `new-env` copies from. Two places, in this order:
 * 1. the monorepo's `templates/env` (a working package, `@turngym/env-example`), when the CLI runs from a
 *    checkout: edits to the template show up at once, with no build step;
 * 2. `template/` inside the CLI package, written by `scripts/copy-template.js` when the package is packed:
 *    what an installed CLI (`npm i -g @turngym/cli`) uses. Its files have neutral names (`manifest.json`,
 *    `sources/`) so that nothing in it passes for a workspace package or a test.
 */
export interface TemplateSource {
  /** The template's `src/` files. */
  readonly sourcesDirectory: string;
  /** The template's package.json. */
  readonly manifestPath: string;
  /** The template's tsconfig.json (written for `templates/env` in the monorepo). */
  readonly tsconfigPath: string;
  /** The shared compiler options that tsconfig extends. */
  readonly baseTsconfigPath: string;
}

const TEMPLATE_PACKAGE = '@turngym/env-example';

function isTemplate(source: TemplateSource): boolean {
  if (
    ![source.sourcesDirectory, source.manifestPath, source.tsconfigPath, source.baseTsconfigPath].every((path) =>
      existsSync(path),
    )
  )
    return false;
  try {
    return (JSON.parse(readFileSync(source.manifestPath, 'utf8')) as { name?: string }).name === TEMPLATE_PACKAGE;
  } catch {
    return false;
  }
}

/** The template in a TurnGym checkout, if `monorepoRoot` is one. */
export function checkoutTemplate(monorepoRoot: string): TemplateSource {
  const directory = join(monorepoRoot, 'templates', 'env');
  return {
    sourcesDirectory: join(directory, 'src'),
    manifestPath: join(directory, 'package.json'),
    tsconfigPath: join(directory, 'tsconfig.json'),
    baseTsconfigPath: join(monorepoRoot, 'tsconfig.base.json'),
  };
}

/** The template shipped in `<packageRoot>/template`. */
export function shippedTemplate(packageRoot: string): TemplateSource {
  const directory = join(packageRoot, 'template');
  return {
    sourcesDirectory: join(directory, 'sources'),
    manifestPath: join(directory, 'manifest.json'),
    tsconfigPath: join(directory, 'tsconfig.template.json'),
    baseTsconfigPath: join(directory, 'tsconfig.base.json'),
  };
}

/** `packageRoot` is the CLI package's directory (the parent of `dist/` and `src/`). */
export function findTemplateSource(packageRoot = resolve(__dirname, '..')): TemplateSource {
  const candidates = [checkoutTemplate(resolve(packageRoot, '..', '..')), shippedTemplate(packageRoot)];
  const found = candidates.find(isTemplate);
  if (found) return found;
  throw new TurnGymError(
    'TEMPLATE_MISSING',
    `The env template is missing from ${packageRoot}: reinstall @turngym/cli.`,
  );
}
