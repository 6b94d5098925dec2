import { mixSeed, SeededRng } from '@turngym/core';
import { transform } from 'sucrase';
import type { CodingTask, Difficulty, TaskCategory, TaskSplit } from '../coding-task';

/** One generated function problem: the code, and the inputs its tests call it with. */
export interface FunctionVariant {
  readonly slug: string;
  readonly difficulty: Difficulty;
  /** The exported function under test. */
  readonly entry: string;
  /** The TypeScript declaration without a body, e.g. `export function f(a: number): number`. */
  readonly signature: string;
  /** What the function must do (one paragraph). */
  readonly description: string;
  /** The complete canonical `solution.ts`. Expected outputs are computed by running it on `cases`. */
  readonly solution: string;
  /** A plausible wrong `solution.ts` (an off-by-one, a missed case ...) that some hidden test must catch. */
  readonly wrong: string;
  /** Argument lists; the first `visible` are shown in the prompt as examples. */
  readonly cases: readonly (readonly unknown[])[];
  /** Hand-checked answers: the build fails if the canonical solution disagrees with any of them. */
  readonly known?: readonly (readonly [readonly unknown[], unknown])[];
  readonly visible?: number;
  /** Compare numeric results with `toBeCloseTo(expected, 6)`. */
  readonly approximate?: boolean;
  /** Publish this variant as a JavaScript task (types stripped from every file). */
  readonly javascript?: boolean;
}

/** One generated class problem: each test builds an instance and checks the results of a call sequence. */
export interface ClassVariant {
  readonly slug: string;
  readonly difficulty: Difficulty;
  /** The exported class under test. */
  readonly entry: string;
  /** The class skeleton the agent starts from (methods throw). */
  readonly starter: string;
  readonly description: string;
  readonly solution: string;
  readonly wrong: string;
  /** Each sequence is one test: constructor arguments, then method calls `[name, ...args]`. */
  readonly sequences: readonly {
    readonly args: readonly unknown[];
    readonly calls: readonly (readonly [string, ...unknown[]])[];
  }[];
  readonly visible?: number;
  readonly javascript?: boolean;
}

export interface FunctionFamily {
  readonly name: string;
  readonly category: TaskCategory;
  readonly split: TaskSplit;
  readonly variants: readonly (FunctionVariant | ClassVariant)[];
}

const isClassVariant = (variant: FunctionVariant | ClassVariant): variant is ClassVariant => 'sequences' in variant;

/** A JavaScript literal for a test snippet (strings JSON-quoted, -0, NaN, Infinity, Map and Set included). */
export function literal(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      if (Object.is(value, -0)) return '-0';
      return Number.isNaN(value) ? 'NaN' : String(value);
    case 'boolean':
      return String(value);
    case 'bigint':
      return `${value}n`;
    default:
      break;
  }
  if (Array.isArray(value)) return `[${value.map(literal).join(', ')}]`;
  if (value instanceof Map)
    return `new Map([${[...value.entries()].map(([k, v]) => `[${literal(k)}, ${literal(v)}]`).join(', ')}])`;
  if (value instanceof Set) return `new Set([${[...value].map(literal).join(', ')}])`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    return entries.length === 0
      ? '{}'
      : `{ ${entries.map(([k, v]) => `${/^[A-Za-z_$][\w$]*$/.test(k) ? k : JSON.stringify(k)}: ${literal(v)}`).join(', ')} }`;
  }
  throw new TypeError(`no literal for ${typeof value}`);
}

/** Runs trusted dataset code (a canonical solution) in this process, at build time only, to get expected outputs. */
function loadModule(source: string, label: string): Record<string, unknown> {
  const code = transform(source, { transforms: ['typescript', 'imports'], filePath: 'solution.ts' }).code;
  const exports: Record<string, unknown> = {};
  try {
    new Function('exports', 'require', code)(exports, () => {
      throw new Error('dataset solutions import nothing');
    });
  } catch (error) {
    throw new Error(`${label}: the canonical solution does not load: ${(error as Error).message}`);
  }
  return exports;
}

export function stripTypes(source: string): string {
  return transform(source, { transforms: ['typescript'], disableESTransforms: true }).code;
}

function expectation(call: string, expected: unknown, approximate: boolean): string {
  if (approximate && typeof expected === 'number' && Number.isFinite(expected) && !Number.isInteger(expected)) {
    return `expect(${call}).toBeCloseTo(${literal(Number(expected.toPrecision(12)))}, 6);`;
  }
  return `expect(${call}).toEqual(${literal(expected)});`;
}

function functionTests(variant: FunctionVariant, label: string): string[] {
  const module = loadModule(variant.solution, label);
  const fn = module[variant.entry];
  if (typeof fn !== 'function') throw new Error(`${label}: the canonical solution does not export ${variant.entry}`);
  const run = (args: readonly unknown[]): unknown => {
    try {
      return (fn as (...a: unknown[]) => unknown)(...structuredClone(args as unknown[]));
    } catch (error) {
      throw new Error(`${label}: the canonical solution threw on ${literal(args)}: ${(error as Error).message}`);
    }
  };
  for (const [args, answer] of variant.known ?? []) {
    const got = run(args);
    if (literal(got) !== literal(answer) && !(variant.approximate && Math.abs(Number(got) - Number(answer)) < 1e-6)) {
      throw new Error(
        `${label}: ${variant.entry}(${args.map(literal).join(', ')}) is ${literal(got)}, the known answer is ${literal(answer)}`,
      );
    }
  }
  const all = [...(variant.known ?? []).map(([args]) => args), ...variant.cases];
  const snippets = all.map((args) =>
    expectation(`${variant.entry}(${args.map(literal).join(', ')})`, run(args), variant.approximate ?? false),
  );
  return [...new Set(snippets)];
}

