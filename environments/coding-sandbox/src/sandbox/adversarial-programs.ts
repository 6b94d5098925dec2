/** What an adversarial program tries to do. */
export type Threat =
  | 'file-system'
  | 'modules'
  | 'process'
  | 'network'
  | 'prototype-pollution'
  | 'escape'
  | 'cpu'
  | 'recursion'
  | 'memory'
  | 'output'
  | 'observation'
  | 'async';

/**
 * A program an untrusted agent might RUN, and the pattern the RUN observation must match: the attempt is stopped or
 * harmless, and the agent is told so in plain words.
 */
export interface AdversarialProgram {
  readonly name: string;
  readonly threat: Threat;
  /** Run as a RUN snippet (TypeScript; its last expression is reported), or as a test file (`asTestFile`). */
  readonly code: string;
  /**
   * `code` is a test file (`attack.test.ts`) run by RUN_TESTS, for attacks on the test runner itself: `expect` then
   * matches the test report (`formatTestReport`).
   */
  readonly asTestFile?: true;
  /** Must match the observation (`formatRunReport`, or `formatTestReport` for a test file). */
  readonly expect: RegExp;
  /** Slow to stop (a worker restart or kill): the short soak in the default test suite runs it less often. */
  readonly slow?: boolean;
}

const NO_MODULE = /Cannot find module '[^']+': the sandbox has no Node\.js built-in or npm modules/;
const NOT_DEFINED = /is not defined \(the sandbox has only the JavaScript language/;
const TIME = /time limit exceeded/;
const MEMORY = /memory limit exceeded|the sandbox memory limit was reached|grew past what the sandbox allows/;
const MEMORY_OR_TIME = /memory limit exceeded|time limit exceeded|the sandbox memory limit was reached/;
/** Every field that leaves the sandbox is cut with this note (the security suite also bounds the whole result). */
const TRUNCATED = /…\[truncated \d+ chars\]/;
const MEMORY_LIMIT_REACHED = /Array buffer allocation failed \(the sandbox memory limit was reached\)/;
// 2 MB: well inside the 32 MB limit the suite and the soak use, so the field is built and must be cut on the way out.
const HUGE = "'z'.repeat(2e6)";
// A builtin that allocates in one go ignores the time limit: it either aborts V8 (the worker restarts) or the watchdog
// kills the worker first, depending on how fast the machine is. Both stop it.
/** A test report of one test that did not pass, with `detail` in it. */
const NONE_OF_ONE_PASSED = (detail: RegExp): RegExp =>
  new RegExp(
    `^RUN_TESTS: 0 of 1 test passed\\.\\n\\n(ERROR|FAIL|TIMEOUT) attack\\.test\\.ts › t\\n[\\s\\S]*${detail.source}`,
  );
const UNFINISHED = /did not finish: the test's promise never settled/;
const MEMORY_OR_KILLED = /memory limit exceeded|time limit exceeded: the program did not stop .*killed/;

/** The security corpus: every kind of attack the README's threat model names. */
export const ADVERSARIAL_PROGRAMS: readonly AdversarialProgram[] = [
  // ---- the file system
  {
    name: 'require fs and read /etc/passwd',
    threat: 'file-system',
    code: "require('fs').readFileSync('/etc/passwd', 'utf8')",
    expect: NO_MODULE,
  },
  {
    name: 'import node:fs and write a file',
    threat: 'file-system',
    code: "import { writeFileSync } from 'node:fs';\nwriteFileSync('/tmp/turngym-sandbox-pwned', 'x')",
    expect: NO_MODULE,
  },
  { name: 'process.binding fs', threat: 'file-system', code: "(process as any).binding('fs')", expect: NOT_DEFINED },
  {
    name: 'require a path outside the workspace',
    threat: 'file-system',
    code: "require('../../../../etc/passwd')",
    expect: /Cannot find module '\.\.\/\.\.\/\.\.\/\.\.\/etc\/passwd'.*no such file in the workspace/,
  },
  // ---- modules and processes
  {
    name: 'child_process.execSync',
    threat: 'modules',
    code: "require('child_process').execSync('id').toString()",
    expect: NO_MODULE,
  },
  {
    name: 'worker_threads',
    threat: 'modules',
    code: "new (require('worker_threads').Worker)('while(1){}', { eval: true })",
    expect: NO_MODULE,
  },
  {
    name: 'module.constructor._load',
    threat: 'modules',
    code: "(module as any).constructor._load('fs')",
    expect: /TypeError: .*_load is not a function/,
  },
  {
    name: 'dynamic import',
    threat: 'modules',
    code: "import('fs').then((fs: any) => fs.readFileSync('/etc/passwd'))",
    expect: /unhandled promise rejection: Cannot find module 'fs': the sandbox has no Node\.js built-in/,
  },
  { name: 'process.env', threat: 'process', code: 'process.env.HOME', expect: NOT_DEFINED },
  { name: 'process.exit', threat: 'process', code: 'process.exit(1)', expect: NOT_DEFINED },
  {
    name: 'globalThis.process',
    threat: 'process',
    code: "typeof (globalThis as any).process + ' ' + typeof (globalThis as any).Buffer",
    expect: /=> "undefined undefined"/,
  },
  // ---- the network
  { name: 'fetch', threat: 'network', code: "fetch('http://example.com')", expect: NOT_DEFINED },
  { name: 'http.get', threat: 'network', code: "require('http').get('http://example.com')", expect: NO_MODULE },
  { name: 'net.connect', threat: 'network', code: "require('node:net').connect(80, 'example.com')", expect: NO_MODULE },
  { name: 'WebSocket', threat: 'network', code: "new WebSocket('ws://example.com')", expect: NOT_DEFINED },
  { name: 'XMLHttpRequest', threat: 'network', code: 'new XMLHttpRequest()', expect: NOT_DEFINED },
  // ---- host objects
  {
    name: 'prototype pollution',
    threat: 'prototype-pollution',
    code: "(Object.prototype as any).polluted = 'yes';\n(Array.prototype as any).push = () => 0;\n(JSON as any).parse = null;\n({} as any).polluted",
    expect: /=> "yes"/,
  },
  {
    name: '__proto__ pollution',
    threat: 'prototype-pollution',
    code: "({} as any).__proto__.toString = () => 'hacked';\nString({})",
    expect: /=> "hacked"/,
  },
  // ---- escapes through constructors and stack traces
  {
    name: 'Function constructor to process',
    threat: 'escape',
    code: "this.constructor.constructor('return process')()",
    expect: NOT_DEFINED,
  },
  {
    name: 'constructor chain to globalThis',
    threat: 'escape',
    code: "[].constructor.constructor('return globalThis')().process === undefined",
    expect: /=> true/,
  },
  {
    name: 'console.log constructor chain',
    threat: 'escape',
    code: "console.log.constructor('return process.mainModule')()",
    expect: NOT_DEFINED,
  },
  {
    name: 'CallSite getThis and getFunction',
    threat: 'escape',
    code: "(Error as any).prepareStackTrace = (_: Error, frames: any[]) => frames.map((f) => [typeof f.getThis(), typeof f.getFunction()].join('/'));\nconst probe = new Error().stack as unknown as string[];\nprobe.some((entry) => entry.startsWith('object/') && entry.endsWith('function')) ? 'leaked' : 'nothing reachable'",
    expect: /=> "nothing reachable"/,
  },
  {
    name: 'eval of a host global',
    threat: 'escape',
    code: 'eval(\'typeof require === "function" && typeof process\')',
    expect: /=> "undefined"/,
  },
  // ---- CPU
  { name: 'infinite loop', threat: 'cpu', code: 'while (true) {}', expect: TIME },
  {
    name: 'busy loop with work',
    threat: 'cpu',
    code: 'let x = 0;\nfor (;;) x = (x * 31 + 7) % 1000003;',
    expect: TIME,
  },
  { name: 'catastrophic regex', threat: 'cpu', code: "/(a+)+b/.test('a'.repeat(40))", expect: TIME },
  {
    name: 'builtin that ignores termination',
    threat: 'cpu',
    code: 'const a: number[] = [];\na.length = 1e9;\na.sort();',
    expect: /time limit exceeded: the program did not stop .*killed/,
    slow: true,
  },
  // ---- recursion
  {
    name: 'deep recursion',
    threat: 'recursion',
    code: 'function f(n: number): number { return f(n + 1) + 1; }\nf(0)',
    expect: /RangeError: Maximum call stack size exceeded \(recursion too deep\)/,
  },
  {
    name: 'recursive getter',
    threat: 'recursion',
    code: "const o: any = {};\nObject.defineProperty(o, 'x', { get() { return this.x; } });\no.x",
    expect: /Maximum call stack size exceeded/,
  },
  {
    name: 'deeply nested JSON',
    threat: 'recursion',
    code: "JSON.parse('['.repeat(1e6) + ']'.repeat(1e6))",
    expect: /Maximum call stack size exceeded|memory limit exceeded|time limit exceeded/,
  },
  // ---- memory
  {
    name: 'new Array(1e9).fill',
    threat: 'memory',
    code: 'new Array(1e9).fill(0)',
    expect: MEMORY_OR_KILLED,
    slow: true,
  },
  { name: 'string doubling', threat: 'memory', code: "let s = 'x';\nwhile (true) s += s;", expect: MEMORY },
  {
    name: 'array of arrays',
    threat: 'memory',
    code: 'const keep: number[][] = [];\nfor (;;) keep.push(new Array(1e5).fill(1));',
    expect: MEMORY_OR_TIME,
    slow: true,
  },
  {
    name: 'huge ArrayBuffer',
    threat: 'memory',
    code: 'new ArrayBuffer(2 ** 31)',
    expect: /Array buffer allocation failed \(the sandbox memory limit was reached\)/,
  },
  {
    name: 'typed arrays until full',
    threat: 'memory',
    code: 'const keep: Uint8Array[] = [];\nfor (;;) keep.push(new Uint8Array(1 << 20));',
    expect: MEMORY_OR_TIME,
  },
  {
    name: 'huge split',
    threat: 'memory',
    code: "'x'.repeat(2 ** 27).split('').length",
    expect: MEMORY_OR_KILLED,
    slow: true,
  },
  {
    name: 'map growth',
    threat: 'memory',
    code: 'const m = new Map<number, object>();\nfor (let i = 0; ; i++) m.set(i, { i });',
    expect: MEMORY_OR_TIME,
    slow: true,
  },
  // ---- output
  {
    name: 'endless logging',
    threat: 'output',
    code: "for (;;) console.log('spam spam spam');",
    expect: /time limit exceeded[\s\S]*stdout \(first \d+ of \d+ characters; the rest was cut\)/,
  },
  {
    name: 'one huge line',
    threat: 'output',
    code: "console.log('x'.repeat(1e7));",
    expect: /stdout \(first \d+ of 10000001 characters; the rest was cut\)/,
  },
  { name: 'huge return value', threat: 'output', code: "'y'.repeat(1e7)", expect: /=> "y+"… \(10000000 chars\)/ },
  {
    name: 'stderr flood',
    threat: 'output',
    code: "for (let i = 0; i < 2000; i++) console.error('e'.repeat(100));",
    expect: /stderr \(first \d+ of \d+ characters; the rest was cut\)/,
  },
  // ---- huge fields: every string that reaches the observation is cut, with a note saying how much
  {
    name: 'error with a huge name',
    threat: 'observation',
    code: `const e = new Error('m');\ne.name = ${HUGE};\nthrow e;`,
    expect: TRUNCATED,
  },
  {
    name: 'error with a huge message',
    threat: 'observation',
    code: `throw new Error(${HUGE});`,
    expect: TRUNCATED,
  },
  {
    name: 'error with a huge stack',
    threat: 'observation',
    code: `const e = new Error('m');\nObject.defineProperty(e, 'stack', { value: ${HUGE} });\nthrow e;`,
    expect: /RUN \(code\): threw\.\n {2}Error: m/,
  },
  {
    name: 'error with a huge custom field',
    threat: 'observation',
    code: `const e: any = new Error('m');\ne.detail = ${HUGE};\nthrow e;`,
    expect: /RUN \(code\): threw\.\n {2}Error: m/,
  },
  {
    name: 'thrown object with huge fields',
    threat: 'observation',
    code: `throw { name: ${HUGE}, message: ${HUGE} };`,
    expect: TRUNCATED,
  },
  { name: 'thrown huge string', threat: 'observation', code: `throw ${HUGE};`, expect: /"z+"… \(2000000 chars\)/ },
  { name: 'error as the value', threat: 'observation', code: `new Error(${HUGE})`, expect: TRUNCATED },
  { name: 'symbol as the value', threat: 'observation', code: `Symbol(${HUGE})`, expect: TRUNCATED },
  { name: 'regexp as the value', threat: 'observation', code: "new RegExp('z'.repeat(1e5))", expect: TRUNCATED },
  { name: 'BigInt as the value', threat: 'observation', code: '10n ** 100000n', expect: TRUNCATED },
  {
    name: 'function with a huge name',
    threat: 'observation',
    code: `const f = () => 0;\nObject.defineProperty(f, 'name', { value: ${HUGE} });\nf`,
    expect: TRUNCATED,
  },
  {
    name: 'instance of a class with a huge name',
    threat: 'observation',
    code: `class A {}\nObject.defineProperty(A, 'name', { value: ${HUGE} });\nnew A()`,
    expect: TRUNCATED,
  },
  { name: 'object with a huge key', threat: 'observation', code: `({ [${HUGE}]: 1 })`, expect: TRUNCATED },
  {
    name: 'unhandled rejection with a huge message',
    threat: 'observation',
    code: `Promise.reject(new Error(${HUGE}));`,
    expect: /unhandled promise rejection: z{900}/,
  },
  // ---- memory that grows after it is created, or lives outside the V8 heap
  {
    name: 'resizable ArrayBuffer resized past the limit',
    threat: 'memory',
    code: 'const b = new ArrayBuffer(1, { maxByteLength: 2 ** 28 });\nb.resize(2 ** 28);\nb.byteLength',
    expect: MEMORY_LIMIT_REACHED,
  },
  {
    name: 'resizable ArrayBuffers that each stay under the limit',
    threat: 'memory',
    code: 'const keep: ArrayBuffer[] = [];\nfor (let i = 0; i < 64; i++) { const b = new ArrayBuffer(1, { maxByteLength: 2 ** 22 }); b.resize(2 ** 22); keep.push(b); }\nkeep.length',
    expect: MEMORY_LIMIT_REACHED,
  },
  {
    name: 'address space reserved by resizable ArrayBuffers',
    threat: 'memory',
    code: 'const keep: ArrayBuffer[] = [];\nfor (let i = 0; i < 1e5; i++) keep.push(new ArrayBuffer(0, { maxByteLength: 2 ** 32 }));\nkeep.length',
    expect: MEMORY_LIMIT_REACHED,
  },
  {
    name: 'the original ArrayBuffer through buffer.constructor',
    threat: 'memory',
    code: 'const AB = new Uint8Array(1).buffer.constructor as any;\nconst b = new AB(1, { maxByteLength: 2 ** 28 });\nb.resize(2 ** 28);\nb.byteLength',
    expect: MEMORY_LIMIT_REACHED,
  },
  {
    name: 'maxByteLength that changes between reads',
    threat: 'memory',
    code: 'let reads = 0;\nconst options = { get maxByteLength() { return reads++ === 0 ? 16 : 2 ** 28; } };\nconst b = new ArrayBuffer(1, options);\nb.resize(2 ** 28);\nb.byteLength',
    expect: /RangeError: Invalid length parameter|RangeError: .*length/,
  },
  {
    name: 'ArrayBuffer copies until full',
    threat: 'memory',
    code: 'const b = new ArrayBuffer(1 << 24);\nconst keep: ArrayBuffer[] = [];\nfor (;;) keep.push(b.slice(0));',
    expect: /the sandbox memory limit was reached|memory limit exceeded|time limit exceeded/,
  },
  {
    name: 'growable SharedArrayBuffer',
    threat: 'memory',
    code: 'const b = new SharedArrayBuffer(1, { maxByteLength: 2 ** 28 });\nb.grow(2 ** 28);',
    expect: NOT_DEFINED,
  },
  {
    name: 'WebAssembly.Memory grow',
    threat: 'memory',
    code: 'const m = new WebAssembly.Memory({ initial: 1, maximum: 4096 });\nm.grow(4000);',
    expect: NOT_DEFINED,
  },
  {
    name: 'Intl.Segmenter holding copies of a string',
    threat: 'memory',
    code: "const s = 'x'.repeat(1e7);\nconst keep: unknown[] = [];\nfor (let i = 0; i < 20; i++) keep.push(new Intl.Segmenter('en').segment(s));",
    expect: /Intl is not defined \(the sandbox has no Intl/,
  },
  {
    name: 'Intl formatters until full',
    threat: 'memory',
    code: "const keep: unknown[] = [];\nfor (;;) keep.push(new Intl.DateTimeFormat('en', { dateStyle: 'full' }));",
    expect: /Intl is not defined/,
  },
  {
    name: 'locale-aware string methods still work',
    threat: 'memory',
    code: "['b', 'a'].sort((x, y) => x.localeCompare(y)).join() + ' ' + (1234.5).toLocaleString('en-US')",
    expect: /=> "a,b 1,234\.5"/,
  },
  // ---- timers and promises that would outlive the call
  {
    name: 'setTimeout',
    threat: 'async',
    code: "setTimeout(() => console.log('late'), 0)",
    expect: /setTimeout is not available in the sandbox/,
  },
  {
    name: 'setInterval',
    threat: 'async',
    code: 'setInterval(() => {}, 1)',
    expect: /setInterval is not available in the sandbox/,
  },
  {
    name: 'queueMicrotask',
    threat: 'async',
    code: 'queueMicrotask(() => {})',
    expect: /queueMicrotask is not available in the sandbox/,
  },
  {
    name: 'endless promise chain',
    threat: 'async',
    code: 'const loop = (): Promise<void> => Promise.resolve().then(loop);\nloop();',
    // Each promise waits on the next one, so the chain also grows the heap: on a slow or busy machine the
    // 32 MB limit can fire before the time limit (seen in CI-like runs). Either limit stops it.
    expect: MEMORY_OR_TIME,
  },
  { name: 'a promise that never settles', threat: 'async', code: 'new Promise(() => {})', expect: /=> Promise \{\}/ },
  {
    name: 'SharedArrayBuffer and Atomics',
    threat: 'async',
    code: 'Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0)',
    expect: NOT_DEFINED,
  },
  {
    name: 'WebAssembly',
    threat: 'escape',
    code: 'WebAssembly.compile(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]))',
    expect: NOT_DEFINED,
  },
  {
    name: 'FinalizationRegistry callback',
    threat: 'async',
    code: 'new FinalizationRegistry(() => {})',
    expect: NOT_DEFINED,
  },
  // ---- values whose reading runs code: inside a call the time limit covers it; isolated-vm reads an unhandled
  // rejection's reason (`message`, `stack`, `toString`) after the call, outside it, so the watchdog's kill bounds that
  {
    name: 'unhandled rejection whose reason never finishes being read',
    threat: 'cpu',
    code: 'Promise.reject({ get message(): string { while (true) {} } });',
    expect:
      /time limit exceeded: the program did not stop .*killed \(.*an unhandled promise rejection whose reason runs code when it is read/,
    slow: true,
  },
  {
    name: 'unhandled rejection of an Error whose stack formatting never returns',
    threat: 'cpu',
    code: "(Error as any).prepareStackTrace = () => { while (true) {} };\nPromise.reject(new Error('x'));",
    expect:
      /time limit exceeded: the program did not stop .*killed \(.*an unhandled promise rejection whose reason runs code when it is read/,
    slow: true,
  },
  {
    name: 'thrown object whose message getter never returns',
    threat: 'cpu',
    code: 'throw { get message(): string { while (true) {} } };',
    expect: /time limit exceeded: stopped after/,
  },
  {
    name: 'value with a then, toString, toJSON and Symbol.toPrimitive that never return',
    threat: 'cpu',
    code: '({ then() { while (true) {} }, toString() { while (true) {} }, toJSON() { while (true) {} }, [Symbol.toPrimitive]() { while (true) {} } })',
    // The value is rendered without calling any of them.
    expect: /RUN \(code\): finished\.\n=> \{then: \[Function: then\], toString: \[Function: toString\]/,
  },
  {
    name: 'value that is a Proxy whose traps never return',
    threat: 'cpu',
    code: 'new Proxy({}, { get() { while (true) {} }, ownKeys() { while (true) {} }, getOwnPropertyDescriptor() { while (true) {} }, getPrototypeOf() { while (true) {} } })',
    expect: /time limit exceeded: stopped after/,
  },
  {
    name: 'array value with an index getter that never returns',
    threat: 'cpu',
    code: 'const a = [1, 2];\nObject.defineProperty(a, 1, { get() { while (true) {} } });\na',
    expect: /time limit exceeded: stopped after/,
  },
  {
    name: 'continuation queued behind the value that never returns',
    threat: 'async',
    code: 'Promise.resolve().then(() => { while (true) {} });\n1',
    expect: /time limit exceeded: stopped after/,
  },
  // ---- async tests and hostile thenables against the test runner (RUN_TESTS on a test file): none may pass a
  // failing test, hang the run or reach the host; a test still pending once its continuations ran did not finish
  {
    name: 'async test that fails after an await',
    threat: 'async',
    asTestFile: true,
    code: "test('t', async () => { await null; expect(1).toBe(2); });",
    expect: NONE_OF_ONE_PASSED(/expected: 2\n {2}actual: {3}1/),
  },
  {
    name: 'async test that never settles',
    threat: 'async',
    asTestFile: true,
    code: "test('t', async () => { await new Promise(() => {}); expect(1).toBe(2); });",
    expect: NONE_OF_ONE_PASSED(UNFINISHED),
  },
  {
    name: 'thenable whose then getter throws',
    threat: 'async',
    asTestFile: true,
    code: "test('t', () => ({ get then() { throw new Error('getter'); } }));",
    expect: NONE_OF_ONE_PASSED(/Error: getter/),
  },
  {
    name: 'thenable that rejects, then resolves synchronously many times',
    threat: 'async',
    asTestFile: true,
    code: "test('t', () => ({ then(resolve: any, reject: any) { reject(new Error('first')); for (let i = 0; i < 1e5; i++) resolve(); } }));",
    expect: NONE_OF_ONE_PASSED(/Error: first/),
  },
  {
    name: 'thenable that never calls back',
    threat: 'async',
    asTestFile: true,
    code: "test('t', () => ({ then() {} }));",
    expect: NONE_OF_ONE_PASSED(UNFINISHED),
  },
  {
    name: 'thenable that resolves with itself forever',
    threat: 'async',
    asTestFile: true,
    code: "test('t', () => { const t: any = { then(resolve: any) { resolve(t); } }; return t; });",
    expect: NONE_OF_ONE_PASSED(TIME),
  },
  {
    name: 'Promise.prototype.then patched to resolve everything',
    threat: 'async',
    asTestFile: true,
    code: "Promise.prototype.then = function (this: any, resolve: any) { resolve(); return this; } as any;\ntest('t', async () => { throw new Error('no'); });",
    expect: NONE_OF_ONE_PASSED(/Error: no/),
  },
  {
    name: "a species on Promise.prototype's constructor",
    threat: 'async',
    asTestFile: true,
    code: "Object.defineProperty(Promise.prototype, 'constructor', { get() { return { [Symbol.species]: function (executor: any) { executor(() => {}, () => {}); } }; } });\ntest('t', async () => { throw new Error('no'); });",
    expect: NONE_OF_ONE_PASSED(/Error: no/),
  },
  {
    name: 'done called twice',
    threat: 'async',
    asTestFile: true,
    code: "test('t', (done: any) => { done(); done(); });",
    expect: NONE_OF_ONE_PASSED(/done\(\) was called more than once/),
  },
  {
    name: 'done never called',
    threat: 'async',
    asTestFile: true,
    code: "test('t', (done: any) => {});",
    expect: NONE_OF_ONE_PASSED(/did not finish: done\(\) was never called/),
  },
  {
    name: "a later test settles an earlier test's promise",
    threat: 'async',
    asTestFile: true,
    code: "let settleEarlier: any;\ntest('a', () => new Promise((resolve) => { settleEarlier = resolve; }));\ntest('b', () => { settleEarlier(); });",
    expect: /RUN_TESTS: 1 of 2 tests passed\.\n\nERROR attack\.test\.ts › a\n {2}did not finish/,
  },
  {
    name: 'async test rejecting with a huge message',
    threat: 'observation',
    asTestFile: true,
    code: `test('t', async () => { await null; throw new Error(${HUGE}); });`,
    expect: NONE_OF_ONE_PASSED(TRUNCATED),
  },
];
