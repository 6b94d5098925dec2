// @ts-check
// The sandbox worker: a child process that runs untrusted JavaScript/TypeScript inside isolated-vm isolates.
//
// Layers (see the package README, "Threat model"):
// 1. isolated-vm: untrusted code runs in a V8 isolate with nothing of Node in it. Only strings and numbers cross
//    the boundary (no References to this process's objects are ever handed in). Every call into the isolate
//    carries a `timeout`; the isolate has a `memoryLimit`; every evaluation gets a fresh context.
// 2. This process: some programs can still abort V8 itself (a single huge allocation such as
//    `new Array(1e9).fill(0)` is a fatal out-of-memory in the whole process, not a catchable error) or wedge a
//    builtin that ignores termination (`a.length = 1e9; a.sort()`). So the isolates live here, not in the host:
//    the host kills and restarts this process when it dies or overruns its deadline.
// 3. The process is started with Node's permission model (no child processes, no worker threads, no file
//    writes, reads only of the packages it loads) and an empty environment, in case layer 1 is ever breached.
//
// Plain JavaScript (not TypeScript) so the same file runs from `src/` under jest and from `dist/` when published.
'use strict';

const { readFileSync } = require('node:fs');
const { dirname, join } = require('node:path');

const [isolatedVmPath, sucrasePath, runtimePath] = process.argv.slice(2);
if (!isolatedVmPath || !sucrasePath || !runtimePath) {
  process.stderr.write('usage: sandbox-worker <isolated-vm> <sucrase> <isolate-runtime.js>\n');
  process.exit(2);
}
/** @type {typeof import('isolated-vm')} */
const ivm = require(isolatedVmPath);
/** @type {typeof import('sucrase')} */
const sucrase = require(sucrasePath);
/** A file that holds one function expression (`(function … {…});`), as an expression. */
const asExpression = (path) => readFileSync(path, 'utf8').trimEnd().replace(/;$/, '');
// The runtime is a function of node:assert's factory (node-assert.js, beside it): one script, no globals between them.
const runtimeSource = `(${asExpression(runtimePath)})(${asExpression(join(dirname(runtimePath), 'node-assert.js'))});`;

const TRANSPILE_CACHE_LIMIT = 2000;
/**
 * The cache's bound in characters (keys and outputs), and the largest entry it keeps. Counting entries alone
 * let untrusted code grow the worker past its memory bound: a 98k-character snippet that sucrase expands to
 * 5 MB, run with a new name each time, took the worker from 110 to 343 MB RSS in 45 runs and then out of heap.
 */
const TRANSPILE_CACHE_CHARS = 8 * 1024 * 1024;
const TRANSPILE_ENTRY_CHARS = 256 * 1024;
/** @type {Map<string, { code?: string, error?: string, chars: number }>} */
const transpileCache = new Map();
let transpileCacheChars = 0;

// ---- a time limit for sucrase ----------------------------------------------------------------------------------------
// Sucrase runs here, in this process, outside any isolate and its timeout. Its TypeScript parser backtracks: at `<T>(`
// it tries a generic arrow function, and on failure parses again as a type assertion, so n nested `<T>(` take 2^n
// steps (a 250-character file of 26 held a worker until the host killed it, 9 s later, with "the program did not stop
// at its limit", and a SUBMIT of it got no format penalty). Every backtrack restores a parser snapshot, so that is
// where the time is checked: past the deadline the parse is abandoned and the file is a compile error.
/** @type {number} */
let transpileDeadline = Infinity;
class TranspileTimeout extends Error {}
try {
  const SucraseState = require(join(dirname(sucrasePath), 'parser', 'tokenizer', 'state.js')).default;
  const restoreFromSnapshot = SucraseState.prototype.restoreFromSnapshot;
  if (typeof restoreFromSnapshot !== 'function') throw new Error('no restoreFromSnapshot');
  SucraseState.prototype.restoreFromSnapshot = function (snapshot) {
    if (performance.now() > transpileDeadline) throw new TranspileTimeout();
    return restoreFromSnapshot.call(this, snapshot);
  };
} catch (error) {
  // Another sucrase layout: the host's deadline stays the only bound, as before.
  process.stderr.write(`sandbox-worker: no time limit for sucrase (${String(error)})\n`);
}

