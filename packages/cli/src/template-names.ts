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

export function templateNames(name: string, options: { contrib?: boolean } = {}): TemplateNames {
  if (!KEBAB.test(name)) {
    throw new UsageError(
      `Env name "${name}" must be kebab-case: lowercase letters and digits in words joined by "-", e.g. math-thought.`,
    );
  }
  if (/-v\d+$/.test(name))
    throw new UsageError(
      `Env name "${name}" must not carry a version: the id becomes turngym/${name.replace(/-v\d+$/, '')}-v1.`,
    );
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
