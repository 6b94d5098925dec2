import nodeAssert from 'node:assert';
import { runInThisContext } from 'node:vm';
import fc from 'fast-check';
import type { SandboxLimits } from './evaluation';
import { SandboxPool } from './sandbox-pool';

// `require('node:assert')` inside the sandbox must give the verdicts of the host's own node:assert: task suites are
// written against Node. Every case runs on both sides from the same source text, and the verdicts are compared:
// passed, an AssertionError (name `AssertionError`, code `ERR_ASSERTION`), or another error (name and code).

const limits: SandboxLimits = { timeMs: 5000, totalTimeMs: 10000, memoryMb: 64, outputChars: 200_000 };
const pool = new SandboxPool({ workers: 1, graceMs: 5000 });
afterAll(() => pool.close());

const OPERATIONS = [
  'equal',
  'notEqual',
  'deepEqual',
  'notDeepEqual',
  'strictEqual',
  'notStrictEqual',
  'deepStrictEqual',
  'notDeepStrictEqual',
] as const;

/** One verdict per line: `pass`, or the thrown error's name and code. The same text runs on both sides. */
const VERDICT = `const verdictOf = (error) => error === null || typeof error !== 'object' ? 'thrown ' + typeof error
  : error.name + ' ' + error.code + (error instanceof assert.AssertionError ? ' (AssertionError)' : '');`;

/** Runs `body` (which fills `lines`, maybe asynchronously, and ends with a promise of them) in the sandbox. */
async function inSandbox(body: string, files: Record<string, string> = {}): Promise<string[]> {
  const code = `const assert = require('node:assert');\nconst lines = [];\n${VERDICT}\n${body}\n  .then(() => console.log(lines.join('\\n')));`;
  const result = await pool.evaluate({ files, job: { type: 'run', code }, limits });
  if (result.run?.status !== 'ok') throw new Error(`sandbox run failed: ${JSON.stringify(result.run)}`);
  return result.stdout.replace(/\n$/, '').split('\n');
}

/**
 * The same body under the host's node:assert, in node:assert's own realm (jest runs tests in a realm of their own,
 * where `new Error()` would not be an instance of the Error that node:assert checks against).
 */
async function onHost(body: string): Promise<string[]> {
  const lines: string[] = [];
  const run = runInThisContext(`(function (assert, lines) {\n${VERDICT}\nreturn ${body};\n})`) as (
    assert: typeof nodeAssert,
    lines: string[],
  ) => Promise<void>;
  await run(nodeAssert, lines);
  return lines;
}

// ---- values, as source text: the pairs where legacy and strict, Node and a hand copy, tend to disagree ----------
const leaf = fc.constantFrom(
  '0',
  '-0',
  '1',
  '2',
  '1.5',
  'NaN',
  'Infinity',
  "'1'",
  "''",
  "'a'",
  "' 1'",
  'true',
  'false',
  'null',
  'undefined',
  '1n',
  "Symbol.for('s')",
  'new Date(0)',
  'new Date(1)',
  'new Date(NaN)',
  '/a/g',
  '/a/',
  '/a/i',
  'Object.assign(/a/g, { lastIndex: 1 })',
  'new Number(1)',
  'new Number(2)',
  "new String('1')",
  'new Boolean(false)',
  'Object(1n)',
  'new Uint8Array([1, 2])',
  'new Int16Array([1, 2])',
  'new Float64Array([0, -0])',
  'new Float64Array([-0, 0])',
  'new Float32Array([NaN])',
  'new ArrayBuffer(2)',
  'new DataView(new ArrayBuffer(2))',
  "new Error('x')",
  "new Error('y')",
  "new TypeError('x')",
  "Object.assign(new Error('x'), { code: 1 })",
  '[]',
  '{}',
  'Object.create(null)',
  'new (class A { constructor() { this.a = 1; } })()',
);
/** Values Node's legacy and strict comparisons treat differently, paired. */
const knownPair = fc.constantFrom<[string, string]>(
  ['1', "'1'"],
  ['0', '-0'],
  ['null', 'undefined'],
  ['0', "''"],
  ['1', 'true'],
  ['1', '1n'],
  ['NaN', 'NaN'],
  ['1', 'new Number(1)'],
  ['[1]', "['1']"],
  ['{ a: undefined }', '{}'],
  ['{ a: undefined }', '{ b: undefined }'],
  ['[undefined]', '[, ]'],
  ['{}', 'Object.create(null)'],
  ['{ a: 1 }', "Object.assign(Object.create(null), { a: '1' })"],
  ["{ [Symbol.for('s')]: 1 }", '{}'],
  ["new Set([1, '1'])", "new Set(['1', 1])"],
  ['new Set([1, {}])', "new Set(['1', {}])"],
  ["new Map([[1, 'a']])", "new Map([['1', 'a']])"],
  ['new Map([[{}, 1], [{}, 2]])', 'new Map([[{}, 2], [{}, 1]])'],
  ['new Date(0)', 'Object.assign(new Date(0), { a: 1 })'],
  ['Object.assign([1], { x: 1 })', '[1]'],
);