// ---- two TypeScript constructs sucrase gets wrong ------------------------------------------------------------------
// 1. A name imported with `import type` and exported again (`import type { Shape } from './shapes'; export { Shape };`,
//    `export default Shape`, a barrel file's usual shape) became `exports.Shape = Shape`: sucrase removes the import
//    but counts its names as values, so the file threw "ReferenceError: Shape is not defined" when loaded and every
//    test that imported it failed. Such a name is a type: its export is removed, as TypeScript does.
// 2. Auto-accessors (`accessor x = 1`, TypeScript 4.9 / ES decorators) are parsed and turned into plain fields, a
//    `static accessor` even into an instance field (`Box.count` was undefined), and this Node has no auto-accessors to
//    pass them on to: the file is a compile error that names the construct and what to write instead.
const sucraseDist = dirname(sucrasePath);
/** @type {((source: string, typescript: boolean) => string | undefined) | undefined} */
let findAutoAccessor;
try {
  const { TokenType } = require(join(sucraseDist, 'parser', 'tokenizer', 'types.js'));
  const { ContextualKeyword } = require(join(sucraseDist, 'parser', 'tokenizer', 'keywords.js'));
  const { IdentifierRole } = require(join(sucraseDist, 'parser', 'tokenizer', 'index.js'));
  const { parse } = require(join(sucraseDist, 'parser', 'index.js'));
  const declarationInfo = require(join(sucraseDist, 'util', 'getDeclarationInfo.js'));
  const getDeclarationInfo = declarationInfo.default;
  if (typeof getDeclarationInfo !== 'function' || typeof parse !== 'function' || ContextualKeyword._type === undefined)
    throw new Error('an unexpected layout');
  /** Names bound by `import type X`, `import type { X }`, `import type * as X` (not `import type from`). */
  const typeOnlyImports = (tokens) => {
    const names = [];
    const list = tokens.tokens;
    for (let i = 0; i + 2 < list.length; i++) {
      if (list[i].type !== TokenType._import) continue;
      const second = list[i + 1];
      const third = list[i + 2];
      if (second.type !== TokenType.name || second.contextualKeyword !== ContextualKeyword._type) continue;
      // `import type from './x'` and `import type, { a } from './x'` import a value named `type`.
      if (third.type === TokenType.comma || third.type === TokenType.eq) continue;
      if (third.type === TokenType.name && third.contextualKeyword === ContextualKeyword._from) continue;
      for (let j = i + 2; j < list.length && list[j].type !== TokenType.string && list[j].type !== TokenType.semi; j++)
        if (list[j].type === TokenType.name && list[j].identifierRole === IdentifierRole.ImportDeclaration)
          names.push(tokens.identifierNameForToken(list[j]));
    }
    return names;
  };
  declarationInfo.default = function typeAwareDeclarationInfo(tokens) {
    const info = getDeclarationInfo(tokens);
    for (const name of typeOnlyImports(tokens)) {
      info.valueDeclarations.delete(name);
      info.typeDeclarations.add(name);
    }
    return info;
  };
  const MEMBER_NAME_STARTS = new Set([
    TokenType.string,
    TokenType.num,
    TokenType.bigint,
    TokenType.bracketL,
    TokenType.hash,
  ]);
  findAutoAccessor = (source, typescript) => {
    const { tokens } = parse(source, false, typescript, false);
    for (let i = 0; i + 1 < tokens.length; i++) {
      const token = tokens[i];
      if (token.contextualKeyword !== ContextualKeyword._accessor || token.identifierRole !== IdentifierRole.ObjectKey)
        continue;
      // In a `declare class`, or `abstract`, it is a type only: nothing of it runs.
      const previous = tokens[i - 1];
      if (token.isType || previous?.contextualKeyword === ContextualKeyword._abstract) continue;
      // `accessor` as a modifier is followed on the same line by the member's name; a member named `accessor` by
      // `=`, `(`, `;` or a line end.
      const next = tokens[i + 1];
      const nameFollows =
        (next.type === TokenType.name && next.identifierRole === IdentifierRole.ObjectKey) ||
        MEMBER_NAME_STARTS.has(next.type);
      if (!nameFollows || /[\r\n\u2028\u2029]/.test(source.slice(token.end, next.start))) continue;
      const before = source.slice(0, token.start).split(/\r\n|[\r\n\u2028\u2029]/);
      return `${before.length}:${(before[before.length - 1] ?? '').length + 1}`;
    }
    return undefined;
  };
} catch (error) {
  process.stderr.write(
    `sandbox-worker: type-only re-exports and auto-accessors are left to sucrase (${String(error)})\n`,
  );
}

/**
 * How long the files of one evaluation may take to compile (ms): a call's time limit, but at least a second, so that a
 * client's small `timeLimitMs` does not turn a large file compiled on a busy machine into a compile error (sucrase
 * takes milliseconds for the 20,000 characters a file may hold). The host's deadline is more than that.
 */
function compileBudgetMs(limits) {
  return Math.max(limits.timeMs, 1000);
}

/**
 * Type-strips TypeScript and turns ES module syntax into CommonJS, without type-checking (sucrase), giving up at
 * `deadline` (a `performance.now()` time).
 */
