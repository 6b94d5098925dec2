import { UsageError } from './cli-errors';

/** Every spelling of an env's name the template uses, derived from its kebab-case name. */
export interface TemplateNames {
  /** `math-thought`: file names and ids. */
  readonly kebab: string;
  /** `MathThought`: classes and types. */
  readonly pascal: string;
  /** `mathThought`: values and functions. */
  readonly camel: string;
  /** `MATH_THOUGHT`: constants. */
  readonly upper: string;
  /** `turngym/math-thought-v1`. */
  readonly envId: string;
  /** `@turngym/env-math-thought`, or `turngym-env-math-thought` for a contrib package outside the scope. */
  readonly packageName: string;
}

const KEBAB = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;

/** Longer names make file names and npm package names (214 characters at most) unwieldy. */
const MAX_NAME_LENGTH = 64;

/** A package name given where the env name is wanted: `@me/env-x`, `@turngym/env-x`, `turngym-env-x`. */
const PACKAGE_NAME = /^(?:@[^/]+\/(?:turngym-)?(?:env-)?|turngym-env-)(.+)$/;

/** What is wrong with `name` as an env name, with the fix, or undefined. */
function nameProblem(name: string): string | undefined {
  const asPackage = PACKAGE_NAME.exec(name);
  if (asPackage)
    return `Env name "${name}" is a package name: pass the env name "${asPackage[1]}" (the package becomes @turngym/env-${asPackage[1]}, or turngym-env-${asPackage[1]} with --contrib).`;
  if (/^[0-9]/.test(name))
    return `Env name "${name}" must start with a letter (it becomes class and function names), e.g. game-${name}.`;
  if (!KEBAB.test(name)) {
    const suggestion = name
      .trim()
      // Accents come off their letters ("café" → "cafe"), rather than the letters being dropped.
      .normalize('NFKD')
      .replace(/\p{M}/gu, '')
      .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '');
    const hint = suggestion && suggestion !== name && KEBAB.test(suggestion) ? `; try "${suggestion}"` : '';
    return `Env name "${name}" must be kebab-case: lowercase letters and digits in words joined by "-", e.g. math-thought${hint}.`;
  }
  if (name.length > MAX_NAME_LENGTH) return `Env name "${name}" is too long: at most ${MAX_NAME_LENGTH} characters.`;
  if (/-v\d+$/.test(name))
    return `Env name "${name}" must not carry a version: the id becomes turngym/${name.replace(/-v\d+$/, '')}-v1.`;
  if (name.startsWith('env-'))
    return `Env name "${name}" must not start with "env-": the package is already named @turngym/env-<name>; pass "${name.slice(4)}".`;
  return undefined;
}

export function templateNames(name: string, options: { contrib?: boolean } = {}): TemplateNames {
  const problem = nameProblem(name);
  if (problem) throw new UsageError(problem);
  const words = name.split('-');
  const capitalised = words.map((word) => word.charAt(0).toUpperCase() + word.slice(1));
  return {
    kebab: name,
    pascal: capitalised.join(''),
    camel: (words[0] as string) + capitalised.slice(1).join(''),
    upper: words.join('_').toUpperCase(),
    envId: `turngym/${name}-v1`,
    packageName: options.contrib ? `turngym-env-${name}` : `@turngym/env-${name}`,
  };
}

/** The template's own names (`turngym/example-v1` in `@turngym/env-example`). */
export const TEMPLATE_NAMES: TemplateNames = templateNames('example');

/** Names a new env may take: any valid name but the template's own, whose package and id it would duplicate. */
export function newEnvNames(name: string, options: { contrib?: boolean } = {}): TemplateNames {
  if (name === TEMPLATE_NAMES.kebab)
    throw new UsageError(
      `Env name "${name}" is the template's own name (${TEMPLATE_NAMES.envId} in ${TEMPLATE_NAMES.packageName}); choose another name.`,
    );
  return templateNames(name, options);
}

/**
 * Each way the template spells its name, in one pattern so that a replacement is never replaced again (a
 * new name may itself contain "example"). Prose such as "Example:" or the spec's `examples` field is left
 * alone: only compound identifiers, file stems, the id and the package name change.
 */
const SPELLINGS =
  /@turngym\/env-example\b|turngym\/example-v1\b|\bEXAMPLE(?=_)|Example(?=[A-Z])|\bexample(?=[A-Z])|(?<![\w-])example(?=-(?:env|options|solver)\b)/g;

export function renameTemplateText(text: string, names: TemplateNames): string {
  return text.replace(SPELLINGS, (match: string, offset: number) => {
    if (match === '@turngym/env-example') return names.packageName;
    if (match === 'turngym/example-v1') return names.envId;
    if (match === 'EXAMPLE') return names.upper;
    if (match === 'Example') return names.pascal;
    // `example` before a capital starts a camelCase identifier; before "-" it is a file stem.
    return text.charAt(offset + match.length) === '-' ? names.kebab : names.camel;
  });
}