type Pair = readonly [string, string];
const key = fc.constantFrom('a', 'b', '1', "'x y'");
const { pair } = fc.letrec<{ pair: Pair }>((tie) => ({
  pair: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf.map((source): Pair => [source, source]),
    fc.tuple(leaf, leaf),
    knownPair,
    knownPair.map(([a, b]): Pair => [b, a]),
    fc
      .array(tie('pair'), { maxLength: 3 })
      .map((items): Pair => [
        `[${items.map((item) => item[0]).join(', ')}]`,
        `[${items.map((item) => item[1]).join(', ')}]`,
      ]),
    fc
      .array(fc.tuple(key, tie('pair'), fc.constantFrom('both', 'left', 'right', 'undefined')), { maxLength: 3 })
      .map((entries): Pair => {
        const side = (which: 0 | 1) =>
          `{ ${entries
            .filter(
              ([, , presence]) =>
                presence === 'both' || presence === 'undefined' || presence === (which === 0 ? 'left' : 'right'),
            )
            .map(
              ([name, values, presence]) =>
                `${name}: ${presence === 'undefined' && which === 1 ? 'undefined' : values[which]}`,
            )
            .join(', ')} }`;
        return [side(0), side(1)];
      }),
    fc
      .array(tie('pair'), { maxLength: 3 })
      .map((items): Pair => [
        `new Set([${items.map((item) => item[0]).join(', ')}])`,
        `new Set([${items.map((item) => item[1]).join(', ')}])`,
      ]),
    fc
      .array(fc.tuple(tie('pair'), tie('pair')), { maxLength: 2 })
      .map((entries): Pair => [
        `new Map([${entries.map(([k, v]) => `[${k[0]}, ${v[0]}]`).join(', ')}])`,
        `new Map([${entries.map(([k, v]) => `[${k[1]}, ${v[1]}]`).join(', ')}])`,
      ]),
  ),
}));

/** Each case builds its values afresh for each operation, so one operation cannot change what the next one sees. */
function comparisonBody(pairs: readonly Pair[]): string {
  const makers = pairs.map(([a, b]) => `() => [${a}, ${b}]`).join(',\n');
  return `(async () => {
  const makers = [${makers}];
  for (const make of makers) for (const name of ${JSON.stringify(OPERATIONS)}) {
    const [a, b] = make();
    try { assert[name](a, b); lines.push('pass'); } catch (error) { lines.push(verdictOf(error)); }
  }
})()`;
}