function transpile(path, source, deadline) {
  const key = `${path}\u0000${source}`;
  const cached = transpileCache.get(key);
  if (cached) return cached;
  let entry;
  transpileDeadline = deadline;
  try {
    const typescript = /\.(ts|tsx|mts|cts)$/.test(path);
    const output = sucrase.transform(source, {
      transforms: typescript ? ['typescript', 'imports'] : ['imports'],
      filePath: path,
    });
    const accessorAt =
      findAutoAccessor && source.includes('accessor') ? findAutoAccessor(source, typescript) : undefined;
    entry =
      accessorAt === undefined
        ? { code: output.code }
        : {
            error: `SyntaxError: auto-accessors (\`accessor\` class members) are not supported (${accessorAt}): the sandbox's type stripper, sucrase, would make them plain fields (a \`static accessor\` an instance field); write a private field with a \`get\` and \`set\` pair instead`,
          };
  } catch (error) {
    if (error instanceof TranspileTimeout) {
      // Not cached: it says how long parsing took, not only what the source is.
      return {
        error:
          'SyntaxError: the file took too long to compile and was given up (deeply nested `<T>(…)` type assertions?)',
      };
    }
    const message = String((error && /** @type {Error} */ (error).message) || error).replace(
      /^Error transforming [^:]*: /,
      '',
    );
    entry = { error: `SyntaxError: ${message}` };
  } finally {
    transpileDeadline = Infinity;
  }
  const chars = key.length + (entry.code ?? entry.error ?? '').length;
  if (chars > TRANSPILE_ENTRY_CHARS) return entry;
  while (
    transpileCache.size > 0 &&
    (transpileCache.size >= TRANSPILE_CACHE_LIMIT || transpileCacheChars + chars > TRANSPILE_CACHE_CHARS)
  ) {
    const [oldest, evicted] = transpileCache.entries().next().value;
    transpileCache.delete(oldest);
    transpileCacheChars -= evicted.chars;
  }
  transpileCache.set(key, { ...entry, chars });
  transpileCacheChars += chars;
  return entry;
}

// ---- isolates, one per memory limit, recreated after disposal ------------------------------------------------------

/** @type {Map<number, { isolate: import('isolated-vm').Isolate, runtime: import('isolated-vm').Script, uses: number }>} */
const isolates = new Map();
const ISOLATE_REUSE_LIMIT = 500;

function isolateFor(memoryMb) {
  let entry = isolates.get(memoryMb);
  // Contexts are fresh per evaluation; the isolate (heap, compiled runtime) is reused for speed, and replaced
  // after a number of uses so that nothing accumulates in it.
  if (entry && (entry.isolate.isDisposed || entry.uses >= ISOLATE_REUSE_LIMIT)) {
    if (!entry.isolate.isDisposed) entry.isolate.dispose();
    entry = undefined;
  }
  if (!entry) {
    const isolate = new ivm.Isolate({ memoryLimit: memoryMb });
    const runtime = isolate.compileScriptSync(runtimeSource, { filename: 'sandbox-runtime.js' });
    entry = { isolate, runtime, uses: 0 };
    isolates.set(memoryMb, entry);
  }
  entry.uses += 1;
  return entry;
}

/**
 * V8 collects the garbage of released contexts lazily. A heap that is already half full would make the next program
 * pay for a full collection inside its time limit (and reach the memory limit sooner), so such an isolate is replaced.
 */
function retireIfHeavy(isolate, memoryMb) {
  if (isolate.isDisposed) return;
  const heap = isolate.getHeapStatisticsSync();
  if (heap.used_heap_size + (heap.externally_allocated_size ?? 0) > memoryMb * 1048576 * 0.4) {
    isolate.dispose();
    for (const [key, entry] of isolates) if (entry.isolate === isolate) isolates.delete(key);
  }
}

// ---- one evaluation --------------------------------------------------------------------------------------------------

const MAX_ISOLATE_RESTARTS = 3;

class Budget {
  constructor(limits) {
    this.timeMs = limits.timeMs;
    this.totalMs = limits.totalTimeMs;
    this.charged = 0;
  }
  get exhausted() {
    // Less than a millisecond left is nothing left (timeouts are whole milliseconds).
    return this.totalMs - this.charged < 1;
  }
  /** The timeout for the next call. */
  next() {
    return Math.max(1, Math.floor(Math.min(this.timeMs, this.totalMs - this.charged)));
  }
}

/**
 * A fresh context with the runtime installed and the Reference the worker drives it with, taken before any
 * untrusted code has run.
 */
