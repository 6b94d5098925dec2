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
  | 'async';

/**
 * A program an untrusted agent might RUN, and the pattern the RUN observation must match: the attempt is stopped or
 * harmless, and the agent is told so in plain words.
 */
export interface AdversarialProgram {
  readonly name: string;
  readonly threat: Threat;
  /** Run as a RUN snippet (TypeScript; its last expression is reported). */
  readonly code: string;
  /** Must match the observation (`formatRunReport`). */
  readonly expect: RegExp;
  /** Slow to stop (a worker restart or kill): the short soak in the default test suite runs it less often. */
  readonly slow?: boolean;
}

const NO_MODULE = /Cannot find module '[^']+': the sandbox has no Node\.js built-in or npm modules/;
const NOT_DEFINED = /is not defined \(the sandbox has only the JavaScript language/;
const TIME = /time limit exceeded/;
const MEMORY = /memory limit exceeded|the sandbox memory limit was reached|grew past what the sandbox allows/;
const MEMORY_OR_TIME = /memory limit exceeded|time limit exceeded|the sandbox memory limit was reached/;
// A builtin that allocates in one go ignores the time limit: it either aborts V8 (the worker restarts) or the watchdog
// kills the worker first, depending on how fast the machine is. Both stop it.
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
    expect: TIME,
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
];