describe("the sandbox's node:assert gives the host's node:assert verdicts", () => {
  it(`agrees on ${OPERATIONS.join(', ')} for generated value pairs (fast-check, one sandbox run per batch)`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(pair, { minLength: 1, maxLength: 40 }), async (pairs) => {
        const body = comparisonBody(pairs);
        const [sandbox, host] = await Promise.all([inSandbox(body), onHost(body)]);
        for (let i = 0; i < host.length; i++) {
          if (sandbox[i] !== host[i]) {
            const [a, b] = pairs[Math.floor(i / OPERATIONS.length)]!;
            throw new Error(
              `assert.${OPERATIONS[i % OPERATIONS.length]}(${a}, ${b}): Node says ${host[i]}, the sandbox ${sandbox[i]}`,
            );
          }
        }
        expect(sandbox).toHaveLength(host.length);
      }),
      { numRuns: 30, seed: 22 },
    );
  });

  it('agrees on throws, doesNotThrow and rejects with classes, RegExps, validation objects and functions', async () => {
    // Each scenario returns a value or a promise; its verdict is how it settles.
    const scenarios = [
      `assert.throws(() => { throw new TypeError('bad input'); })`,
      `assert.throws(() => {})`,
      `assert.throws(() => { throw new TypeError('bad'); }, TypeError)`,
      `assert.throws(() => { throw new TypeError('bad'); }, RangeError)`,
      `assert.throws(() => { throw new TypeError('bad'); }, Error)`,
      `assert.throws(() => { throw new Error('bad input'); }, /input/)`,
      `assert.throws(() => { throw new Error('bad input'); }, /output/)`,
      `assert.throws(() => { throw 'a string'; }, /string/)`,
      `assert.throws(() => { throw new Error('bad'); }, { message: 'bad' })`,
      `assert.throws(() => { throw new Error('bad'); }, { message: 'good' })`,
      `assert.throws(() => { throw new Error('bad'); }, { message: /ba/, name: 'Error' })`,
      `assert.throws(() => { throw new Error('bad'); }, { name: 'TypeError' })`,
      `assert.throws(() => { throw Object.assign(new Error('e'), { code: 42, info: { a: [1] } }); }, { code: 42, info: { a: [1] } })`,
      `assert.throws(() => { throw Object.assign(new Error('e'), { info: { a: [1] } }); }, { info: { a: ['1'] } })`,
      `assert.throws(() => { throw new Error('e'); }, new Error('e'))`,
      `assert.throws(() => { throw new TypeError('e'); }, new Error('e'))`,
      `assert.throws(() => { throw new Error('e'); }, {})`,
      `assert.throws(() => { throw 7; }, { a: 1 })`,
      `assert.throws(() => { throw new Error('e'); }, (error) => error.message === 'e')`,
      `assert.throws(() => { throw new Error('e'); }, (error) => error.message === 'f')`,
      `assert.throws(() => { throw new Error('e'); }, 'message only')`,
      `assert.throws(() => { throw new Error('same'); }, 'same')`,
      `assert.throws(() => { throw new Error('e'); }, 'a', 'b')`,
      `assert.throws(() => { throw new Error('e'); }, 42)`,
      `assert.throws('not a function')`,
      `assert.throws(() => { throw new Error('e'); }, class Custom extends Error {})`,
      `assert.doesNotThrow(() => {})`,
      `assert.doesNotThrow(() => { throw new TypeError('x'); })`,
      `assert.doesNotThrow(() => { throw new TypeError('x'); }, RangeError)`,
      `assert.rejects(Promise.reject(new TypeError('no')), TypeError)`,
      `assert.rejects(Promise.reject(new TypeError('no')), RangeError)`,
      `assert.rejects(Promise.resolve(1))`,
      `assert.rejects(async () => { throw new Error('late'); }, /late/)`,
      `assert.rejects(async () => { throw new Error('late'); }, { message: 'late' })`,
      `assert.rejects(() => 5)`,
      `assert.rejects(5)`,
      `assert.doesNotReject(Promise.resolve(1))`,
      `assert.doesNotReject(Promise.reject(new Error('no')))`,
      `assert.match('abc', /b/)`,
      `assert.match('abc', /x/)`,
      `assert.doesNotMatch('abc', /x/)`,
      `assert.ok(0)`,
      `assert.ok()`,
      `assert(1)`,
      `assert.fail()`,
      `assert.fail('boom')`,
      `assert.ifError(null)`,
      `assert.ifError(new Error('e'))`,
      `assert.strict.equal(1, '1')`,
      `assert.strict.deepEqual([1], ['1'])`,
      `assert.deepEqual(1)`,
      `assert.equal(1, '1', new RangeError('custom'))`,
    ];
    const body = `Promise.all([${scenarios
      .map((scenario) => `Promise.resolve().then(() => ${scenario}).then(() => 'pass', verdictOf)`)
      .join(',\n')}]).then((verdicts) => { lines.push(...verdicts); })`;
    const [sandbox, host] = await Promise.all([inSandbox(body), onHost(body)]);
    expect(scenarios.map((scenario, i) => `${scenario} → ${sandbox[i]}`)).toEqual(
      scenarios.map((scenario, i) => `${scenario} → ${host[i]}`),
    );
  });

  it('passes a MultiPL-E HumanEval-JS file under Node exactly when it passes in the sandbox', async () => {
    // MultiPL-E's layout: the completion, then `test()` calling assert.deepEqual on the candidate. This completion
    // returns its counts as strings: Node's legacy deepEqual accepts them (1 == '1'), so the sandbox must too.
    const tests = `
const assert = require('node:assert');

function test() {
  let candidate = even_odd_count;
  assert.deepEqual(candidate(7),[0, 1]);
  assert.deepEqual(candidate(-78),[1, 1]);
  assert.deepEqual(candidate(3452),[2, 2]);
  assert.deepEqual(candidate(346211),[3, 3]);
  assert.deepEqual(candidate(0),[1, 0]);
}

test();
`;
    const loose = `function even_odd_count(num) {
  const digits = String(Math.abs(num)).split('');
  const even = digits.filter((d) => Number(d) % 2 === 0).length;
  return [String(even), String(digits.length - even)];
}
`;
    const wrong = loose.replace('Math.abs(num)', 'num');
    const runFile = (source: string) =>
      pool.evaluate({ files: { 'humaneval.js': source + tests }, job: { type: 'run', path: 'humaneval.js' }, limits });
    const hostVerdict = (source: string) => {
      try {
        const program = runInThisContext(`(function (require) {\n${source}${tests}\n})`) as (require: unknown) => void;
        program((name: string) => (name === 'node:assert' ? nodeAssert : undefined));
        return 'ok';
      } catch (error) {
        return (error as Error).name;
      }
    };
    expect(hostVerdict(loose)).toBe('ok');
    expect((await runFile(loose)).run).toEqual({ status: 'ok' });
    expect(hostVerdict(wrong)).toBe('AssertionError');
    const failed = await runFile(wrong);
    expect(failed.run?.status).toBe('error');
    expect(failed.run?.error).toMatch(/^AssertionError: Expected values to be loosely deep-equal:/);
  });
});