class Session {
  constructor(memoryMb) {
    this.memoryMb = memoryMb;
    const entry = isolateFor(memoryMb);
    this.isolate = entry.isolate;
    this.context = this.isolate.createContextSync();
    this.dispatch = entry.runtime.runSync(this.context, { reference: true, timeout: 1000 });
  }

  /** Still usable: its isolate is alive and is the one the worker currently uses for this memory limit. */
  get fresh() {
    return !this.isolate.isDisposed && isolates.get(this.memoryMb)?.isolate === this.isolate;
  }

  /**
   * Calls an API function under the budget. Returns `{ ok, value }` or `{ ok: false, reason }` with reason
   * 'timeout' | 'memory' | 'budget' | 'error'.
   */
  call(name, args, budget) {
    if (budget && budget.exhausted) return { ok: false, reason: 'budget', message: '' };
    const timeout = budget ? budget.next() : 1000;
    const started = performance.now();
    try {
      const value = this.dispatch.applySync(undefined, [name, ...args], { timeout });
      if (budget) budget.charged += performance.now() - started;
      return { ok: true, value };
    } catch (error) {
      const message = String((error && /** @type {Error} */ (error).message) || error);
      if (this.isolate.isDisposed) {
        if (budget) budget.charged += performance.now() - started;
        return { ok: false, reason: 'memory', message };
      }
      if (/timed out/i.test(message)) {
        // Charged the full allowance, not the measured time, so how many tests a slow program gets to run
        // does not depend on scheduling noise.
        if (budget) budget.charged += timeout;
        this.discardContinuations();
        return { ok: false, reason: 'timeout', message, timeout };
      }
      if (budget) budget.charged += performance.now() - started;
      return { ok: false, reason: 'error', message };
    }
  }

  /**
   * Drops what a call stopped at its time limit left behind. Its program's queued continuations (stopped in its own
   * body, before they ran) ran in the next call, after that call's own work and under its limit: the next test was
   * charged for them, or the call that collects the output ran out of time and the output was lost
   * (`console.log('hi')`, five 400 ms continuations, `while (true) {}`: 3.4 s and "(no output)"). A call with a 1 ms
   * limit starts them and is stopped, and V8 empties the queue it was running. A rejection left unhandled by the
   * stopped call is reported by the next call that ends normally: this one, whose answer is not used, rather than the
   * next test.
   */
  discardContinuations() {
    for (let attempt = 0; attempt < 3 && !this.isolate.isDisposed; attempt++) {
      try {
        this.dispatch.applySync(undefined, ['idle'], { timeout: 1 });
        return;
      } catch (error) {
        if (!/timed out/i.test(String((error && /** @type {Error} */ (error).message) || error))) return;
      }
    }
  }

  output() {
    if (this.isolate.isDisposed) return undefined;
    const result = this.call('takeOutput', [], undefined);
    return result.ok ? JSON.parse(result.value) : undefined;
  }

  close() {
    try {
      this.dispatch.release();
    } catch {
      // already released with a disposed isolate
    }
    try {
      this.context.release();
    } catch {
      // already released with a disposed isolate
    }
    retireIfHeavy(this.isolate, this.memoryMb);
  }
}

/** Raw workspace files → module definitions (transpiled, or broken with the compile error). */
function prepareModules(files, trustedFiles, compileErrors, limits) {
  const modules = [];
  // The untrusted files of an evaluation together get one compile budget; the trusted test module its own (the
  // workspace's files must not use up its time).
  const untrustedDeadline = performance.now() + compileBudgetMs(limits);
  for (const [path, source, trusted] of [
    ...files.map(([p, s]) => [p, s, false]),
    ...trustedFiles.map(([p, s]) => [p, s, true]),
  ]) {
    if (/\.json$/.test(path)) {
      modules.push({ path, kind: 'json', code: source, trusted });
    } else if (/\.(ts|tsx|mts|cts|js|mjs|cjs|jsx)$/.test(path)) {
      const output = transpile(path, source, trusted ? performance.now() + compileBudgetMs(limits) : untrustedDeadline);
      if (output.error !== undefined) {
        compileErrors.push({ path, message: output.error });
        modules.push({ path, kind: 'broken', code: `${path}: ${output.error}`, trusted });
      } else modules.push({ path, kind: 'code', code: output.code, trusted });
    }
  }
  return modules;
}

/** The hidden or visible test snippets of a task as one trusted module (setup imports + one test per snippet). */
function snippetModule(snippets) {
  const lines = [snippets.setup, ''];
  snippets.tests.forEach((code, index) => {
    // A snippet that awaits is an async test (the runtime awaits it); the others stay plain functions.
    const kind = /\bawait\b/.test(code) ? 'async function' : 'function';
    lines.push(`__register(${JSON.stringify(snippetName(code, index))}, ${kind} () {`, code, '});');
  });
  return lines.join('\n');
}

