// The runtime installed in every fresh isolated-vm context, before any untrusted code runs.
//
// It is a plain script (not a module): the sandbox worker compiles it once per isolate and runs it in each new
// context; its completion value is the dispatch function the worker drives (through a Reference it takes before the
// first line of untrusted code runs, so untrusted code can neither replace nor reach it). The file is the outer
// function; the worker calls it with the factory of node:assert (`node-assert.js`), so neither is ever a global.
//
// Why it is written the way it is:
// - Untrusted code shares this realm, so it can patch any built-in (`Array.prototype.push`, `JSON.stringify`,
//   `Object.prototype.toJSON`, setters on `Array.prototype[0]` ...). Everything the verdict depends on uses
//   intrinsics captured here first, closure state, and property *definitions* (never assignments that could
//   hit an inherited setter). Results leave as strings this file builds itself.
// - A test passes exactly when its trusted body returns without throwing. Hidden tests are registered through
//   a private function handed only to trusted modules; untrusted code cannot add, remove or rename them.
// - Strict mode everywhere: a strict function never exposes itself or its receiver through stack-trace APIs
//   (`Error.prepareStackTrace` + CallSite#getFunction), so the harness's closures stay out of reach.
// eslint-disable-next-line @typescript-eslint/no-unused-expressions -- the worker calls this function expression
(function (createNodeAssert) {
  'use strict';

  // ---- captured intrinsics --------------------------------------------------------------------------------
  const G = globalThis;
  const FunctionCtor = Function;
  const ObjectCreate = Object.create;
  const defineProperty = Object.defineProperty;
  const getPrototypeOf = Object.getPrototypeOf;
  const getOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
  const objectIs = Object.is;
  const objectKeys = Object.keys;
  const freeze = Object.freeze;
  const hasOwn = Object.hasOwn;
  const apply = Reflect.apply;
  const isArray = Array.isArray;
  const jsonStringify = JSON.stringify;
  const jsonParse = JSON.parse;
  const StringCtor = String;
  const mathAbs = Math.abs;
  const mathPow = Math.pow;
  const numberIsNaN = Number.isNaN;
  const ErrorCtor = Error;
  const SyntaxErrorCtor = SyntaxError;
  const MapCtor = Map;
  const mapGet = Map.prototype.get;
  const mapSet = Map.prototype.set;
  const mapHas = Map.prototype.has;
  const mapEntries = Map.prototype.entries;
  const setHas = Set.prototype.has;
  const setValues = Set.prototype.values;
  const mapSize = getOwnPropertyDescriptor(Map.prototype, 'size').get;
  const setSize = getOwnPropertyDescriptor(Set.prototype, 'size').get;
  const mapIteratorNext = getPrototypeOf(new Map().entries()).next;
  const setIteratorNext = getPrototypeOf(new Set().values()).next;
  const dateGetTime = Date.prototype.getTime;
  const dateToISOString = Date.prototype.toISOString;
  const regExpSource = getOwnPropertyDescriptor(RegExp.prototype, 'source').get;
  const regExpFlags = getOwnPropertyDescriptor(RegExp.prototype, 'flags').get;
  const regExpTest = RegExp.prototype.test;
  const symbolToString = Symbol.prototype.toString;
  const stringIncludes = String.prototype.includes;
  const stringSlice = String.prototype.slice;
  const functionToString = Function.prototype.toString;
  const mapDelete = Map.prototype.delete;
  const indirectEval = eval;
  const PromiseCtor = Promise;
  const promiseThen = Promise.prototype.then;
  // `error instanceof expected` would call a `Symbol.hasInstance` that code under test can plant on `RangeError`.
  const functionHasInstance = Function.prototype[Symbol.hasInstance];
  const deleteProperty = Reflect.deleteProperty;

  const MAX_VALUE_CHARS = 600;
  const MAX_ITEMS = 30;
  const MAX_DEPTH = 4;
  // Every string that leaves the isolate is cut here, before it is copied out: whatever a program puts in an error's
  // name, message or stack, a test title or a value, the worker and the host receive at most these many characters
  // of it (the worker bounds the whole result once more; see `boundResult` in sandbox-worker.js).
  const MAX_NAME_CHARS = 200;
  const MAX_MESSAGE_CHARS = 2000;
  const MAX_STACK_CHARS = 4000;
  const MAX_TITLE_CHARS = 300;
  const MAX_SHOWN_CHARS = MAX_VALUE_CHARS * 2 + 100;
  // Untrusted test files may register this many tests; the rest are counted and reported, not listed.
  const MAX_TESTS = 1000;

  /** `text` (a string) cut to `max` characters, with a note saying how much was cut. */
  function clip(text, max) {
    return text.length > max ? `${apply(stringSlice, text, [0, max])}…[truncated ${text.length - max} chars]` : text;
  }

  /** Appends to an array by definition, so an inherited index setter cannot intercept it. */
  function push(list, value) {
    defineProperty(list, list.length, { value, writable: true, enumerable: true, configurable: true });
  }

  function quote(text) {
    return jsonStringify(StringCtor(text));
  }

  function safeString(value) {
    try {
      return typeof value === 'string' ? value : StringCtor(value);
    } catch {
      return '[unprintable]';
    }
  }

  /** The built-in kind of an object, by brand checks (a captured method throws on anything else). */
  function tagOf(value) {
    try {
      if (apply(mapHas, value, [undefined]) !== undefined) return 'Map';
    } catch {
      // not a Map
    }
    try {
      if (apply(setHas, value, [undefined]) !== undefined) return 'Set';
    } catch {
      // not a Set
    }
    try {
      apply(dateGetTime, value, []);
      return 'Date';
    } catch {
      // not a Date
    }
    try {
      apply(regExpSource, value, []);
      return 'RegExp';
    } catch {
      // not a RegExp
    }
    return '';
  }

  // ---- inspect: a deterministic, bounded rendering of any value (for messages only, never for verdicts) -----
  function inspect(value, depth, seen) {
    switch (typeof value) {
      case 'string':
        return value.length > MAX_VALUE_CHARS
          ? `${quote(apply(stringSlice, value, [0, MAX_VALUE_CHARS]))}… (${value.length} chars)`
          : quote(value);
      case 'number':
        return objectIs(value, -0) ? '-0' : `${value}`;
      case 'bigint':
        return `${value}n`;
      case 'boolean':
        return value ? 'true' : 'false';
      case 'undefined':
        return 'undefined';
      case 'symbol':
        return clip(apply(symbolToString, value, []), MAX_VALUE_CHARS);
      case 'function': {
        let source = '';
        try {
          source = apply(functionToString, value, []);
        } catch {
          // a revoked proxy or similar: no source
        }
        let name = '';
        try {
          const descriptor = getOwnPropertyDescriptor(value, 'name');
          name = descriptor && typeof descriptor.value === 'string' ? descriptor.value : '';
        } catch {
          // no readable name
        }
        name = clip(name, MAX_NAME_CHARS);
        return apply(stringSlice, source, [0, 5]) === 'class'
          ? `[class ${name || '(anonymous)'}]`
          : `[Function${name ? `: ${name}` : ' (anonymous)'}]`;
      }
      default:
        break;
    }
    if (value === null) return 'null';
    if (apply(mapHas, seen, [value])) return '[Circular]';
    if (depth > MAX_DEPTH) return isArray(value) ? '[Array]' : '[Object]';
    apply(mapSet, seen, [value, true]);
    try {
      return inspectObject(value, depth, seen);
    } catch {
      return '[object]';
    } finally {
      apply(mapDelete, seen, [value]);
    }
  }

  function inspectObject(value, depth, seen) {
    if (value instanceof ErrorCtor)
      return `${clip(safeString(value.name), MAX_NAME_CHARS)}: ${clip(safeString(value.message), MAX_VALUE_CHARS)}`;
    const tag = tagOf(value);
    if (tag === 'Date') {
      const time = apply(dateGetTime, value, []);
      return numberIsNaN(time) ? 'Invalid Date' : apply(dateToISOString, value, []);
    }
    if (tag === 'RegExp')
      return `/${clip(apply(regExpSource, value, []), MAX_VALUE_CHARS)}/${apply(regExpFlags, value, [])}`;
    const parts = [];
    let more = 0;
    if (tag === 'Map' || tag === 'Set') {
      const iterator = tag === 'Map' ? apply(mapEntries, value, []) : apply(setValues, value, []);
      const next = tag === 'Map' ? mapIteratorNext : setIteratorNext;
      for (let step = apply(next, iterator, []); !step.done; step = apply(next, iterator, [])) {
        if (parts.length >= MAX_ITEMS) {
          more += 1;
          continue;
        }
        push(
          parts,
          tag === 'Map'
            ? `${inspect(step.value[0], depth + 1, seen)} => ${inspect(step.value[1], depth + 1, seen)}`
            : inspect(step.value, depth + 1, seen),
        );
      }
      const size = tag === 'Map' ? apply(mapSize, value, []) : apply(setSize, value, []);
      return `${tag}(${size}) {${join(parts, more)}}`;
    }
    if (isArray(value)) {
      const length = value.length;
      for (let i = 0; i < length && i < MAX_ITEMS; i++) push(parts, inspect(value[i], depth + 1, seen));
      more = length > MAX_ITEMS ? length - MAX_ITEMS : 0;
      return `[${join(parts, more)}]`;
    }
    const keys = objectKeys(value);
    for (let i = 0; i < keys.length; i++) {
      if (i >= MAX_ITEMS) {
        more = keys.length - MAX_ITEMS;
        break;
      }
      const key = keys[i];
      const label = clip(/^[A-Za-z_$][\w$]*$/.test(key) ? key : quote(key), MAX_NAME_CHARS);
      push(parts, `${label}: ${inspect(value[key], depth + 1, seen)}`);
    }
    let prefix = '';
    const proto = getPrototypeOf(value);
    if (proto !== null && proto !== Object.prototype) {
      const ctor = getOwnPropertyDescriptor(proto, 'constructor');
      const name =
        ctor && typeof ctor.value === 'function'
          ? safeString(getOwnPropertyDescriptor(ctor.value, 'name')?.value ?? '')
          : '';
      if (name) prefix = `${clip(name, MAX_NAME_CHARS)} `;
    }
    return `${prefix}{${join(parts, more)}}`;
  }

  function join(parts, more) {
    let text = '';
    for (let i = 0; i < parts.length; i++) text += (i === 0 ? '' : ', ') + parts[i];
    if (more > 0) text += `${parts.length > 0 ? ', ' : ''}… ${more} more`;
    return text.length > MAX_VALUE_CHARS * 2 ? `${apply(stringSlice, text, [0, MAX_VALUE_CHARS * 2])}…` : text;
  }

  function show(value) {
    try {
      // The last cut catches what the parts above do not bound one by one (a huge BigInt, a long key).
      return clip(inspect(value, 0, new MapCtor()), MAX_SHOWN_CHARS);
    } catch {
      return '[uninspectable value]';
    }
  }

  // ---- deep equality (verdicts: only captured intrinsics) -------------------------------------------------------
  function equals(a, b, strict, pairs) {
    if (objectIs(a, b)) return true;
    if (typeof a === 'number' && typeof b === 'number') return a === b; // 0 equals -0; NaN handled by objectIs
    if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
    if (apply(mapGet, pairs, [a]) === b) return true;
    apply(mapSet, pairs, [a, b]);
    if (isArray(a) !== isArray(b)) return false;
    if (strict && getPrototypeOf(a) !== getPrototypeOf(b)) return false;
    const tagA = tagOf(a);
    if (tagA !== tagOf(b)) return false;
    if (tagA === 'Date') return objectIs(apply(dateGetTime, a, []), apply(dateGetTime, b, []));
    if (tagA === 'RegExp')
      return (
        apply(regExpSource, a, []) === apply(regExpSource, b, []) &&
        apply(regExpFlags, a, []) === apply(regExpFlags, b, [])
      );
    if (tagA === 'Map') return mapsEqual(a, b, strict, pairs);
    if (tagA === 'Set') return setsEqual(a, b, strict);
    if (isArray(a)) {
      if (a.length !== b.length) return false;
      for (let i = 0; i < a.length; i++) if (!equals(a[i], b[i], strict, pairs)) return false;
      return true;
    }
    const keysA = definedKeys(a, strict);
    const keysB = definedKeys(b, strict);
    if (keysA.length !== keysB.length) return false;
    for (let i = 0; i < keysA.length; i++) {
      const key = keysA[i];
      if (!hasOwn(b, key)) return false;
      if (!equals(a[key], b[key], strict, pairs)) return false;
    }
    return true;
  }

  /** Own enumerable keys; `toEqual` (not strict) ignores properties whose value is undefined, like Jest. */
  function definedKeys(object, strict) {
    const keys = objectKeys(object);
    if (strict) return keys;
    const kept = [];
    for (let i = 0; i < keys.length; i++) if (object[keys[i]] !== undefined) push(kept, keys[i]);
    return kept;
  }

  function mapsEqual(a, b, strict, pairs) {
    if (apply(mapSize, a, []) !== apply(mapSize, b, [])) return false;
    const iterator = apply(mapEntries, a, []);
    for (let step = apply(mapIteratorNext, iterator, []); !step.done; step = apply(mapIteratorNext, iterator, [])) {
      const key = step.value[0];
      if (!apply(mapHas, b, [key])) return false;
      if (!equals(step.value[1], apply(mapGet, b, [key]), strict, pairs)) return false;
    }
    return true;
  }

  function setsEqual(a, b, strict) {
    if (apply(setSize, a, []) !== apply(setSize, b, [])) return false;
    const iterator = apply(setValues, a, []);
    for (let step = apply(setIteratorNext, iterator, []); !step.done; step = apply(setIteratorNext, iterator, [])) {
      const item = step.value;
      if (apply(setHas, b, [item])) continue;
      if (typeof item !== 'object' || item === null) return false;
      let found = false;
      const others = apply(setValues, b, []);
      for (
        let other = apply(setIteratorNext, others, []);
        !other.done && !found;
        other = apply(setIteratorNext, others, [])
      ) {
        found = equals(item, other.value, strict, new MapCtor());
      }
      if (!found) return false;
    }
    return true;
  }

  // ---- expect(): the assertion API of the tests ------------------------------------------------------------------
  // Failures are instances of a class no untrusted code can reach, recognised by identity in a private WeakSet.
  const failures = new WeakSet();
  const weakSetAdd = WeakSet.prototype.add;
  const weakSetHas = WeakSet.prototype.has;

  function fail(matcher, negated, expected, actual, note) {
    const error = ObjectCreate(null);
    defineProperty(error, 'matcher', { value: `${negated ? 'not.' : ''}${matcher}` });
    defineProperty(error, 'expected', { value: expected });
    defineProperty(error, 'actual', { value: actual });
    defineProperty(error, 'note', { value: note || '' });
    apply(weakSetAdd, failures, [error]);
    throw error;
  }

  // One class with a frozen prototype and private fields: cheap to create per assertion, and untrusted code can
  // neither patch a matcher (the prototype is frozen) nor change what an assertion compares (private fields).
  class Assertion {
    #actual;
    #negated;
    constructor(actual, negated) {
      this.#actual = actual;
      this.#negated = negated;
    }
    get not() {
      return new Assertion(this.#actual, !this.#negated);
    }
    // Jest's async matchers are not here. Reading one used to give `undefined`, so `await expect(p).rejects.toThrow()`
    // failed with "Cannot read properties of undefined", or, when `p` rejected, with only "unhandled promise
    // rejection: <p's reason>", which hid the cause: a task's reference was refused for it with no word of `.rejects`.
    get resolves() {
      return unsupportedAsyncMatcher('resolves', this.#actual);
    }
    get rejects() {
      return unsupportedAsyncMatcher('rejects', this.#actual);
    }
    #check(matcher, passed, expectedText, note) {
      if (passed === this.#negated) fail(matcher, this.#negated, expectedText, show(this.#actual), note);
    }
    #numeric(matcher) {
      const actual = this.#actual;
      if (typeof actual !== 'number' && typeof actual !== 'bigint')
        fail(matcher, this.#negated, 'a number', show(actual), 'received value must be a number');
    }
    toBe(expected) {
      this.#check('toBe', objectIs(this.#actual, expected), show(expected));
    }
    toEqual(expected) {
      this.#check('toEqual', equals(this.#actual, expected, false, new MapCtor()), show(expected));
    }
    toStrictEqual(expected) {
      this.#check('toStrictEqual', equals(this.#actual, expected, true, new MapCtor()), show(expected));
    }
    toBeCloseTo(expected, digits) {
      const places = digits === undefined ? 2 : digits;
      const actual = this.#actual;
      this.#numeric('toBeCloseTo');
      const passed =
        (actual === Infinity && expected === Infinity) ||
        (actual === -Infinity && expected === -Infinity) ||
        mathAbs(expected - actual) < mathPow(10, -places) / 2;
      this.#check('toBeCloseTo', passed, `${show(expected)} (to ${places} decimal places)`);
    }
    toBeTruthy() {
      this.#check('toBeTruthy', !!this.#actual, 'a truthy value');
    }
    toBeFalsy() {
      this.#check('toBeFalsy', !this.#actual, 'a falsy value');
    }
    toBeNull() {
      this.#check('toBeNull', this.#actual === null, 'null');
    }
    toBeUndefined() {
      this.#check('toBeUndefined', this.#actual === undefined, 'undefined');
    }
    toBeDefined() {
      this.#check('toBeDefined', this.#actual !== undefined, 'a defined value');
    }
    toBeNaN() {
      this.#check('toBeNaN', numberIsNaN(this.#actual), 'NaN');
    }
    toBeGreaterThan(expected) {
      this.#numeric('toBeGreaterThan');
      this.#check('toBeGreaterThan', this.#actual > expected, `> ${show(expected)}`);
    }
    toBeGreaterThanOrEqual(expected) {
      this.#numeric('toBeGreaterThanOrEqual');
      this.#check('toBeGreaterThanOrEqual', this.#actual >= expected, `>= ${show(expected)}`);
    }
    toBeLessThan(expected) {
      this.#numeric('toBeLessThan');
      this.#check('toBeLessThan', this.#actual < expected, `< ${show(expected)}`);
    }
    toBeLessThanOrEqual(expected) {
      this.#numeric('toBeLessThanOrEqual');
      this.#check('toBeLessThanOrEqual', this.#actual <= expected, `<= ${show(expected)}`);
    }
    toHaveLength(expected) {
      let length;
      try {
        length = this.#actual.length;
      } catch {
        // no length: reported as undefined
      }
      this.#check('toHaveLength', length === expected, `length ${show(expected)}`, `received length ${show(length)}`);
    }
    toContain(item) {
      const actual = this.#actual;
      let found = false;
      if (typeof actual === 'string') found = apply(stringIncludes, actual, [StringCtor(item)]);
      else if (isArray(actual))
        for (let i = 0; i < actual.length && !found; i++) found = objectIs(actual[i], item) || actual[i] === item;
      this.#check('toContain', found, `a value containing ${show(item)}`);
    }
    toContainEqual(item) {
      const actual = this.#actual;
      let found = false;
      if (isArray(actual))
        for (let i = 0; i < actual.length && !found; i++) found = equals(actual[i], item, false, new MapCtor());
      this.#check('toContainEqual', found, `an array containing ${show(item)}`);
    }
    toMatch(pattern) {
      const actual = this.#actual;
      const passed =
        typeof actual === 'string' &&
        (typeof pattern === 'string' ? apply(stringIncludes, actual, [pattern]) : apply(regExpTest, pattern, [actual]));
      this.#check(
        'toMatch',
        passed,
        typeof pattern === 'string' ? `a string containing ${show(pattern)}` : show(pattern),
      );
    }
    toThrow(expected) {
      const actual = this.#actual;
      const negated = this.#negated;
      if (typeof actual !== 'function')
        fail('toThrow', negated, 'a function', show(actual), 'expect(fn).toThrow() needs a function');
      let thrown = false;
      let error;
      try {
        actual();
      } catch (caught) {
        if (apply(weakSetHas, failures, [caught])) throw caught;
        thrown = true;
        error = caught;
      }
      let passed = thrown;
      let wanted = 'a thrown error';
      if (thrown && expected !== undefined) {
        const message = error !== null && typeof error === 'object' ? safeString(error.message) : safeString(error);
        if (typeof expected === 'string') {
          passed = apply(stringIncludes, message, [expected]);
          wanted = `an error whose message contains ${show(expected)}`;
        } else if (typeof expected === 'function') {
          passed = apply(functionHasInstance, expected, [error]);
          wanted = `an instance of ${safeString(expected.name)}`;
        } else if (tagOf(expected) === 'RegExp') {
          passed = apply(regExpTest, expected, [message]);
          wanted = `an error whose message matches ${show(expected)}`;
        }
      }
      if (passed === negated) fail('toThrow', negated, wanted, thrown ? show(error) : 'no error was thrown');
    }
  }
  freeze(Assertion.prototype);
  freeze(Assertion);
  function unsupportedAsyncMatcher(name, actual) {
    // The promise is observed (and so handled) first, so its own rejection does not replace this message.
    if (actual !== null && (typeof actual === 'object' || typeof actual === 'function'))
      observePromise(
        actual,
        () => {},
        () => {},
      );
    throw new ErrorCtor(
      name === 'resolves'
        ? 'expect(…).resolves is not supported in the sandbox: write expect(await promise)… instead'
        : "expect(…).rejects is not supported in the sandbox: write await assert.rejects(promise, …) (require('node:assert')) instead, or await the promise in try/catch",
    );
  }
  function expect(actual) {
    return freeze(new Assertion(actual, false));
  }

  // ---- assert: Node's own node:assert (node-assert.js), its failures reported like expect()'s ------------------------
  // Task suites written for Node (MultiPL-E's `assert.deepEqual`) get Node's verdicts. An AssertionError stays an
  // ordinary Error that code can catch and inspect, as in Node; the report of a failed test comes from a record made
  // when the error was created, so code that later changes the error's fields cannot change the report.
  const weakMapGet = WeakMap.prototype.get;
  const weakMapSetMethod = WeakMap.prototype.set;
  const assertionFailures = new WeakMap();
  // Built only for an evaluation whose code names 'assert' (the worker asks for it in `configure`), because building it
  // is about 60% of installing this runtime and most suites use expect(). Why that is as safe as building it always:
  // - It is still built per context, in the evaluation's own fresh context, from that context's intrinsics, and held
  //   only in this closure: nothing of it is cached in the isolate or the worker, so no other evaluation can reach it.
  // - It is built only in `configure`, the first call into the context, before any untrusted code has been compiled
  //   or run; `dispatch` marks the context as touched on any other call, and `configure` refuses from then on. So its
  //   primordials are captured from pristine built-ins, exactly as when it was built at installation.
  // - Without it, requiring it throws (fail-closed): a program cannot get a half-built or patched assert.
  const buildNodeAssert = () =>
    createNodeAssert(
      freeze({
        inspect: show,
        onAssertionError(error, name, actual, expected, message) {
          const record = ObjectCreate(null);
          defineProperty(record, 'matcher', { value: `assert.${safeString(name)}` });
          defineProperty(record, 'expected', { value: show(expected) });
          defineProperty(record, 'actual', { value: show(actual) });
          defineProperty(record, 'note', { value: message == null ? '' : safeString(message) });
          apply(weakSetAdd, failures, [record]);
          apply(weakMapSetMethod, assertionFailures, [error, record]);
        },
      }),
    );
  /** What a test's thrown value is reported as: an AssertionError's record, or the value itself. */
  function asFailure(error) {
    const record =
      error !== null && typeof error === 'object' ? apply(weakMapGet, assertionFailures, [error]) : undefined;
    return record === undefined ? error : record;
  }

  // ---- console capture: bounded inside the isolate, so a flood never crosses the boundary ------------------------
  let outputLimit = 2000;
  const streams = { stdout: '', stderr: '', stdoutDropped: 0, stderrDropped: 0 };
  function write(stream, args) {
    let text = '';
    for (let i = 0; i < args.length; i++) {
      const arg = args[i];
      text += (i === 0 ? '' : ' ') + (typeof arg === 'string' ? arg : show(arg));
    }
    text += '\n';
    const current = streams[stream];
    const room = outputLimit - current.length;
    if (room >= text.length) {
      streams[stream] = current + text;
    } else {
      if (room > 0) streams[stream] = current + apply(stringSlice, text, [0, room]);
      streams[`${stream}Dropped`] += text.length - (room > 0 ? room : 0);
    }
  }
  const consoleObject = {
    log: (...args) => write('stdout', args),
    info: (...args) => write('stdout', args),
    debug: (...args) => write('stdout', args),
    warn: (...args) => write('stderr', args),
    error: (...args) => write('stderr', args),
    trace: (...args) => write('stderr', args),
    dir: (value) => write('stdout', [value]),
    table: (value) => write('stdout', [value]),
  };

  // ---- what the sandbox does not have, with a message that says so ----------------------------------------------
  // Timers and async host APIs could outlive the call; the sandbox runs code synchronously within a time limit.
  const unavailable = (name) =>
    function () {
      throw new ErrorCtor(
        `${name} is not available in the sandbox: code runs synchronously, within a time limit, without timers, network, files or processes.`,
      );
    };
  for (const name of [
    'setTimeout',
    'setInterval',
    'setImmediate',
    'clearTimeout',
    'clearInterval',
    'clearImmediate',
    'queueMicrotask',
    'requestAnimationFrame',
  ]) {
    defineProperty(G, name, { value: unavailable(name), writable: true, configurable: true });
  }
  // Less attack surface, and nothing that schedules work after the call returns (FinalizationRegistry callbacks,
  // Atomics.waitAsync) or shares memory across calls. Memory that grows after it is created (a growable
  // SharedArrayBuffer, WebAssembly.Memory#grow) goes with them; Intl, below.
  for (const name of ['WebAssembly', 'SharedArrayBuffer', 'Atomics', 'FinalizationRegistry', 'WeakRef']) delete G[name];

  // ---- memory the isolate's limit does not see ----------------------------------------------------------------------
  // isolated-vm's memoryLimit counts the V8 heap and what its ArrayBuffer allocator hands out. Two built-ins allocate
  // around both (measured under a 32 MB limit; README, "Threat model"):
  // - A resizable ArrayBuffer (`maxByteLength`) is reserved by V8 up front and committed page by page on `resize()`,
  //   never through the allocator: one buffer resized to 256 MB was held, 8× the limit. Deleting `resize` would stop
  //   the growth but not the reservations (10,000 buffers of 4 GB `maxByteLength` reserved 40 TB of address space).
  //   So a resizable buffer is charged its whole `maxByteLength` when it is created, by a counted (and, being
  //   calloc'd, untouched) buffer of that size that lives exactly as long as it does: `resize()` keeps working within
  //   the limit, and asking for more than the limit fails at once with "Array buffer allocation failed".
  // - Intl objects are ICU's C++ objects: 20 `Intl.Segmenter#segment` results over a 10 MB string held 260 MB, and
  //   20,000 `Intl.v8BreakIterator`s 100 MB, with a 3 MB heap. Their sizes depend on ICU internals, so they cannot
  //   be charged honestly; no task needs them, so `Intl` is removed. `localeCompare` and `toLocaleString` still
  //   work: their ICU objects live only for the call.
  const ArrayBufferCtor = ArrayBuffer;
  const construct = Reflect.construct;
  const mathTrunc = Math.trunc;
  const NumberCtor = Number;
  const weakMapSet = WeakMap.prototype.set;
  const charges = new WeakMap();
  const CountedArrayBuffer = function ArrayBuffer(length, options) {
    if (new.target === undefined) throw new TypeError("Constructor ArrayBuffer requires 'new'");
    const maxByteLength =
      options !== null && (typeof options === 'object' || typeof options === 'function')
        ? options.maxByteLength
        : undefined;
    if (maxByteLength === undefined) return construct(ArrayBufferCtor, [length], new.target);
    // Converted once, here: a getter or valueOf cannot show this check one size and V8 another.
    const max = NumberCtor(maxByteLength);
    const bytes = numberIsNaN(max) ? 0 : mathTrunc(max);
    // First the charge (it throws a RangeError past the limit, before anything is reserved), then the buffer.
    const charge = bytes > 0 ? new ArrayBufferCtor(bytes) : undefined;
    const buffer = construct(ArrayBufferCtor, [length, { maxByteLength: max }], new.target);
    if (charge !== undefined) apply(weakMapSet, charges, [buffer, charge]);
    return buffer;
  };
  // The original constructor must not stay reachable: not from the global, not from `buffer.constructor`.
  defineProperty(CountedArrayBuffer, 'prototype', { value: ArrayBufferCtor.prototype, writable: false });
  defineProperty(CountedArrayBuffer, 'length', { value: 1 });
  defineProperty(CountedArrayBuffer, 'isView', {
    value: ArrayBufferCtor.isView,
    writable: true,
    configurable: true,
  });
  defineProperty(CountedArrayBuffer, Symbol.species, getOwnPropertyDescriptor(ArrayBufferCtor, Symbol.species));
  defineProperty(ArrayBufferCtor.prototype, 'constructor', {
    value: CountedArrayBuffer,
    writable: true,
    configurable: true,
  });
  defineProperty(G, 'ArrayBuffer', { value: CountedArrayBuffer, writable: true, configurable: true });
  delete G.Intl;
  defineProperty(G, 'console', { value: freeze(consoleObject), writable: true, configurable: true });

  // ---- modules: CommonJS over the virtual file system -------------------------------------------------------------
  const modules = new MapCtor(); // path -> record
  // Filled by `configure` when the evaluation names 'assert'; otherwise requiring it says why it is missing.
  const BUILTINS = new MapCtor();
  function installNodeAssert() {
    const nodeAssert = buildNodeAssert();
    apply(mapSet, BUILTINS, ['assert', nodeAssert.assert]);
    apply(mapSet, BUILTINS, ['node:assert', nodeAssert.assert]);
    apply(mapSet, BUILTINS, ['assert/strict', nodeAssert.strict]);
    apply(mapSet, BUILTINS, ['node:assert/strict', nodeAssert.strict]);
  }
  /** Set by the first untrusted file defined or code run; from then on nothing trusted may be built here. */
  let untrustedSeen = false;
  // Names tests use as globals.
  const testApi = ObjectCreate(null);
  testApi.registering = false;
  testApi.trustedSuite = false;
  testApi.prefix = '';
  testApi.suite = '';
  const tests = [];

  function normalize(path) {
    const parts = path.split('/');
    const out = [];
    for (const part of parts) {
      if (part === '' || part === '.') continue;
      if (part === '..') {
        if (out.length === 0) return null;
        out.length -= 1;
      } else push(out, part);
    }
    return out.join('/');
  }

  function dirname(path) {
    const index = path.lastIndexOf('/');
    return index < 0 ? '' : apply(stringSlice, path, [0, index]);
  }

  function resolve(from, specifier, trustedCaller) {
    const base = specifier[0] === '/' ? '' : dirname(from);
    const joined = normalize(base === '' ? specifier : `${base}/${specifier}`);
    if (joined === null) return null;
    const stem = /\.(js|mjs|cjs)$/.test(joined) ? joined.replace(/\.(js|mjs|cjs)$/, '') : joined;
    const candidates = [
      joined,
      `${joined}.ts`,
      `${joined}.js`,
      `${joined}.json`,
      `${stem}.ts`,
      `${joined}/index.ts`,
      `${joined}/index.js`,
    ];
    for (const candidate of candidates) {
      const record = apply(mapGet, modules, [candidate]);
      if (record && (trustedCaller || !record.trusted)) return candidate;
    }
    return null;
  }

  function makeRequire(from, trustedCaller) {
    return function require(specifier) {
      if (typeof specifier !== 'string') throw new TypeError('require() takes a module path string');
      const builtin = apply(mapGet, BUILTINS, [specifier]);
      if (builtin) return builtin;
      if (
        specifier === 'assert' ||
        specifier === 'node:assert' ||
        specifier === 'assert/strict' ||
        specifier === 'node:assert/strict'
      ) {
        const error = new ErrorCtor(
          `Cannot load '${specifier}': the sandbox loads node:assert only for code that names it ('assert' written out in a file or snippet), not for a name built at run time.`,
        );
        error.code = 'MODULE_NOT_FOUND';
        throw error;
      }
      const relative = specifier[0] === '.' || specifier[0] === '/';
      const path = relative ? resolve(from, specifier, trustedCaller) : null;
      if (path === null) {
        const error = new ErrorCtor(
          relative
            ? `Cannot find module '${specifier}' (from ${from || 'the run'}): no such file in the workspace.`
            : `Cannot find module '${specifier}': the sandbox has no Node.js built-in or npm modules (no file system, network, processes or environment). Only your own files (and 'assert') can be imported.`,
        );
        error.code = 'MODULE_NOT_FOUND';
        throw error;
      }
      return load(path);
    };
  }

  function load(path) {
    const record = apply(mapGet, modules, [path]);
    if (record.module) return record.module.exports;
    if (record.broken) throw new SyntaxErrorCtor(record.broken);
    const module = { exports: {}, id: path, filename: path, loaded: false };
    // `record` has no prototype, so an inherited setter planted by earlier code cannot observe this.
    record.module = module;
    if (record.json !== undefined) {
      try {
        module.exports = jsonParse(record.json);
      } catch (error) {
        record.module = undefined;
        throw new SyntaxErrorCtor(`${path}: ${safeString(error && error.message)}`);
      }
      return module.exports;
    }
    const requireFn = makeRequire(path, record.trusted);
    const args = [module.exports, requireFn, module, path, dirname(path)];
    if (record.trusted) push(args, registerTrusted);
    try {
      apply(record.factory, undefined, args);
    } catch (error) {
      record.module = undefined; // a failed load is retried (and fails again) on the next require
      throw error;
    }
    module.loaded = true;
    return module.exports;
  }

  function registerTrusted(name, body) {
    push(tests, { name: clip(StringCtor(name), MAX_TITLE_CHARS), body, suite: testApi.suite });
  }

  let untrustedTests = 0;
  let droppedTests = 0;
  let droppedSuite = '';
  // Global test() registers only while a visible (untrusted) test file loads: code imported by a hidden suite
  // cannot add tests to it.
  function registerGlobal(name, body) {
    if (!testApi.registering || testApi.trustedSuite || typeof body !== 'function') return;
    if (untrustedTests >= MAX_TESTS) {
      // Listing (and reporting) a million tests would be a flood of its own; the excess is counted and reported.
      if (droppedTests === 0) droppedSuite = testApi.suite;
      droppedTests += 1;
      return;
    }
    untrustedTests += 1;
    push(tests, { name: testApi.prefix + clip(safeString(name), MAX_TITLE_CHARS), body, suite: testApi.suite });
  }
  // Inside a running test nothing can register: a task's hidden test is itself one test body, and a Jest-style
  // `it(…)` or `describe(…)` written inside it used to do nothing, so the test passed without running a line
  // of it (a peer's task file of such tests gave the reward to any solution).
  function refuseInsideTest(name) {
    if (runningTest !== null) {
      throw new ErrorCtor(
        `${name}() cannot be called inside a running test: a task's test is already the body of one test, so write its assertions directly (this ${name}() block would not run)`,
      );
    }
  }
  /** `test` or `it`: registers while a test file loads, refuses inside a running test. */
  function registrar(kind) {
    const register = (name, body) => {
      refuseInsideTest(kind);
      registerGlobal(name, body);
    };
    register.skip = () => {};
    register.only = register;
    register.each = () => () => refuseInsideTest(`${kind}.each`);
    return register;
  }
  const test = registrar('test');
  const it = registrar('it');
  const describe = (name, body) => {
    refuseInsideTest('describe');
    if (!testApi.registering || typeof body !== 'function') return;
    const saved = testApi.prefix;
    testApi.prefix = `${clip(`${saved}${safeString(name)}`, MAX_TITLE_CHARS)} › `;
    try {
      body();
    } finally {
      testApi.prefix = saved;
    }
  };
  describe.skip = () => {};
  describe.only = describe;
  for (const [name, value] of [
    ['expect', freeze(expect)],
    ['test', freeze(test)],
    ['it', freeze(it)],
    ['describe', freeze(describe)],
  ]) {
    // Non-writable, non-configurable: code under test cannot swap the assertion API of the tests that follow.
    defineProperty(G, name, { value, writable: false, configurable: false, enumerable: false });
  }

  // ---- results: JSON text built here, from primitives only --------------------------------------------------------
  function describeError(error) {
    if (apply(weakSetHas, failures, [error])) {
      // Rendered values are bounded by show(), but a message passed through (assert.fail's) is not.
      const field = (value, max) => quote(clip(safeString(value), max));
      return `{"kind":"assertion","matcher":${field(error.matcher, MAX_NAME_CHARS)},"expected":${field(error.expected, MAX_MESSAGE_CHARS)},"actual":${field(error.actual, MAX_MESSAGE_CHARS)},"note":${field(error.note, MAX_MESSAGE_CHARS)}}`;
    }
    let name = 'Error';
    let message = '';
    let stack = '';
    if (error !== null && (typeof error === 'object' || typeof error === 'function')) {
      try {
        name = clip(safeString(error.name), MAX_NAME_CHARS);
        message = clip(safeString(error.message), MAX_MESSAGE_CHARS);
        const raw = error.stack;
        stack = typeof raw === 'string' ? clip(raw, MAX_STACK_CHARS) : '';
      } catch {
        name = 'Error';
        message = show(error);
      }
    } else {
      name = 'thrown value';
      message = show(error);
    }
    return `{"kind":"error","name":${quote(name)},"message":${quote(message)},"stack":${quote(stack)}}`;
  }

  // ---- async tests: a returned promise or thenable, or a `done` callback, is awaited ------------------------------
  // isolated-vm runs the microtask queue to its end inside every call, under the call's timeout, and the sandbox has
  // no timers and no host callbacks. So when `runTest` returns, a test's promise has settled or never will: the
  // worker asks for the verdict in a second call (`testVerdict`), and a test still pending then did not finish. An
  // endless chain of continuations is cut by the call's time limit, like an endless loop.
  const PASS = '{"status":"pass"}';
  const PENDING = '{"status":"pending"}';
  // A `constructor` without `Symbol.species`: `then` on a promise that has it as an own property makes its derived
  // promise with the intrinsic Promise, so no getter, species or constructor the program planted runs.
  const NO_SPECIES = freeze(ObjectCreate(null));
  /** The test whose verdict the worker has not taken yet (a null-prototype record: verdict, passed, takesDone). */
  let runningTest = null;

  function unfinished(message) {
    return `{"status":"unfinished","message":${quote(message)}}`;
  }

  function failureVerdict(caught) {
    try {
      const error = asFailure(caught);
      const detail = describeError(error);
      return `{"status":${apply(weakSetHas, failures, [error]) ? '"fail"' : '"error"'},"detail":${detail}}`;
    } catch {
      return `{"status":"error","detail":${describeError(new ErrorCtor('the test failed with a value that cannot be reported'))}}`;
    }
  }

  function errorVerdict(message) {
    return `{"status":"error","detail":${describeError(new ErrorCtor(message))}}`;
  }

  /**
   * Records what a test showed. Fail-closed: a failure replaces a pass (a `done` called twice, a rejection after a
   * `done()`), and the first failure stays; nothing turns a failure back into a pass.
   */
  function settle(record, verdict, passed) {
    if (record.verdict === '' || (record.passed && !passed)) {
      record.verdict = verdict;
      record.passed = passed;
    }
  }

  /**
   * Calls back when `value` settles, if it is a genuine promise whose `constructor` can be set aside for the call:
   * then only the intrinsic `then` runs, so a patched `Promise.prototype.then`, a `constructor` getter or a species
   * cannot see or forge the outcome. False for anything else (nothing is registered, the object is left as it was).
   */
  function observePromise(value, onFulfilled, onRejected) {
    let saved;
    try {
      saved = getOwnPropertyDescriptor(value, 'constructor');
      defineProperty(value, 'constructor', { value: NO_SPECIES, writable: true, configurable: true });
    } catch {
      return false; // not extensible, or a non-configurable constructor: not observable this way
    }
    let observed = false;
    try {
      apply(promiseThen, value, [onFulfilled, onRejected]);
      observed = true;
    } catch {
      // not a promise (the intrinsic then checks the brand before anything else)
    }
    try {
      if (saved === undefined) deleteProperty(value, 'constructor');
      else defineProperty(value, 'constructor', saved);
    } catch {
      // a proxy that refuses: its own affair
    }
    return observed;
  }

  /** Settles `record` when a test's returned object settles (a non-thenable object passes, as in Jest). */
  function awaitReturned(value, record) {
    const onFulfilled = () => settle(record, PASS, true);
    const onRejected = (reason) => settle(record, failureVerdict(reason), false);
    if (observePromise(value, onFulfilled, onRejected)) return;
    // Not a genuine promise (a thenable, or a promise the program made unobservable): adopt it as `await` does — its
    // `then` is read once (a throwing getter rejects) and called once, with resolve/reject functions of which only the
    // first call counts — into a promise of our own, which is observable.
    let resolveOwn;
    const own = new PromiseCtor((resolve) => {
      resolveOwn = resolve;
    });
    resolveOwn(value);
    if (!observePromise(own, onFulfilled, onRejected))
      settle(record, errorVerdict('the sandbox could not wait for this test'), false);
  }

  /** The verdict of the running test, once; a test still pending did not finish. */
  function takeVerdict() {
    const record = runningTest;
    runningTest = null;
    if (record === null) return errorVerdict('no test is waiting for its verdict');
    if (record.verdict !== '') return record.verdict;
    return unfinished(
      record.takesDone
        ? 'did not finish: done() was never called (the sandbox has no timers, so nothing was left that could call it)'
        : "did not finish: the test's promise never settled (the sandbox has no timers, so nothing was left that could settle it)",
    );
  }

  // ---- the API the worker drives ----------------------------------------------------------------------------------
  const api = {
    /** The first call into a fresh context: the output limit, and whether to build node:assert (see above). */
    configure(limit, withAssert) {
      if (untrustedSeen) throw new ErrorCtor('configure must come before any untrusted code');
      outputLimit = limit;
      if (withAssert === true && apply(mapGet, BUILTINS, ['assert']) === undefined) installNodeAssert();
    },
    /** Registers a file; returns '' or an error description. Compiles with the Function constructor, which
     * parses the body on its own (a body cannot close the wrapper and run code outside it). */
    defineModule(path, code, kind, trusted) {
      const record = ObjectCreate(null);
      record.trusted = trusted === true;
      if (kind === 'json') {
        record.json = code;
        apply(mapSet, modules, [path, record]);
        return '';
      }
      if (kind === 'broken') {
        record.broken = code;
        apply(mapSet, modules, [path, record]);
        return '';
      }
      try {
        const params = ['exports', 'require', 'module', '__filename', '__dirname'];
        if (record.trusted) push(params, '__register');
        push(params, `${code}\n//# sourceURL=${path}`);
        record.factory = apply(FunctionCtor, undefined, params);
      } catch (error) {
        record.broken = `${path}: ${safeString(error && error.message)}`;
        apply(mapSet, modules, [path, record]);
        return describeError(error);
      }
      apply(mapSet, modules, [path, record]);
      return '';
    },
    /** Loads a test module; its tests (trusted registrations and global test() calls) are collected. */
    loadSuite(path) {
      const record = apply(mapGet, modules, [path]);
      testApi.registering = true;
      testApi.trustedSuite = record !== undefined && record.trusted;
      testApi.prefix = '';
      testApi.suite = path;
      try {
        load(path);
        return '';
      } catch (error) {
        return describeError(error);
      } finally {
        testApi.registering = false;
        testApi.trustedSuite = false;
        testApi.prefix = '';
      }
    },
    /** The registered tests, as JSON: {"tests": [{"name", "suite"}, …], "dropped", "droppedSuite"}. */
    listTests() {
      let text = '{"tests":[';
      for (let i = 0; i < tests.length; i++) {
        const entry = tests[i];
        text += `${i === 0 ? '' : ','}{"name":${quote(entry.name)},"suite":${quote(entry.suite)}}`;
      }
      return `${text}],"dropped":${droppedTests},"droppedSuite":${quote(droppedSuite)}}`;
    },
    /**
     * Runs one test. A synchronous test passes exactly when its body returns without throwing; a test that returns a
     * promise or thenable passes when it fulfils, and one that takes a `done` parameter when `done()` is called with
     * no error. For those the answer is `{"status":"pending"}`, and the verdict comes from `testVerdict`.
     */
    runTest(index) {
      const entry = tests[index];
      const record = ObjectCreate(null);
      record.verdict = '';
      record.passed = false;
      record.takesDone = false;
      runningTest = record;
      let waits = false;
      try {
        let takesDone = false;
        try {
          takesDone = entry.body.length > 0;
        } catch {
          // an unreadable length: called without done
        }
        record.takesDone = takesDone;
        if (takesDone) {
          waits = true;
          let calls = 0;
          const done = (reason) => {
            calls += 1;
            if (calls > 1) settle(record, errorVerdict('done() was called more than once'), false);
            else if (reason) settle(record, failureVerdict(reason), false);
            else settle(record, PASS, true);
          };
          const returned = apply(entry.body, undefined, [done]);
          if (returned !== null && (typeof returned === 'object' || typeof returned === 'function')) {
            if (typeof returned.then === 'function')
              settle(record, errorVerdict('a test cannot both take a done callback and return a promise'), false);
          }
        } else {
          const returned = apply(entry.body, undefined, []);
          if (returned !== null && (typeof returned === 'object' || typeof returned === 'function')) {
            waits = true;
            awaitReturned(returned, record);
          } else settle(record, PASS, true);
        }
      } catch (caught) {
        settle(record, failureVerdict(caught), false);
      }
      return waits ? PENDING : takeVerdict();
    },
    /** The verdict of the test `runTest` answered "pending" for; its microtasks have all run by now. */
    testVerdict() {
      return takeVerdict();
    },
    /** Runs a file as the main module. */
    runFile(path) {
      try {
        const record = apply(mapGet, modules, [path]);
        if (!record)
          return `{"status":"error","detail":${describeError(new ErrorCtor(`No file ${path} in the workspace.`))}}`;
        load(path);
        return '{"status":"ok"}';
      } catch (error) {
        return `{"status":"error","detail":${describeError(error)}}`;
      }
    },
    /** Runs a snippet in global scope (so its last expression is its value); it can require workspace files. */
    runSnippet(code) {
      const requireFn = makeRequire('', false);
      defineProperty(G, 'require', { value: requireFn, writable: true, configurable: true });
      defineProperty(G, 'module', { value: { exports: {} }, writable: true, configurable: true });
      defineProperty(G, 'exports', { value: G.module.exports, writable: true, configurable: true });
      try {
        const value = indirectEval(`${code}\n//# sourceURL=run.ts`);
        return value === undefined ? '{"status":"ok"}' : `{"status":"ok","value":${quote(show(value))}}`;
      } catch (error) {
        return `{"status":"error","detail":${describeError(error)}}`;
      }
    },
    /**
     * Runs nothing. After a call stopped at its time limit, the continuations its program had queued are still
     * queued and would run at the end of the next call, charged to it: the worker makes this call with a 1 ms limit, at which V8
     * drops the queue it was running (see `discardContinuations` in sandbox-worker.js).
     */
    idle() {
      return '';
    },
    takeOutput() {
      return `{"stdout":${quote(streams.stdout)},"stderr":${quote(streams.stderr)},"stdoutDropped":${streams.stdoutDropped},"stderrDropped":${streams.stderrDropped}}`;
    },
  };
  freeze(api);
  // One entry point, so the worker holds a single Reference per context (each Reference costs a round trip).
  return function dispatch(operation, a, b, c, d) {
    const fn = hasOwn(api, operation) ? api[operation] : undefined;
    if (typeof fn !== 'function') throw new ErrorCtor(`unknown sandbox operation ${operation}`);
    if (operation !== 'configure') untrustedSeen = true;
    return apply(fn, api, [a, b, c, d]);
  };
});