describe('hidden tests that call node:assert', () => {
  const hidden = (files: Record<string, string>, tests: string[], imports = '') =>
    pool.evaluate({
      files,
      job: { type: 'tests', snippets: { setup: `import assert from 'node:assert';\n${imports}`, tests } },
      limits,
    });

  it('report a failed assertion as a failure with the values, not as an error', async () => {
    const result = await hidden({}, ['assert.deepEqual([1, 2], [1, 3]);', "assert.deepEqual([1, 2], [1, '2']);"]);
    expect(
      result.tests.map(({ status, message, expected, actual }) => ({ status, message, expected, actual })),
    ).toEqual([
      { status: 'fail', message: 'assert.deepEqual failed', expected: '[1, 3]', actual: '[1, 2]' },
      { status: 'pass', message: undefined, expected: undefined, actual: undefined },
    ]);
  });

  it('keep failing when the code under test patches the built-ins the comparison could use', async () => {
    // The solution module runs before the hidden tests; it patches the built-ins a naive deepEqual would call.
    // (Not Array.prototype[Symbol.iterator]: `new Set([2])` in the test itself would then build an empty Set.)
    const solution = `
Object.keys = () => [];
Reflect.ownKeys = () => [];
Object.is = () => true;
Object.prototype.propertyIsEnumerable = () => true;
Object.prototype.hasOwnProperty = () => true;
Array.prototype.filter = () => [];
Array.prototype.push = () => 0;
Set.prototype.has = () => true;
Set.prototype[Symbol.iterator] = function* () {};
Map.prototype.get = () => 1;
Map.prototype.has = () => true;
Object.defineProperty(Set.prototype, 'size', { get: () => 0 });
Object.defineProperty(RegExp.prototype, 'source', { get: () => '' });
Object.defineProperty(RegExp.prototype, 'flags', { get: () => '' });
Object.defineProperty(Error, Symbol.hasInstance, { value: () => false });
Date.prototype.getTime = () => 0;
export const values = () => ({ object: { a: 1 }, set: new Set([1]), map: new Map([[1, 2]]), regexp: /a/g, date: new Date(5) });
`;
    const result = await hidden(
      { 'solution.ts': solution },
      [
        'assert.deepEqual(values().object, { a: 2 });',
        'assert.deepStrictEqual(values().object, { b: 1 });',
        'assert.deepEqual(values().set, new Set([2]));',
        'assert.deepStrictEqual(values().map, new Map([[1, 3]]));',
        'assert.deepStrictEqual(values().regexp, /b/i);',
        'assert.deepStrictEqual(values().date, new Date(6));',
        'assert.deepStrictEqual([values().object], [{ a: 1 }]);',
      ],
      "import { values } from './solution';",
    );
    expect(result.tests.map((test) => test.status)).toEqual(['fail', 'fail', 'fail', 'fail', 'fail', 'fail', 'pass']);
  });

  it("map 'node:assert/strict' to the strict assertions, as Node does", async () => {
    const result = await pool.evaluate({
      files: {},
      job: {
        type: 'tests',
        snippets: {
          setup: "import assert from 'node:assert/strict';",
          tests: ["assert.equal(1, '1');", 'assert.deepEqual([1], [1]);'],
        },
      },
      limits,
    });
    expect(result.tests.map((test) => [test.status, test.message])).toEqual([
      ['fail', 'assert.strictEqual failed'],
      ['pass', undefined],
    ]);
  });
});