function classTests(variant: ClassVariant, label: string): string[] {
  const module = loadModule(variant.solution, label);
  const Ctor = module[variant.entry] as
    (new (...args: unknown[]) => Record<string, (...args: unknown[]) => unknown>) | undefined;
  if (typeof Ctor !== 'function') throw new Error(`${label}: the canonical solution does not export ${variant.entry}`);
  return variant.sequences.map((sequence) => {
    const instance = new Ctor(...structuredClone(sequence.args as unknown[]));
    const lines = [`const subject = new ${variant.entry}(${sequence.args.map(literal).join(', ')});`];
    for (const [method, ...args] of sequence.calls) {
      const call = `subject.${method}(${args.map(literal).join(', ')})`;
      const result = (instance[method] as (...a: unknown[]) => unknown).apply(instance, structuredClone(args));
      lines.push(result === undefined ? `${call};` : expectation(call, result, false));
    }
    return lines.join('\n');
  });
}

function describeTests(tests: readonly string[]): string {
  return tests.join(tests.some((test) => test.includes('\n')) ? '\n\n' : '\n');
}

/** Builds the task of one variant. */
export function buildFunctionTask(family: FunctionFamily, variant: FunctionVariant | ClassVariant): CodingTask {
  const taskId = `fn/${family.name}/${variant.slug}`;
  const javascript = variant.javascript ?? false;
  const file = javascript ? 'solution.js' : 'solution.ts';
  const convert = (source: string): string => (javascript ? stripTypes(source) : source);
  const hidden = isClassVariant(variant) ? classTests(variant, taskId) : functionTests(variant, taskId);
  const visibleCount = variant.visible ?? (isClassVariant(variant) ? 2 : 3);
  const visible = hidden.slice(0, visibleCount);
  if (hidden.length < visibleCount + 3) throw new Error(`${taskId}: only ${hidden.length} distinct tests; add cases`);
  const starter = isClassVariant(variant)
    ? variant.starter
    : `${variant.signature} {\n  throw new Error('not implemented');\n}\n`;
  const what = isClassVariant(variant) ? `the class \`${variant.entry}\`` : `the function \`${variant.entry}\``;
  const prompt = [
    `Implement ${what} in \`${file}\` (${javascript ? 'JavaScript' : 'TypeScript'}) and export it.`,
    '',
    variant.description,
    '',
    isClassVariant(variant) ? 'Starting code:' : 'Signature:',
    '```' + (javascript ? 'js' : 'ts'),
    (isClassVariant(variant)
      ? convert(starter)
      : convert(`${variant.signature} {}`).replace(/\s*\{\s*\}\s*$/, '')
    ).trimEnd(),
    '```',
    '',
    'Visible tests (RUN_TESTS runs them; SUBMIT grades your code on more, hidden tests):',
    '```js',
    describeTests(visible),
    '```',
  ].join('\n');
  return {
    task_id: taskId,
    kind: 'function',
    split: family.split,
    difficulty: variant.difficulty,
    category: family.category,
    family: family.name,
    language: javascript ? 'javascript' : 'typescript',
    prompt,
    entry_point: variant.entry,
    files: { [file]: convert(starter) },
    canonical_solution: { [file]: convert(variant.solution) },
    wrong_solution: { [file]: convert(variant.wrong) },
    test_setup_code: `import { ${variant.entry} } from './solution';`,
    visible_tests: visible,
    hidden_tests: hidden,
  };
}

/** Small seeded input generators shared by the families. */
export const LOWER = 'abcdefghijklmnopqrstuvwxyz';
export const WORDS = [
  'apple',
  'river',
  'stone',
  'light',
  'cloud',
  'ember',
  'delta',
  'maple',
  'orbit',
  'quartz',
  'tiger',
  'velvet',
  'amber',
  'north',
  'pixel',
  'lemon',
];

/** The seeded stream of one variant's random cases (stable across builds). */
export function casesRng(family: string, slug: string): SeededRng {
  return new SeededRng(mixSeed('coding-sandbox', family, slug));
}

export function randomWord(rng: SeededRng, min: number, max: number, alphabet = LOWER): string {
  let text = '';
  const length = rng.int(min, max);
  for (let i = 0; i < length; i++) text += alphabet[rng.int(0, alphabet.length - 1)];
  return text;
}

export function randomInts(rng: SeededRng, length: number, low: number, high: number): number[] {
  return Array.from({ length }, () => rng.int(low, high));
}

/** `count` argument lists from a generator. */
export function generate(count: number, make: (index: number) => unknown[]): unknown[][] {
  return Array.from({ length: count }, (_, index) => make(index));
}