function snippetName(code, index) {
  const compact = code.replace(/\s*\n\s*/g, ' ').trim();
  return compact.length > 160 ? `#${index + 1} ${compact.slice(0, 157)}...` : compact;
}

function defineAll(session, modules, compileErrors, budget) {
  for (const module of modules) {
    const outcome = session.call('defineModule', [module.path, module.code, module.kind, module.trusted], budget);
    if (!outcome.ok) return outcome;
    if (outcome.value) {
      const detail = JSON.parse(outcome.value);
      if (!compileErrors.some((entry) => entry.path === module.path))
        compileErrors.push({ path: module.path, message: `${detail.name}: ${detail.message}` });
    }
  }
  return { ok: true };
}

/**
 * A context created while the worker was idle (after its last reply), so that creating one — the largest fixed cost
 * of an evaluation — is off the critical path when requests are not back to back. No code has run in it.
 */
let prepared;

function prepareNext(memoryMb) {
  if (prepared?.fresh && prepared.memoryMb === memoryMb) return;
  prepared?.close();
  prepared = new Session(memoryMb);
}

function takeSession(memoryMb) {
  const session = prepared;
  prepared = undefined;
  if (session?.fresh && session.memoryMb === memoryMb) return session;
  session?.close();
  return new Session(memoryMb);
}

/**
 * Whether the evaluation may load node:assert: some file or snippet names it. The runtime builds node:assert (most of
 * its installation cost) only then, in `configure`, before any untrusted code: see isolate-runtime.js.
 */
function namesAssert(request) {
  const { job } = request;
  return (
    request.files.some(([, source]) => source.includes('assert')) ||
    (job.snippets !== undefined &&
      (job.snippets.setup.includes('assert') || job.snippets.tests.some((code) => code.includes('assert')))) ||
    (typeof job.code === 'string' && job.code.includes('assert'))
  );
}

function openSession(request, modules, budget, compileErrors) {
  const session = takeSession(request.limits.memoryMb);
  session.call('configure', [request.limits.outputChars, namesAssert(request)], undefined);
  const defined = defineAll(session, modules, compileErrors, budget);
  return { session, defined };
}

function failureMessage(reason, limits, timeout, message) {
  switch (reason) {
    case 'timeout':
      return `time limit exceeded: stopped after ${timeout ?? limits.timeMs} ms (infinite loop, or too slow)`;
    case 'memory':
      return `memory limit exceeded: the program used more than ${limits.memoryMb} MB and was stopped`;
    case 'budget':
      return `not run: the run used up its total time limit of ${limits.totalTimeMs} ms`;
    default:
      // isolated-vm reports a promise rejected and left unhandled during the call as the call's error.
      return `unhandled promise rejection: ${String(message ?? 'unknown error').slice(0, 1000)}`;
  }
}

function runTests(request, result) {
  const { job, limits } = request;
  const budget = new Budget(limits);
  const trustedFiles = [];
  const suites = [...(job.testFiles ?? [])];
  let trustedCount = -1;
  if (job.snippets) {
    const path = job.snippets.path ?? '__tests__.ts';
    trustedFiles.push([path, snippetModule(job.snippets)]);
    suites.push(path);
    trustedCount = job.snippets.tests.length;
  }
  const modules = prepareModules(request.files, trustedFiles, result.compileErrors, limits);
  const trustedPath = trustedFiles[0]?.[0];

  let restarts = 0;
  /** @type {Array<{ name: string, suite: string }>} */
  let listed = [];
  let next = 0;
  const pushNotRun = (from, reason, extra) => {
    for (let i = from; i < listed.length; i++)
      result.tests.push({ ...listed[i], status: 'not-run', message: extra ?? failureMessage(reason, limits) });
  };
  for (let first = true; ; first = false) {
    const { session, defined } = openSession(request, modules, budget, result.compileErrors);
    try {
      if (!defined.ok) {
        // Defining modules only compiles them; a failure here is the isolate running out of memory.
        if (listed.length === 0) result.fatal = failureMessage(defined.reason, limits, defined.timeout);
        else pushNotRun(next, defined.reason);
        return;
      }
      const current = [];
      for (const suite of suites) {
        const loaded = session.call('loadSuite', [suite], budget);
        if (!loaded.ok) {
          if (first)
            result.loadErrors.push({
              path: suite,
              message: `${failureMessage(loaded.reason, limits, loaded.timeout, loaded.message)} while loading the file`,
            });
          if (loaded.reason === 'memory') break;
          continue;
        }
        if (loaded.value && first)
          result.loadErrors.push({ path: suite, message: formatDetail(JSON.parse(loaded.value), trustedPath) });
      }
      if (session.isolate.isDisposed) {
        if (restarts++ < MAX_ISOLATE_RESTARTS && listed.length > 0) continue;
        if (listed.length === 0) result.fatal = failureMessage('memory', limits);
        else pushNotRun(next, 'memory');
        return;
      }
      const listing = session.call('listTests', [], undefined);
      if (!listing.ok) {
        // The list itself could not be built (the registrations filled the memory): say so, never "no test ran".
        if (listed.length === 0) result.fatal = failureMessage(listing.reason, limits, listing.timeout);
        else pushNotRun(next, listing.reason);
        return;
      }
      const listingValue = JSON.parse(listing.value);
      current.push(...listingValue.tests);
      if (listingValue.dropped > 0 && first)
        result.loadErrors.push({
          path: listingValue.droppedSuite,
          message: `${listingValue.dropped} more tests were registered than the sandbox runs (${current.length} at most); they were not run`,
        });
      if (listed.length === 0) listed = current;
      else if (current.length !== listed.length) {
        // After a restart the suites re-ran and listed different tests: nothing reliable remains to run.
        pushNotRun(next, 'error', 'not run: the test list changed after the sandbox restarted');
        return;
      }
      if (trustedCount >= 0) {
        const registered = listed.filter((entry) => entry.suite === trustedPath).length;
        if (registered !== trustedCount && !result.loadErrors.some((entry) => entry.path === trustedPath)) {
          result.loadErrors.push({ path: trustedPath, message: `expected ${trustedCount} tests, found ${registered}` });
        }
      }
      for (; next < listed.length; next++) {
        const entry = listed[next];
        if (budget.exhausted) {
          pushNotRun(next, 'budget');
          next = listed.length;
          break;
        }
        const started = performance.now();
        let outcome = session.call('runTest', [next], budget);
        if (outcome.ok && outcome.value === '{"status":"pending"}') {
          // An async test: its continuations ran inside that call (under its timeout); only the verdict is left to
          // read, and reading it runs no code of the test's (the microtask queue is empty), so it is not charged.
          outcome = session.call('testVerdict', [], undefined);
        }
        // Only on request (a task check measures its reference against the time limit): results stay comparable.
        const timing = job.timings ? { durationMs: Math.round((performance.now() - started) * 10) / 10 } : {};
        if (outcome.ok) {
          const parsed = JSON.parse(outcome.value);
          result.tests.push({ ...entry, ...testOutcome(parsed, trustedPath), ...timing });
          continue;
        }
        result.tests.push({
          ...entry,
          status: outcome.reason === 'memory' ? 'memory' : outcome.reason === 'timeout' ? 'timeout' : 'error',
          message: failureMessage(outcome.reason, limits, outcome.timeout, outcome.message),
          ...timing,
        });
        if (outcome.reason === 'memory') {
          next += 1;
          break;
        }
      }
      if (next >= listed.length) {
        mergeOutput(result, session.output());
        return;
      }
      // The isolate was disposed: go on with the remaining tests in a fresh isolate.
      if (restarts++ >= MAX_ISOLATE_RESTARTS) {
        pushNotRun(next, 'memory', 'not run: the program exceeded the memory limit too many times');
        return;
      }
    } finally {
      session.close();
    }
  }
}

function runProgram(request, result) {
  const { job, limits } = request;
  const budget = new Budget({ timeMs: limits.timeMs, totalTimeMs: limits.timeMs });
  const modules = prepareModules(request.files, [], result.compileErrors, limits);
  const { session, defined } = openSession(request, modules, budget, result.compileErrors);
  try {
    if (!defined.ok) {
      result.run = {
        status: defined.reason === 'memory' ? 'memory' : 'timeout',
        error: failureMessage(defined.reason, limits, defined.timeout),
      };
      return;
    }
    let outcome;
    if (typeof job.code === 'string') {
      const output = transpile('run.ts', job.code, performance.now() + compileBudgetMs(limits));
      if (output.error !== undefined) {
        result.run = { status: 'error', error: `run.ts: ${output.error}` };
        return;
      }
      outcome = session.call('runSnippet', [output.code], budget);
    } else {
      outcome = session.call('runFile', [job.path], budget);
    }
    if (!outcome.ok) {
      result.run = {
        status: outcome.reason === 'memory' ? 'memory' : outcome.reason === 'timeout' ? 'timeout' : 'error',
        error: failureMessage(outcome.reason, limits, outcome.timeout, outcome.message),
      };
    } else {
      const parsed = JSON.parse(outcome.value);
      result.run =
        parsed.status === 'ok'
          ? { status: 'ok', ...(parsed.value !== undefined ? { value: parsed.value } : {}) }
          : { status: 'error', error: formatDetail(parsed.detail, undefined) };
    }
    mergeOutput(result, session.output());
  } finally {
    session.close();
  }
}

function mergeOutput(result, output) {
  if (!output) return;
  result.stdout = output.stdout;
  result.stderr = output.stderr;
  result.stdoutDropped = output.stdoutDropped;
  result.stderrDropped = output.stderrDropped;
}

function testOutcome(parsed, trustedPath) {
  if (parsed.status === 'pass') return { status: 'pass' };
  if (parsed.status === 'unfinished') return { status: 'error', message: parsed.message };
  const detail = parsed.detail;
  if (detail.kind === 'assertion') {
    return {
      status: 'fail',
      message: `${detail.matcher} failed${detail.note ? ` (${detail.note})` : ''}`,
      expected: detail.expected,
      actual: detail.actual,
    };
  }
  return { status: 'error', message: formatDetail(detail, trustedPath) };
}

// ---- error text: message, a hint for what the sandbox lacks, and the frames in the agent's own files -------------

const MISSING_APIS =
  /^(process|require|module|exports|fetch|XMLHttpRequest|WebSocket|Buffer|global|window|document|navigator|setTimeout|setInterval|setImmediate|queueMicrotask|performance|structuredClone|TextEncoder|TextDecoder|URL|URLSearchParams|crypto|Deno|Bun|WebAssembly|SharedArrayBuffer|Atomics|FinalizationRegistry|WeakRef) is not defined$/;

/** The files of the evaluation being answered (for hints that name where something was declared). */
/** @type {Array<[string, string]>} */
let currentFiles = [];

/**
 * The file that declares `namespace <name>` (or `module <name>`) with a body. Sucrase strips TypeScript by erasing
 * every namespace block, values and all (it supports only type-only ones), so valid TypeScript such as
 * `namespace Geometry { export const area = … }` compiled silently and failed where it was used with
 * "ReferenceError: Geometry is not defined", which named nothing to change.
 */
function namespaceFileOf(name) {
  if (!/^[A-Za-z_$][\w$]*$/.test(name)) return undefined;
  const declaration = new RegExp(`(?:^|[\\s;{}])(?:namespace|module)\\s+${name.replace(/\$/g, '\\$')}\\s*[.{]`);
  return currentFiles.find(([path, source]) => /\.(ts|tsx|mts|cts)$/.test(path) && declaration.test(source))?.[0];
}

function hintFor(name, message) {
  if (name === 'ReferenceError') {
    const undefinedName = /^(\S+) is not defined$/.exec(message)?.[1];
    const file = undefinedName === undefined ? undefined : namespaceFileOf(undefinedName);
    if (file !== undefined)
      return ` (${file} declares \`namespace ${undefinedName}\`: the sandbox strips TypeScript with sucrase, which removes namespace blocks, values and all; use a plain object or a module of its own instead)`;
  }
  if (name === 'ReferenceError' && message === 'Intl is not defined')
    return ' (the sandbox has no Intl: its objects live outside the memory limit; localeCompare and toLocaleString work)';
  if (name === 'ReferenceError' && MISSING_APIS.test(message))
    return ' (the sandbox has only the JavaScript language: no Node.js or browser APIs, no file system, network, processes or timers)';
  if (/Array buffer allocation failed/.test(message)) return ' (the sandbox memory limit was reached)';
  if (/Invalid (string|array|typed array) length/.test(message))
    return ' (a string or array grew past what the sandbox allows)';
  if (/Maximum call stack size exceeded/.test(message)) return ' (recursion too deep)';
  // Imported functions are called as `_module.name.call(…)` once imports are compiled, so calling a name the module
  // does not export (or `import x from` a module without `export default`) said only this, which names nothing.
  if (name === 'TypeError' && message === "Cannot read properties of undefined (reading 'call')")
    return ' (a call of something undefined: often an imported name that the module does not export; check that the file exports the function under the name the tests import, e.g. `export function name`, and that `import name from` has an `export default`)';
  return '';
}

function formatDetail(detail, trustedPath) {
  if (!detail) return 'unknown error';
  if (detail.kind === 'assertion') return `${detail.matcher} failed: expected ${detail.expected}, got ${detail.actual}`;
  const head = `${detail.name}: ${detail.message}${hintFor(detail.name, detail.message)}`;
  const frames = [];
  for (const line of String(detail.stack || '')
    .split('\n')
    .slice(1)) {
    const match = /^\s*at (?:(.+?) \()?([^()\s]+?):(\d+):(\d+)\)?$/.exec(line);
    if (!match) continue;
    const [, fn, file, lineText, column] = match;
    if (!file || file === trustedPath || file === 'sandbox-runtime.js' || file.startsWith('<')) continue;
    // Modules are compiled with the Function constructor, whose wrapper adds two lines before the body.
    const lineNumber = file === 'run.ts' ? Number(lineText) : Number(lineText) - 2;
    const name = fn && fn !== 'eval' && fn !== 'Object.<anonymous>' ? fn.replace(/^Object\./, '') : '';
    frames.push(`    at ${name ? `${name} (` : ''}${file}:${lineNumber}:${column}${name ? ')' : ''}`);
    if (frames.length >= 3) break;
  }
  return frames.length > 0 ? `${head}\n${frames.join('\n')}` : head;
}

// ---- the message loop ------------------------------------------------------------------------------------------------

// ---- the bound on what goes back to the host ---------------------------------------------------------------------------
// The runtime cuts every field inside the isolate; this is the second line, at the worker's own boundary: no field of a
// result, and not the whole of it, may exceed these, whatever the isolate (or a bug in the runtime) handed out.
const FIELD_CHARS = {
  path: 300,
  name: 800,
  suite: 300,
  message: 6000,
  expected: 2500,
  actual: 2500,
  value: 2500,
  error: 6000,
};
const FATAL_CHARS = 1000;
/** Characters of all fields together, besides stdout and stderr (which `outputChars` bounds, each). */
const RESULT_CHARS = 200000;

function clip(text, max) {
  const value = typeof text === 'string' ? text : String(text);
  return value.length > max ? `${value.slice(0, max)}…[truncated ${value.length - max} chars]` : value;
}

function boundResult(result, limits) {
  let left = RESULT_CHARS;
  const bound = (entry) => {
    if (!entry) return entry;
    const copy = { ...entry };
    let charged = 0;
    for (const [key, max] of Object.entries(FIELD_CHARS)) {
      if (typeof copy[key] !== 'string') continue;
      // Paths and suites identify a test (the score counts the hidden suite's): they are only ever cut per field.
      const room = key === 'path' || key === 'suite' ? max : Math.min(max, left - charged);
      copy[key] = clip(copy[key], Math.max(0, room));
      charged += copy[key].length;
    }
    // The entry's whole JSON is charged (keys, status, path and the notes), so the budget bounds what is sent; once it
    // is spent, an entry is only its skeleton (about 100 characters), and there are at most 1000 untrusted tests.
    left = Math.max(0, left - JSON.stringify(copy).length);
    return copy;
  };
  result.compileErrors = result.compileErrors.map(bound);
  result.loadErrors = result.loadErrors.map(bound);
  result.tests = result.tests.map(bound);
  if (result.run) result.run = bound(result.run);
  if (result.fatal !== undefined) result.fatal = clip(result.fatal, FATAL_CHARS);
  for (const stream of ['stdout', 'stderr']) {
    if (result[stream].length > limits.outputChars) {
      result[`${stream}Dropped`] += result[stream].length - limits.outputChars;
      result[stream] = result[stream].slice(0, limits.outputChars);
    }
  }
  return result;
}

function evaluate(request) {
  currentFiles =
    typeof request.job.code === 'string' ? [...request.files, ['run.ts', request.job.code]] : request.files;
  const result = {
    compileErrors: [],
    loadErrors: [],
    tests: [],
    stdout: '',
    stderr: '',
    stdoutDropped: 0,
    stderrDropped: 0,
  };
  if (request.job.type === 'tests') runTests(request, result);
  else runProgram(request, result);
  return boundResult(result, request.limits);
}

process.on('message', (message) => {
  if (!message || message.type !== 'evaluate') return;
  // Before any code of the request runs: the host tells a worker that died under a program from one that died (killed
  // from outside while idle) before the request reached it, which the host sends to a new worker instead.
  process.send?.({ type: 'received', id: message.id });
  let reply;
  try {
    reply = {
      type: 'result',
      id: message.id,
      result: evaluate(message.request),
      // rss() alone: memoryUsage() also walks the V8 heap spaces, a measurable share of a small evaluation.
      rssMb: Math.round(process.memoryUsage.rss() / 1048576),
    };
  } catch (error) {
    reply = {
      type: 'failure',
      id: message.id,
      message: String((error && /** @type {Error} */ (error).stack) || error),
    };
  }
  process.send?.(reply);
  if (message.request?.limits?.memoryMb) {
    const memoryMb = message.request.limits.memoryMb;
    setImmediate(() => {
      try {
        prepareNext(memoryMb);
      } catch {
        prepared = undefined; // the next evaluation creates its own
      }
    });
  }
});
// The host went away: nothing left to serve.
process.on('disconnect', () => process.exit(0));
process.send?.({ type: 'ready' });
