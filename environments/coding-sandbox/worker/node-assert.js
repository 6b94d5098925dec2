// node:assert inside the sandbox: a port of Node.js v20's own `lib/assert.js`,
// `lib/internal/util/comparisons.js` and the parts of `lib/internal/assert/assertion_error.js` and
// `lib/internal/assert/utils.js` the assertions need (Node.js v20.20.2, MIT licence, Copyright Node.js
// contributors; assert.js originally from narwhal.js, Copyright (c) 2009 Thomas Robinson). Task suites written
// for Node (MultiPL-E's HumanEval-JS calls `assert.deepEqual`) must get the same verdicts here as under Node, so
// the logic is Node's, function for function and in the same order, not a re-implementation.
//
// Why not the `assert` npm package (browserify's port): it is synced to Node 12's comparisons (for example
// `deepEqual(NaN, NaN)` fails there and passes in Node 20; RegExps with different `lastIndex` are equal there
// and not in Node 20), and it calls methods on the compared values (`set.forEach`, `keys.filter`, `a.source`),
// which untrusted code in the same realm can patch to turn a failing hidden test into a passing one.
//
// Node's lib is written against `primordials` (intrinsics captured at startup) for the same reason, so the port
// builds its primordials here, when the runtime installs it, before any untrusted code runs. Where Node itself
// still dispatches through a patchable built-in, the port calls the captured intrinsic instead; every such place
// is marked `sandbox:`. Each keeps Node's result for unpatched built-ins:
// - `for…of` over arrays, Sets and Maps, `set.has/get/add/delete`, `.size`, `.source`, `.flags`, `.buffer`,
//   `.byteOffset`, `.byteLength`: captured methods, getters and iterator `next` functions.
// - `ArrayPrototypePush`, `ArrayPrototypeFilter`: a push by property definition (an index setter planted on
//   Array.prototype cannot intercept it) and a plain loop (no species lookup).
// - `x instanceof Error`: `Error.prototype.isPrototypeOf(x)` (a static `Error[Symbol.hasInstance]` planted by
//   untrusted code cannot answer for it); `actual instanceof expected` in `throws`/`rejects`: the captured
//   `Function.prototype[Symbol.hasInstance]` (OrdinaryHasInstance), for the same reason.
// - `internalBinding('util').getOwnNonIndexProperties`, `internalBinding('buffer').compare` and the
//   `util.types` checks are C++ in Node: here they are brand checks (a captured getter or method that throws on
//   anything else) with the same answers. `isNativeError` has no brand check in JavaScript, so it reads the
//   built-in tag (`Object.prototype.toString`), which differs only for an object that fakes `Symbol.toStringTag`.
// - AssertionError keeps Node's fields (name, code `ERR_ASSERTION`, actual, expected, operator, generatedMessage)
//   and message headers; the values in generated messages are rendered by the runtime's bounded `inspect`, not
//   Node's `util.inspect` (no coloured diff). `assert.ok(false)` cannot quote its call's source line, so its
//   message is Node's fallback (`false == true`).
// - Not ported: `CallTracker` (deprecated), `assert.fail` with several arguments (deprecated) behaves as in Node
//   but without the deprecation warning.
//
// A plain script whose completion value is the factory; the runtime calls it once per context (strict mode, so
// that no stack-trace API exposes these functions to untrusted code).
// eslint-disable-next-line @typescript-eslint/no-unused-expressions -- the runtime calls this function expression
(function createNodeAssert(hooks) {
  'use strict';

  // ---- primordials (lib/internal/per_context/primordials.js), captured now ---------------------------------------
  const { inspect, onAssertionError } = hooks;
  const ReflectApply = Reflect.apply;
  const ReflectOwnKeys = Reflect.ownKeys;
  const uncurry0 = (fn) => (self) => ReflectApply(fn, self, []);
  const uncurry1 = (fn) => (self, a) => ReflectApply(fn, self, [a]);
  const getter = (proto, name) => uncurry0(Object.getOwnPropertyDescriptor(proto, name).get);
  const ArrayIsArray = Array.isArray;
  const ArrayBufferIsView = ArrayBuffer.isView;
  const Error = globalThis.Error;
  const TypeError = globalThis.TypeError;
  const ErrorPrototype = Error.prototype;
  const ErrorCaptureStackTrace = Error.captureStackTrace;
  const NumberIsNaN = Number.isNaN;
  const ObjectCreate = Object.create;
  const ObjectDefineProperty = Object.defineProperty;
  const ObjectFreeze = Object.freeze;
  const ObjectGetOwnPropertySymbols = Object.getOwnPropertySymbols;
  const ObjectGetPrototypeOf = Object.getPrototypeOf;
  const ObjectIs = Object.is;
  const ObjectKeys = Object.keys;
  const ObjectPrototypeHasOwnProperty = uncurry1(Object.prototype.hasOwnProperty);
  const ObjectPrototypeIsPrototypeOf = uncurry1(Object.prototype.isPrototypeOf);
  // sandbox: `actual instanceof expected` as OrdinaryHasInstance: a `Symbol.hasInstance` planted on a built-in class
  // (`RangeError`) made `assert.throws(fn, RangeError)` pass whatever `fn` threw.
  const FunctionPrototypeSymbolHasInstance = Function.prototype[Symbol.hasInstance];
  const isInstanceOf = (value, constructor) => ReflectApply(FunctionPrototypeSymbolHasInstance, constructor, [value]);
  const ObjectPrototypePropertyIsEnumerable = uncurry1(Object.prototype.propertyIsEnumerable);
  const ObjectPrototypeToString = uncurry0(Object.prototype.toString);
  const String = globalThis.String;
  const RegExpPrototype = RegExp.prototype;
  const RegExpPrototypeExec = uncurry1(RegExp.prototype.exec);
  const RegExpPrototypeGetSource = getter(RegExp.prototype, 'source');
  const regExpFlagGetters = [];
  for (const [flag, name] of [
    ['d', 'hasIndices'],
    ['g', 'global'],
    ['i', 'ignoreCase'],
    ['m', 'multiline'],
    ['s', 'dotAll'],
    ['u', 'unicode'],
    ['v', 'unicodeSets'],
    ['y', 'sticky'],
  ]) {
    if (Object.getOwnPropertyDescriptor(RegExp.prototype, name))
      push(regExpFlagGetters, [flag, getter(RegExp.prototype, name)]);
  }
  const DatePrototypeGetTime = uncurry0(Date.prototype.getTime);
  const NumberPrototypeValueOf = uncurry0(Number.prototype.valueOf);
  const StringPrototypeValueOf = uncurry0(globalThis.String.prototype.valueOf);
  const BooleanPrototypeValueOf = uncurry0(Boolean.prototype.valueOf);
  const BigIntPrototypeValueOf = uncurry0(BigInt.prototype.valueOf);
  const SymbolPrototypeValueOf = uncurry0(Symbol.prototype.valueOf);
  const SetCtor = Set;
  const SetPrototypeAdd = uncurry1(Set.prototype.add);
  const SetPrototypeHas = uncurry1(Set.prototype.has);
  const SetPrototypeDelete = uncurry1(Set.prototype.delete);
  const SetPrototypeValues = uncurry0(Set.prototype.values);
  const SetPrototypeGetSize = getter(Set.prototype, 'size');
  const SetIteratorPrototypeNext = uncurry0(ObjectGetPrototypeOf(new Set().values()).next);
  const MapPrototypeGet = uncurry1(Map.prototype.get);
  const MapPrototypeHas = uncurry1(Map.prototype.has);
  const MapPrototypeEntries = uncurry0(Map.prototype.entries);
  const MapPrototypeGetSize = getter(Map.prototype, 'size');
  const MapIteratorPrototypeNext = uncurry0(ObjectGetPrototypeOf(new Map().entries()).next);
  const TypedArrayPrototype = ObjectGetPrototypeOf(globalThis.Uint8Array.prototype);
  const TypedArrayPrototypeGetSymbolToStringTag = getter(TypedArrayPrototype, Symbol.toStringTag);
  const TypedArrayPrototypeGetByteLength = getter(TypedArrayPrototype, 'byteLength');
  const TypedArrayPrototypeGetByteOffset = getter(TypedArrayPrototype, 'byteOffset');
  const TypedArrayPrototypeGetBuffer = getter(TypedArrayPrototype, 'buffer');
  const DataViewPrototypeGetByteLength = getter(DataView.prototype, 'byteLength');
  const DataViewPrototypeGetByteOffset = getter(DataView.prototype, 'byteOffset');
  const DataViewPrototypeGetBuffer = getter(DataView.prototype, 'buffer');
  const ArrayBufferPrototypeGetByteLength = getter(ArrayBuffer.prototype, 'byteLength');
  const Uint8Array = globalThis.Uint8Array;

  /** sandbox: ArrayPrototypePush by definition, so an index setter on Array.prototype cannot intercept it. */
  function push(list, value) {
    ObjectDefineProperty(list, list.length, { value, writable: true, enumerable: true, configurable: true });
  }

  /** Calls `brand(value)` and reports whether it accepted the value (a captured method throws on anything else). */
  function branded(brand, value) {
    if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return false;
    try {
      brand(value);
      return true;
    } catch {
      return false;
    }
  }

  // ---- lib/internal/util/types.js (C++ in Node: brand checks here) ------------------------------------------------
  const isDate = (value) => branded(DatePrototypeGetTime, value);
  // The `source` getter answers for RegExp.prototype itself, which is not a RegExp.
  const isRegExp = (value) => value !== RegExpPrototype && branded(RegExpPrototypeGetSource, value);
  const isMap = (value) => branded(MapPrototypeGetSize, value);
  const isSet = (value) => branded(SetPrototypeGetSize, value);
  const isArrayBufferView = (value) => ArrayBufferIsView(value);
  const isAnyArrayBuffer = (value) => branded(ArrayBufferPrototypeGetByteLength, value);
  const isNativeError = (value) =>
    value !== null && typeof value === 'object' && ObjectPrototypeToString(value) === '[object Error]';
  const isNumberObject = (value) => branded(NumberPrototypeValueOf, value);
  const isStringObject = (value) => branded(StringPrototypeValueOf, value);
  const isBooleanObject = (value) => branded(BooleanPrototypeValueOf, value);
  const isBigIntObject = (value) => branded(BigIntPrototypeValueOf, value);
  const isSymbolObject = (value) => branded(SymbolPrototypeValueOf, value);
  const isBoxedPrimitive = (value) =>
    isNumberObject(value) ||
    isStringObject(value) ||
    isBooleanObject(value) ||
    isBigIntObject(value) ||
    isSymbolObject(value);
  const isTypedArray = (value) =>
    ArrayBufferIsView(value) && TypedArrayPrototypeGetSymbolToStringTag(value) !== undefined;
  const isFloat32Array = (value) =>
    isTypedArray(value) && TypedArrayPrototypeGetSymbolToStringTag(value) === 'Float32Array';
  const isFloat64Array = (value) =>
    isTypedArray(value) && TypedArrayPrototypeGetSymbolToStringTag(value) === 'Float64Array';
  // No side-effect-free brand check for promises in JavaScript: the built-in tag (a faked tag still needs `then`
  // and `catch` to be accepted, as for Node's thenables).
  const isPromise = (value) =>
    value !== null && typeof value === 'object' && ObjectPrototypeToString(value) === '[object Promise]';
  // sandbox: `x instanceof Error` (lib/internal/util.js isError and comparisons.js) as OrdinaryHasInstance.
  const isInstanceOfError = (value) =>
    value !== null &&
    (typeof value === 'object' || typeof value === 'function') &&
    ObjectPrototypeIsPrototypeOf(ErrorPrototype, value);
  const isError = (value) => isNativeError(value) || isInstanceOfError(value);

  // sandbox: the byte views' getters, captured (DataView has its own).
  function viewParts(view) {
    if (isTypedArray(view))
      return [
        TypedArrayPrototypeGetBuffer(view),
        TypedArrayPrototypeGetByteOffset(view),
        TypedArrayPrototypeGetByteLength(view),
      ];
    return [
      DataViewPrototypeGetBuffer(view),
      DataViewPrototypeGetByteOffset(view),
      DataViewPrototypeGetByteLength(view),
    ];
  }

  /** sandbox: regexp.flags from the captured flag getters (the `flags` getter reads patchable getters). */
  function regExpFlags(regexp) {
    let flags = '';
    for (let i = 0; i < regExpFlagGetters.length; i++)
      if (regExpFlagGetters[i][1](regexp)) flags += regExpFlagGetters[i][0];
    return flags;
  }

  // internalBinding('buffer').compare: byte order of two Uint8Arrays.
  function compare(a, b) {
    const x = TypedArrayPrototypeGetByteLength(a);
    const y = TypedArrayPrototypeGetByteLength(b);
    const length = x < y ? x : y;
    for (let i = 0; i < length; i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
    return x < y ? -1 : x > y ? 1 : 0;
  }

  // internalBinding('util').getOwnNonIndexProperties with ONLY_ENUMERABLE, and SKIP_SYMBOLS when `skipSymbols`.
  function isArrayIndex(key) {
    if (typeof key !== 'string') return false;
    const index = +key;
    return `${index >>> 0}` === key && index >>> 0 !== 4294967295;
  }
  function getOwnNonIndexProperties(value, skipSymbols) {
    const keys = ReflectOwnKeys(value);
    const kept = [];
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      if (typeof key === 'symbol' ? skipSymbols : isArrayIndex(key)) continue;
      if (ObjectPrototypePropertyIsEnumerable(value, key)) push(kept, key);
    }
    return kept;
  }

  // ---- lib/internal/util/comparisons.js -------------------------------------------------------------------------
  const kStrict = true;
  const kLoose = false;

  const kNoIterator = 0;
  const kIsArray = 1;
  const kIsSet = 2;
  const kIsMap = 3;

  // Check if they have the same source and flags
  function areSimilarRegExps(a, b) {
    return (
      RegExpPrototypeGetSource(a) === RegExpPrototypeGetSource(b) &&
      regExpFlags(a) === regExpFlags(b) &&
      a.lastIndex === b.lastIndex
    );
  }

  function areSimilarFloatArrays(a, b) {
    if (TypedArrayPrototypeGetByteLength(a) !== TypedArrayPrototypeGetByteLength(b)) {
      return false;
    }
    const len = TypedArrayPrototypeGetByteLength(a);
    for (let offset = 0; offset < len; offset++) {
      if (a[offset] !== b[offset]) {
        return false;
      }
    }
    return true;
  }

  function areSimilarTypedArrays(a, b) {
    const partsA = viewParts(a);
    const partsB = viewParts(b);
    if (partsA[2] !== partsB[2]) {
      return false;
    }
    return (
      compare(new Uint8Array(partsA[0], partsA[1], partsA[2]), new Uint8Array(partsB[0], partsB[1], partsB[2])) === 0
    );
  }

  function areEqualArrayBuffers(buf1, buf2) {
    return (
      ArrayBufferPrototypeGetByteLength(buf1) === ArrayBufferPrototypeGetByteLength(buf2) &&
      compare(new Uint8Array(buf1), new Uint8Array(buf2)) === 0
    );
  }

  function isEqualBoxedPrimitive(val1, val2) {
    if (isNumberObject(val1)) {
      return isNumberObject(val2) && ObjectIs(NumberPrototypeValueOf(val1), NumberPrototypeValueOf(val2));
    }
    if (isStringObject(val1)) {
      return isStringObject(val2) && StringPrototypeValueOf(val1) === StringPrototypeValueOf(val2);
    }
    if (isBooleanObject(val1)) {
      return isBooleanObject(val2) && BooleanPrototypeValueOf(val1) === BooleanPrototypeValueOf(val2);
    }
    if (isBigIntObject(val1)) {
      return isBigIntObject(val2) && BigIntPrototypeValueOf(val1) === BigIntPrototypeValueOf(val2);
    }
    if (isSymbolObject(val1)) {
      return isSymbolObject(val2) && SymbolPrototypeValueOf(val1) === SymbolPrototypeValueOf(val2);
    }
    throw new Error('Unknown boxed type');
  }

  function innerDeepEqual(val1, val2, strict, memos) {
    // All identical values are equivalent, as determined by ===.
    if (val1 === val2) {
      return val1 !== 0 || ObjectIs(val1, val2) || !strict;
    }

    // Check more closely if val1 and val2 are equal.
    if (strict) {
      if (typeof val1 === 'number') {
        return NumberIsNaN(val1) && NumberIsNaN(val2);
      }
      if (
        typeof val2 !== 'object' ||
        typeof val1 !== 'object' ||
        val1 === null ||
        val2 === null ||
        ObjectGetPrototypeOf(val1) !== ObjectGetPrototypeOf(val2)
      ) {
        return false;
      }
    } else {
      if (val1 === null || typeof val1 !== 'object') {
        if (val2 === null || typeof val2 !== 'object') {
          return val1 == val2 || (NumberIsNaN(val1) && NumberIsNaN(val2));
        }
        return false;
      }
      if (val2 === null || typeof val2 !== 'object') {
        return false;
      }
    }
    const val1Tag = ObjectPrototypeToString(val1);
    const val2Tag = ObjectPrototypeToString(val2);

    if (val1Tag !== val2Tag) {
      return false;
    }

    if (ArrayIsArray(val1)) {
      // Check for sparse arrays and general fast path
      if (!ArrayIsArray(val2) || val1.length !== val2.length) {
        return false;
      }
      const keys1 = getOwnNonIndexProperties(val1, !strict);
      const keys2 = getOwnNonIndexProperties(val2, !strict);
      if (keys1.length !== keys2.length) {
        return false;
      }
      return keyCheck(val1, val2, strict, memos, kIsArray, keys1);
    } else if (val1Tag === '[object Object]') {
      return keyCheck(val1, val2, strict, memos, kNoIterator);
    } else if (isDate(val1)) {
      if (!isDate(val2) || DatePrototypeGetTime(val1) !== DatePrototypeGetTime(val2)) {
        return false;
      }
    } else if (isRegExp(val1)) {
      if (!isRegExp(val2) || !areSimilarRegExps(val1, val2)) {
        return false;
      }
    } else if (isArrayBufferView(val1)) {
      // sandbox: Node reads this tag on both sides; a DataView has none (undefined), like here.
      if (tagOfView(val1) !== tagOfView(val2)) {
        return false;
      }
      if (!strict && (isFloat32Array(val1) || isFloat64Array(val1))) {
        if (!areSimilarFloatArrays(val1, val2)) {
          return false;
        }
      } else if (!areSimilarTypedArrays(val1, val2)) {
        return false;
      }
      // Buffer.compare returns true, so val1.length === val2.length. If they both
      // only contain numeric keys, we don't need to exam further than checking
      // the symbols.
      const keys1 = getOwnNonIndexProperties(val1, !strict);
      const keys2 = getOwnNonIndexProperties(val2, !strict);
      if (keys1.length !== keys2.length) {
        return false;
      }
      return keyCheck(val1, val2, strict, memos, kNoIterator, keys1);
    } else if (isSet(val1)) {
      if (!isSet(val2) || SetPrototypeGetSize(val1) !== SetPrototypeGetSize(val2)) {
        return false;
      }
      return keyCheck(val1, val2, strict, memos, kIsSet);
    } else if (isMap(val1)) {
      if (!isMap(val2) || MapPrototypeGetSize(val1) !== MapPrototypeGetSize(val2)) {
        return false;
      }
      return keyCheck(val1, val2, strict, memos, kIsMap);
    } else if (isAnyArrayBuffer(val1)) {
      if (!isAnyArrayBuffer(val2) || !areEqualArrayBuffers(val1, val2)) {
        return false;
      }
    } else if (isNativeError(val1) || isInstanceOfError(val1)) {
      // Do not compare the stack as it might differ even though the error itself
      // is otherwise identical.
      if (!isNativeError(val2) && !isInstanceOfError(val2)) {
        return false;
      }

      const message1Enumerable = ObjectPrototypePropertyIsEnumerable(val1, 'message');
      const name1Enumerable = ObjectPrototypePropertyIsEnumerable(val1, 'name');
      const cause1Enumerable = ObjectPrototypePropertyIsEnumerable(val1, 'cause');
      const errors1Enumerable = ObjectPrototypePropertyIsEnumerable(val1, 'errors');

      if (
        message1Enumerable !== ObjectPrototypePropertyIsEnumerable(val2, 'message') ||
        (!message1Enumerable && val1.message !== val2.message) ||
        name1Enumerable !== ObjectPrototypePropertyIsEnumerable(val2, 'name') ||
        (!name1Enumerable && val1.name !== val2.name) ||
        cause1Enumerable !== ObjectPrototypePropertyIsEnumerable(val2, 'cause') ||
        (!cause1Enumerable && !innerDeepEqual(val1.cause, val2.cause, strict, memos)) ||
        errors1Enumerable !== ObjectPrototypePropertyIsEnumerable(val2, 'errors') ||
        (!errors1Enumerable && !innerDeepEqual(val1.errors, val2.errors, strict, memos))
      ) {
        return false;
      }
    } else if (isBoxedPrimitive(val1)) {
      if (!isEqualBoxedPrimitive(val1, val2)) {
        return false;
      }
    } else if (
      ArrayIsArray(val2) ||
      isArrayBufferView(val2) ||
      isSet(val2) ||
      isMap(val2) ||
      isDate(val2) ||
      isRegExp(val2) ||
      isAnyArrayBuffer(val2) ||
      isBoxedPrimitive(val2) ||
      isNativeError(val2) ||
      isInstanceOfError(val2)
    ) {
      return false;
    }
    // (Node's KeyObject, CryptoKey and URL branches: the sandbox has none of these.)
    return keyCheck(val1, val2, strict, memos, kNoIterator);
  }

  function tagOfView(view) {
    return isTypedArray(view) ? TypedArrayPrototypeGetSymbolToStringTag(view) : undefined;
  }

  function getEnumerables(val, keys) {
    // sandbox: ArrayPrototypeFilter as a loop (no species lookup on `keys`).
    const kept = [];
    for (let i = 0; i < keys.length; i++) if (ObjectPrototypePropertyIsEnumerable(val, keys[i])) push(kept, keys[i]);
    return kept;
  }

  /** sandbox: `val1.size` for the Set or Map of keyCheck's last test. */
  function sizeOf(value, iterationType) {
    if (iterationType === kIsSet) return SetPrototypeGetSize(value);
    if (iterationType === kIsMap) return MapPrototypeGetSize(value);
    return value.size;
  }

  function keyCheck(val1, val2, strict, memos, iterationType, aKeys) {
    // For all remaining Object pairs, including Array, objects and Maps,
    // equivalence is determined by having:
    // a) The same number of owned enumerable properties
    // b) The same set of keys/indexes (although not necessarily the same order)
    // c) Equivalent values for every corresponding key/index
    // d) For Sets and Maps, equal contents
    // Note: this accounts for both named and indexed properties on Arrays.
    const isArrayLikeObject = aKeys !== undefined;

    if (aKeys === undefined) {
      aKeys = ObjectKeys(val1);
    }

    // Cheap key test
    if (aKeys.length > 0) {
      for (let i = 0; i < aKeys.length; i++) {
        if (!ObjectPrototypePropertyIsEnumerable(val2, aKeys[i])) {
          return false;
        }
      }
    }

    if (!isArrayLikeObject) {
      // The pair must have the same number of owned properties.
      if (aKeys.length !== ObjectKeys(val2).length) {
        return false;
      }

      if (strict) {
        const symbolKeysA = ObjectGetOwnPropertySymbols(val1);
        if (symbolKeysA.length !== 0) {
          let count = 0;
          for (let i = 0; i < symbolKeysA.length; i++) {
            const key = symbolKeysA[i];
            if (ObjectPrototypePropertyIsEnumerable(val1, key)) {
              if (!ObjectPrototypePropertyIsEnumerable(val2, key)) {
                return false;
              }
              push(aKeys, key);
              count++;
            } else if (ObjectPrototypePropertyIsEnumerable(val2, key)) {
              return false;
            }
          }
          const symbolKeysB = ObjectGetOwnPropertySymbols(val2);
          if (symbolKeysA.length !== symbolKeysB.length && getEnumerables(val2, symbolKeysB).length !== count) {
            return false;
          }
        } else {
          const symbolKeysB = ObjectGetOwnPropertySymbols(val2);
          if (symbolKeysB.length !== 0 && getEnumerables(val2, symbolKeysB).length !== 0) {
            return false;
          }
        }
      }
    }

    if (
      aKeys.length === 0 &&
      (iterationType === kNoIterator ||
        (iterationType === kIsArray && val1.length === 0) ||
        sizeOf(val1, iterationType) === 0)
    ) {
      return true;
    }

    // Use memos to handle cycles.
    if (memos === undefined) {
      memos = {
        set: undefined,
        a: val1,
        b: val2,
        c: undefined,
        d: undefined,
        deep: false,
        deleteFailures: false,
      };
      return objEquiv(val1, val2, strict, aKeys, memos, iterationType);
    }

    if (memos.set === undefined) {
      if (memos.deep === false) {
        if (memos.a === val1) {
          if (memos.b === val2) return true;
        }
        memos.c = val1;
        memos.d = val2;
        memos.deep = true;
        const result = objEquiv(val1, val2, strict, aKeys, memos, iterationType);
        memos.deep = false;
        return result;
      }
      memos.set = new SetCtor();
      SetPrototypeAdd(memos.set, memos.a);
      SetPrototypeAdd(memos.set, memos.b);
      SetPrototypeAdd(memos.set, memos.c);
      SetPrototypeAdd(memos.set, memos.d);
    }

    const { set } = memos;

    const originalSize = SetPrototypeGetSize(set);
    SetPrototypeAdd(set, val1);
    SetPrototypeAdd(set, val2);
    if (originalSize === SetPrototypeGetSize(set)) {
      return true;
    }

    const areEq = objEquiv(val1, val2, strict, aKeys, memos, iterationType);

    if (areEq || memos.deleteFailures) {
      SetPrototypeDelete(set, val1);
      SetPrototypeDelete(set, val2);
    }

    return areEq;
  }

  function setHasEqualElement(set, val2, strict, memo) {
    const { deleteFailures } = memo;
    memo.deleteFailures = true;
    const iterator = SetPrototypeValues(set);
    for (let step = SetIteratorPrototypeNext(iterator); !step.done; step = SetIteratorPrototypeNext(iterator)) {
      const val1 = step.value;
      if (innerDeepEqual(val1, val2, strict, memo)) {
        // Remove the matching element to make sure we do not check that again.
        SetPrototypeDelete(set, val1);
        memo.deleteFailures = deleteFailures;
        return true;
      }
    }

    memo.deleteFailures = deleteFailures;
    return false;
  }

  // See https://developer.mozilla.org/en-US/docs/Web/JavaScript/Equality_comparisons_and_sameness#Loose_equality_using
  // Sadly it is not possible to detect corresponding values properly in case the
  // type is a string, number, bigint or boolean. The reason is that those values
  // can match lots of different string values (e.g., 1n == '+00001').
  function findLooseMatchingPrimitives(prim) {
    switch (typeof prim) {
      case 'undefined':
        return null;
      case 'object': // Only pass in null as object!
        return undefined;
      case 'symbol':
        return false;
      case 'string':
        prim = +prim;
      // Loose equal entries exist only if the string is possible to convert to
      // a regular number and not NaN.
      // Fall through
      case 'number':
        if (NumberIsNaN(prim)) {
          return false;
        }
    }
    return true;
  }

  function setMightHaveLoosePrim(a, b, prim) {
    const altValue = findLooseMatchingPrimitives(prim);
    if (altValue != null) return altValue;

    return SetPrototypeHas(b, altValue) && !SetPrototypeHas(a, altValue);
  }

  function mapMightHaveLoosePrim(a, b, prim, item, memo) {
    const altValue = findLooseMatchingPrimitives(prim);
    if (altValue != null) {
      return altValue;
    }
    const curB = MapPrototypeGet(b, altValue);
    if ((curB === undefined && !MapPrototypeHas(b, altValue)) || !innerDeepEqual(item, curB, false, memo)) {
      return false;
    }
    return !MapPrototypeHas(a, altValue) && innerDeepEqual(item, curB, false, memo);
  }

  function setEquiv(a, b, strict, memo) {
    // This is a lazily initiated Set of entries which have to be compared
    // pairwise.
    let set = null;
    const iteratorA = SetPrototypeValues(a);
    for (let step = SetIteratorPrototypeNext(iteratorA); !step.done; step = SetIteratorPrototypeNext(iteratorA)) {
      const val = step.value;
      if (!SetPrototypeHas(b, val)) {
        if ((typeof val !== 'object' || val === null) && (strict || !setMightHaveLoosePrim(a, b, val))) {
          return false;
        }

        if (set === null) {
          if (SetPrototypeGetSize(b) === 1) {
            return innerDeepEqual(val, SetIteratorPrototypeNext(SetPrototypeValues(b)).value, strict, memo);
          }
          set = new SetCtor();
        }
        // If the specified value doesn't exist in the second set it's a object
        // (or in loose mode: a non-matching primitive). Find the
        // deep-(strict-)equal element in a set copy to reduce duplicate checks.
        SetPrototypeAdd(set, val);
      }
    }

    if (set !== null) {
      const iteratorB = SetPrototypeValues(b);
      for (let step = SetIteratorPrototypeNext(iteratorB); !step.done; step = SetIteratorPrototypeNext(iteratorB)) {
        const val = step.value;
        // Primitive values have already been handled above.
        if (typeof val === 'object' && val !== null) {
          if (!SetPrototypeHas(a, val) && !setHasEqualElement(set, val, strict, memo)) {
            return false;
          }
        } else if (!strict && !SetPrototypeHas(a, val) && !setHasEqualElement(set, val, strict, memo)) {
          return false;
        }
      }
      return SetPrototypeGetSize(set) === 0;
    }

    return true;
  }

  function mapHasEqualEntry(set, map, key2, item2, strict, memo) {
    // To be able to handle cases like:
    //   Map([[{}, 'a'], [{}, 'b']]) vs Map([[{}, 'b'], [{}, 'a']])
    // ... we need to consider *all* matching keys, not just the first we find.
    const { deleteFailures } = memo;
    memo.deleteFailures = true;
    const iterator = SetPrototypeValues(set);
    for (let step = SetIteratorPrototypeNext(iterator); !step.done; step = SetIteratorPrototypeNext(iterator)) {
      const key1 = step.value;
      if (innerDeepEqual(key1, key2, strict, memo) && innerDeepEqual(MapPrototypeGet(map, key1), item2, strict, memo)) {
        SetPrototypeDelete(set, key1);
        memo.deleteFailures = deleteFailures;
        return true;
      }
    }

    memo.deleteFailures = deleteFailures;
    return false;
  }

  function mapEquiv(a, b, strict, memo) {
    let set = null;

    const iteratorA = MapPrototypeEntries(a);
    for (let step = MapIteratorPrototypeNext(iteratorA); !step.done; step = MapIteratorPrototypeNext(iteratorA)) {
      const { 0: key, 1: item1 } = step.value;
      if (typeof key === 'object' && key !== null) {
        if (set === null) {
          if (MapPrototypeGetSize(b) === 1) {
            const { 0: key2, 1: item2 } = MapIteratorPrototypeNext(MapPrototypeEntries(b)).value;
            return innerDeepEqual(key, key2, strict, memo) && innerDeepEqual(item1, item2, strict, memo);
          }
          set = new SetCtor();
        }
        SetPrototypeAdd(set, key);
      } else {
        // By directly retrieving the value we prevent another b.has(key) check in
        // almost all possible cases.
        const item2 = MapPrototypeGet(b, key);
        if ((item2 === undefined && !MapPrototypeHas(b, key)) || !innerDeepEqual(item1, item2, strict, memo)) {
          if (strict) return false;
          // Fast path to detect missing string, symbol, undefined and null
          // keys.
          if (!mapMightHaveLoosePrim(a, b, key, item1, memo)) return false;
          if (set === null) {
            set = new SetCtor();
          }
          SetPrototypeAdd(set, key);
        }
      }
    }

    if (set !== null) {
      const iteratorB = MapPrototypeEntries(b);
      for (let step = MapIteratorPrototypeNext(iteratorB); !step.done; step = MapIteratorPrototypeNext(iteratorB)) {
        const { 0: key, 1: item } = step.value;
        if (typeof key === 'object' && key !== null) {
          if (!mapHasEqualEntry(set, a, key, item, strict, memo)) return false;
        } else if (
          !strict &&
          (!MapPrototypeHas(a, key) || !innerDeepEqual(MapPrototypeGet(a, key), item, strict, memo)) &&
          !mapHasEqualEntry(set, a, key, item, strict, memo)
        ) {
          return false;
        }
      }
      return SetPrototypeGetSize(set) === 0;
    }

    return true;
  }

  function objEquiv(a, b, strict, keys, memos, iterationType) {
    // The pair must have equivalent values for every corresponding key.
    if (keys.length > 0) {
      for (let k = 0; k < keys.length; k++) {
        const key = keys[k];
        if (!innerDeepEqual(a[key], b[key], strict, memos)) {
          return false;
        }
      }
    }

    if (iterationType === kIsArray) {
      for (let i = 0; i < a.length; i++) {
        if (ObjectPrototypeHasOwnProperty(a, i)) {
          if (!ObjectPrototypeHasOwnProperty(b, i) || !innerDeepEqual(a[i], b[i], strict, memos)) {
            return false;
          }
        } else if (ObjectPrototypeHasOwnProperty(b, i)) {
          return false;
        } else {
          // Array is sparse.
          const keysA = ObjectKeys(a);
          for (; i < keysA.length; i++) {
            const key = keysA[i];
            if (!ObjectPrototypeHasOwnProperty(b, key) || !innerDeepEqual(a[key], b[key], strict, memos)) {
              return false;
            }
          }
          return keysA.length === ObjectKeys(b).length;
        }
      }
    } else if (iterationType === kIsSet) {
      if (!setEquiv(a, b, strict, memos)) {
        return false;
      }
    } else if (iterationType === kIsMap) {
      if (!mapEquiv(a, b, strict, memos)) {
        return false;
      }
    }

    return true;
  }

  function isDeepEqual(val1, val2) {
    return innerDeepEqual(val1, val2, kLoose);
  }

  function isDeepStrictEqual(val1, val2) {
    return innerDeepEqual(val1, val2, kStrict);
  }

  // ---- lib/internal/errors.js: the codes assert throws ----------------------------------------------------------
  function nodeError(Base, code, message) {
    const error = new Base(message);
    ObjectDefineProperty(error, 'code', { value: code, writable: true, enumerable: true, configurable: true });
    return error;
  }
  function describeReceived(value) {
    if (value == null) return ` Received ${value}`;
    if (typeof value === 'function') return ` Received function ${value.name}`;
    if (typeof value === 'object') return ` Received ${inspect(value)}`;
    return ` Received type ${typeof value} (${inspect(value)})`;
  }
  const ERR_MISSING_ARGS = () =>
    nodeError(TypeError, 'ERR_MISSING_ARGS', 'The "actual" and "expected" arguments must be specified');
  const ERR_INVALID_ARG_TYPE = (name, expected, value) =>
    nodeError(
      TypeError,
      'ERR_INVALID_ARG_TYPE',
      `The "${name}" argument must be ${expected}.${describeReceived(value)}`,
    );
  const ERR_INVALID_ARG_VALUE = (name, value, reason) =>
    nodeError(TypeError, 'ERR_INVALID_ARG_VALUE', `The argument '${name}' ${reason}. Received ${inspect(value)}`);
  const ERR_AMBIGUOUS_ARGUMENT = (name, reason) =>
    nodeError(TypeError, 'ERR_AMBIGUOUS_ARGUMENT', `The "${name}" argument is ambiguous. ${reason}`);
  const ERR_INVALID_RETURN_VALUE = (input, name, value) =>
    nodeError(
      TypeError,
      'ERR_INVALID_RETURN_VALUE',
      `Expected ${input} to be returned from the "${name}" function but got ${value === null ? 'null' : `type ${typeof value}`}.`,
    );

  // ---- lib/internal/assert/assertion_error.js ------------------------------------------------------------------
  const kReadableOperator = {
    __proto__: null,
    deepStrictEqual: 'Expected values to be strictly deep-equal:',
    strictEqual: 'Expected values to be strictly equal:',
    strictEqualObject: 'Expected "actual" to be reference-equal to "expected":',
    deepEqual: 'Expected values to be loosely deep-equal:',
    notDeepStrictEqual: 'Expected "actual" not to be strictly deep-equal to:',
    notStrictEqual: 'Expected "actual" to be strictly unequal to:',
    notStrictEqualObject: 'Expected "actual" not to be reference-equal to "expected":',
    notDeepEqual: 'Expected "actual" not to be loosely deep-equal to:',
    notIdentical: 'Values have same structure but are not reference-equal:',
    notDeepEqualUnequal: 'Expected values not to be loosely deep-equal:',
  };

  /** The generated message: Node's headers, with the runtime's bounded rendering of the values. */
  function generatedMessage(actual, expected, operator) {
    const res = inspect(actual);
    const other = inspect(expected);
    if (operator === 'deepStrictEqual' || operator === 'strictEqual') {
      const header =
        operator === 'strictEqual' &&
        ((typeof actual === 'object' && actual !== null && typeof expected === 'object' && expected !== null) ||
          (typeof actual === 'function' && typeof expected === 'function'))
          ? kReadableOperator.strictEqualObject
          : kReadableOperator[operator];
      return `${header}\n\n${res}\n\nshould equal\n\n${other}`;
    }
    if (operator === 'notDeepStrictEqual' || operator === 'notStrictEqual') {
      const base =
        operator === 'notStrictEqual' &&
        ((typeof actual === 'object' && actual !== null) || typeof actual === 'function')
          ? kReadableOperator.notStrictEqualObject
          : kReadableOperator[operator];
      return `${base}${res.length > 5 ? '\n\n' : ' '}${res}`;
    }
    if (operator === 'notDeepEqual' && res === other) return `${kReadableOperator[operator]}\n\n${res}`;
    if (operator === 'deepEqual')
      return `${kReadableOperator[operator]}\n\n${res}\n\nshould loosely deep-equal\n\n${other}`;
    const unequal = kReadableOperator[`${operator}Unequal`];
    if (unequal) return `${unequal}\n\n${res}\n\nshould not loosely deep-equal\n\n${other}`;
    return `${res} ${operator} ${other}`;
  }

  function define(target, key, value) {
    ObjectDefineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  }

  class AssertionError extends Error {
    constructor(options) {
      if (options === null || typeof options !== 'object')
        throw ERR_INVALID_ARG_TYPE('options', 'of type object', options);
      const { message, operator, stackStartFn, stackStartFunction } = options;
      const { actual, expected } = options;
      super(message != null ? String(message) : generatedMessage(actual, expected, operator));
      define(this, 'generatedMessage', !message);
      define(this, 'code', 'ERR_ASSERTION');
      define(this, 'actual', actual);
      define(this, 'expected', expected);
      define(this, 'operator', operator);
      ObjectDefineProperty(this, 'name', { value: 'AssertionError', writable: true, configurable: true });
      const startFn = stackStartFn || stackStartFunction;
      if (typeof ErrorCaptureStackTrace === 'function' && typeof startFn === 'function')
        ErrorCaptureStackTrace(this, startFn);
      // The failing assertion's name for the report (`deepEqual`, not Node's operator `==` for `equal`).
      onAssertionError(this, typeof startFn === 'function' ? startFn.name : operator, actual, expected, message);
    }

    toString() {
      return `${this.name} [${this.code}]: ${this.message}`;
    }
  }

  // ---- lib/internal/assert/utils.js ----------------------------------------------------------------------------
  function innerOk(fn, argLen, value, message) {
    if (!value) {
      let generated = false;

      if (argLen === 0) {
        generated = true;
        message = 'No value argument passed to `assert.ok()`';
      } else if (message == null) {
        // Node quotes the call's source line here when it can read the file; the sandbox cannot.
        generated = true;
        message = undefined;
      } else if (isError(message)) {
        throw message;
      }

      const err = new AssertionError({
        actual: value,
        expected: true,
        message,
        operator: '==',
        stackStartFn: fn,
      });
      err.generatedMessage = generated;
      throw err;
    }
  }

  // ---- lib/assert.js ------------------------------------------------------------------------------------------
  const NO_EXCEPTION_SENTINEL = {};

  function innerFail(obj) {
    if (isInstanceOfError(obj.message)) throw obj.message;

    throw new AssertionError(obj);
  }

  function ok(...args) {
    innerOk(ok, args.length, args[0], args[1]);
  }
  const assert = ok;

  function fail(actual, expected, message, operator, stackStartFn) {
    const argsLen = arguments.length;

    let internalMessage = false;
    if (actual == null && argsLen <= 1) {
      internalMessage = true;
      message = 'Failed';
    } else if (argsLen === 1) {
      message = actual;
      actual = undefined;
    } else if (argsLen === 2) {
      operator = '!=';
    }

    if (isInstanceOfError(message)) throw message;

    const errArgs = {
      actual,
      expected,
      operator: operator === undefined ? 'fail' : operator,
      stackStartFn: stackStartFn || fail,
      message,
    };
    const err = new AssertionError(errArgs);
    if (internalMessage) {
      err.generatedMessage = true;
    }
    throw err;
  }

  function equal(actual, expected, message) {
    if (arguments.length < 2) {
      throw ERR_MISSING_ARGS();
    }
    if (actual != expected && (!NumberIsNaN(actual) || !NumberIsNaN(expected))) {
      innerFail({ actual, expected, message, operator: '==', stackStartFn: equal });
    }
  }

  function notEqual(actual, expected, message) {
    if (arguments.length < 2) {
      throw ERR_MISSING_ARGS();
    }
    if (actual == expected || (NumberIsNaN(actual) && NumberIsNaN(expected))) {
      innerFail({ actual, expected, message, operator: '!=', stackStartFn: notEqual });
    }
  }

  function deepEqual(actual, expected, message) {
    if (arguments.length < 2) {
      throw ERR_MISSING_ARGS();
    }
    if (!isDeepEqual(actual, expected)) {
      innerFail({ actual, expected, message, operator: 'deepEqual', stackStartFn: deepEqual });
    }
  }

  function notDeepEqual(actual, expected, message) {
    if (arguments.length < 2) {
      throw ERR_MISSING_ARGS();
    }
    if (isDeepEqual(actual, expected)) {
      innerFail({ actual, expected, message, operator: 'notDeepEqual', stackStartFn: notDeepEqual });
    }
  }

  function deepStrictEqual(actual, expected, message) {
    if (arguments.length < 2) {
      throw ERR_MISSING_ARGS();
    }
    if (!isDeepStrictEqual(actual, expected)) {
      innerFail({ actual, expected, message, operator: 'deepStrictEqual', stackStartFn: deepStrictEqual });
    }
  }

  function notDeepStrictEqual(actual, expected, message) {
    if (arguments.length < 2) {
      throw ERR_MISSING_ARGS();
    }
    if (isDeepStrictEqual(actual, expected)) {
      innerFail({ actual, expected, message, operator: 'notDeepStrictEqual', stackStartFn: notDeepStrictEqual });
    }
  }

  function strictEqual(actual, expected, message) {
    if (arguments.length < 2) {
      throw ERR_MISSING_ARGS();
    }
    if (!ObjectIs(actual, expected)) {
      innerFail({ actual, expected, message, operator: 'strictEqual', stackStartFn: strictEqual });
    }
  }

  function notStrictEqual(actual, expected, message) {
    if (arguments.length < 2) {
      throw ERR_MISSING_ARGS();
    }
    if (ObjectIs(actual, expected)) {
      innerFail({ actual, expected, message, operator: 'notStrictEqual', stackStartFn: notStrictEqual });
    }
  }

  function compareExceptionKey(actual, expected, key, message, keys, fn) {
    if (!(key in actual) || !isDeepStrictEqual(actual[key], expected[key])) {
      // Node builds placeholder objects here for a nicer diff; the verdict and the fields are the same.
      innerFail({ actual, expected, message, operator: fn.name, stackStartFn: fn });
    }
  }

  function expectedException(actual, expected, message, fn) {
    let generated = false;
    let throwError = false;

    if (typeof expected !== 'function') {
      // Handle regular expressions.
      if (isRegExp(expected)) {
        const str = String(actual);
        if (RegExpPrototypeExec(expected, str) !== null) return;

        if (!message) {
          generated = true;
          message =
            'The input did not match the regular expression ' + `${inspect(expected)}. Input:\n\n${inspect(str)}\n`;
        }
        throwError = true;
        // Handle primitives properly.
      } else if (typeof actual !== 'object' || actual === null) {
        const err = new AssertionError({ actual, expected, message, operator: 'deepStrictEqual', stackStartFn: fn });
        err.operator = fn.name;
        throw err;
      } else {
        // Handle validation objects.
        const keys = ObjectKeys(expected);
        // Special handle errors to make sure the name and the message are
        // compared as well.
        if (isInstanceOfError(expected)) {
          push(keys, 'name');
          push(keys, 'message');
        } else if (keys.length === 0) {
          throw ERR_INVALID_ARG_VALUE('error', expected, 'may not be an empty object');
        }
        for (let i = 0; i < keys.length; i++) {
          const key = keys[i];
          if (
            typeof actual[key] === 'string' &&
            isRegExp(expected[key]) &&
            RegExpPrototypeExec(expected[key], actual[key]) !== null
          ) {
            continue;
          }
          compareExceptionKey(actual, expected, key, message, keys, fn);
        }
        return;
      }
      // Guard instanceof against arrow functions as they don't have a prototype.
      // Check for matching Error classes.
    } else if (expected.prototype !== undefined && isInstanceOf(actual, expected)) {
      return;
    } else if (ObjectPrototypeIsPrototypeOf(Error, expected)) {
      if (!message) {
        generated = true;
        message = 'The error is expected to be an instance of ' + `"${expected.name}". Received `;
        if (isError(actual)) {
          const name = (actual.constructor && actual.constructor.name) || actual.name;
          if (expected.name === name) {
            message += 'an error with identical name but a different prototype.';
          } else {
            message += `"${name}"`;
          }
          if (actual.message) {
            message += `\n\nError message:\n\n${actual.message}`;
          }
        } else {
          message += `"${inspect(actual)}"`;
        }
      }
      throwError = true;
    } else {
      // Check validation functions return value.
      const res = ReflectApply(expected, {}, [actual]);
      if (res !== true) {
        if (!message) {
          generated = true;
          const name = expected.name ? `"${expected.name}" ` : '';
          message = `The ${name}validation function is expected to return` + ` "true". Received ${inspect(res)}`;

          if (isError(actual)) {
            message += `\n\nCaught error:\n\n${actual}`;
          }
        }
        throwError = true;
      }
    }

    if (throwError) {
      const err = new AssertionError({ actual, expected, message, operator: fn.name, stackStartFn: fn });
      err.generatedMessage = generated;
      throw err;
    }
  }

  function getActual(fn) {
    if (typeof fn !== 'function') throw ERR_INVALID_ARG_TYPE('fn', 'of type function', fn);
    try {
      fn();
    } catch (e) {
      return e;
    }
    return NO_EXCEPTION_SENTINEL;
  }

  function checkIsPromise(obj) {
    // Accept native ES6 promises and promises that are implemented in a similar
    // way. Do not accept thenables that use a function as `obj` and that have no
    // `catch` handler.
    return (
      isPromise(obj) ||
      (obj !== null && typeof obj === 'object' && typeof obj.then === 'function' && typeof obj.catch === 'function')
    );
  }

  async function waitForActual(promiseFn) {
    let resultPromise;
    if (typeof promiseFn === 'function') {
      // Return a rejected promise if `promiseFn` throws synchronously.
      resultPromise = promiseFn();
      // Fail in case no promise is returned.
      if (!checkIsPromise(resultPromise)) {
        throw ERR_INVALID_RETURN_VALUE('instance of Promise', 'promiseFn', resultPromise);
      }
    } else if (checkIsPromise(promiseFn)) {
      resultPromise = promiseFn;
    } else {
      throw ERR_INVALID_ARG_TYPE('promiseFn', 'of type function or an instance of Promise', promiseFn);
    }

    try {
      await resultPromise;
    } catch (e) {
      return e;
    }
    return NO_EXCEPTION_SENTINEL;
  }

  // sandbox: Node passes the rest arguments on with a spread (which runs the patchable array iterator); here
  // they are passed one by one, with their count, which is what `arguments.length === 4` tests in Node.
  function expectsError(stackStartFn, actual, argCount, error, message) {
    if (typeof error === 'string') {
      if (argCount === 2) {
        throw ERR_INVALID_ARG_TYPE('error', 'of type function or an instance of Error, RegExp, or Object', error);
      }
      if (typeof actual === 'object' && actual !== null) {
        if (actual.message === error) {
          throw ERR_AMBIGUOUS_ARGUMENT(
            'error/message',
            `The error message "${actual.message}" is identical to the message.`,
          );
        }
      } else if (actual === error) {
        throw ERR_AMBIGUOUS_ARGUMENT('error/message', `The error "${actual}" is identical to the message.`);
      }
      message = error;
      error = undefined;
    } else if (error != null && typeof error !== 'object' && typeof error !== 'function') {
      throw ERR_INVALID_ARG_TYPE('error', 'of type function or an instance of Error, RegExp, or Object', error);
    }

    if (actual === NO_EXCEPTION_SENTINEL) {
      let details = '';
      if (error && error.name) {
        details += ` (${error.name})`;
      }
      details += message ? `: ${message}` : '.';
      const fnType = stackStartFn === rejects ? 'rejection' : 'exception';
      innerFail({
        actual: undefined,
        expected: error,
        operator: stackStartFn.name,
        message: `Missing expected ${fnType}${details}`,
        stackStartFn,
      });
    }

    if (!error) return;

    expectedException(actual, error, message, stackStartFn);
  }

  function hasMatchingError(actual, expected) {
    if (typeof expected !== 'function') {
      if (isRegExp(expected)) {
        const str = String(actual);
        return RegExpPrototypeExec(expected, str) !== null;
      }
      throw ERR_INVALID_ARG_TYPE('expected', 'of type function or an instance of RegExp', expected);
    }
    // Guard instanceof against arrow functions as they don't have a prototype.
    if (expected.prototype !== undefined && isInstanceOf(actual, expected)) {
      return true;
    }
    if (ObjectPrototypeIsPrototypeOf(Error, expected)) {
      return false;
    }
    return ReflectApply(expected, {}, [actual]) === true;
  }

  function expectsNoError(stackStartFn, actual, error, message) {
    if (actual === NO_EXCEPTION_SENTINEL) return;

    if (typeof error === 'string') {
      message = error;
      error = undefined;
    }

    if (!error || hasMatchingError(actual, error)) {
      const details = message ? `: ${message}` : '.';
      const fnType = stackStartFn === doesNotReject ? 'rejection' : 'exception';
      innerFail({
        actual,
        expected: error,
        operator: stackStartFn.name,
        message: `Got unwanted ${fnType}${details}\n` + `Actual message: "${actual && actual.message}"`,
        stackStartFn,
      });
    }
    throw actual;
  }

  function throws(promiseFn, ...args) {
    expectsError(throws, getActual(promiseFn), args.length, args[0], args[1]);
  }

  async function rejects(promiseFn, ...args) {
    expectsError(rejects, await waitForActual(promiseFn), args.length, args[0], args[1]);
  }

  function doesNotThrow(fn, ...args) {
    expectsNoError(doesNotThrow, getActual(fn), args[0], args[1]);
  }

  async function doesNotReject(fn, ...args) {
    expectsNoError(doesNotReject, await waitForActual(fn), args[0], args[1]);
  }

  function ifError(err) {
    if (err !== null && err !== undefined) {
      let message = 'ifError got unwanted exception: ';
      if (typeof err === 'object' && typeof err.message === 'string') {
        if (err.message.length === 0 && err.constructor) {
          message += err.constructor.name;
        } else {
          message += err.message;
        }
      } else {
        message += inspect(err);
      }

      throw new AssertionError({ actual: err, expected: null, operator: 'ifError', message, stackStartFn: ifError });
    }
  }

  function internalMatch(string, regexp, message, fn) {
    if (!isRegExp(regexp)) {
      throw ERR_INVALID_ARG_TYPE('regexp', 'an instance of RegExp', regexp);
    }
    const isMatch = fn === match;
    if (typeof string !== 'string' || (RegExpPrototypeExec(regexp, string) !== null) !== isMatch) {
      if (isInstanceOfError(message)) {
        throw message;
      }

      const generated = !message;

      message =
        message ||
        (typeof string !== 'string'
          ? 'The "string" argument must be of type string. Received type ' + `${typeof string} (${inspect(string)})`
          : (isMatch
              ? 'The input did not match the regular expression '
              : 'The input was expected to not match the regular expression ') +
            `${inspect(regexp)}. Input:\n\n${inspect(string)}\n`);
      const err = new AssertionError({
        actual: string,
        expected: regexp,
        message,
        operator: fn.name,
        stackStartFn: fn,
      });
      err.generatedMessage = generated;
      throw err;
    }
  }

  function match(string, regexp, message) {
    internalMatch(string, regexp, message, match);
  }

  function doesNotMatch(string, regexp, message) {
    internalMatch(string, regexp, message, doesNotMatch);
  }

  const methods = {
    fail,
    AssertionError,
    ok,
    equal,
    notEqual,
    deepEqual,
    notDeepEqual,
    deepStrictEqual,
    notDeepStrictEqual,
    strictEqual,
    notStrictEqual,
    throws,
    rejects,
    doesNotThrow,
    doesNotReject,
    ifError,
    match,
    doesNotMatch,
  };
  function install(target, overrides) {
    const names = ObjectKeys(methods);
    for (let i = 0; i < names.length; i++) define(target, names[i], methods[names[i]]);
    const extra = ObjectKeys(overrides);
    for (let i = 0; i < extra.length; i++) define(target, extra[i], overrides[extra[i]]);
  }

  function strict(...args) {
    innerOk(strict, args.length, args[0], args[1]);
  }
  install(assert, {});
  install(strict, {
    equal: strictEqual,
    deepEqual: deepStrictEqual,
    notEqual: notStrictEqual,
    notDeepEqual: notDeepStrictEqual,
  });
  define(assert, 'strict', strict);
  define(strict, 'strict', strict);
  // Frozen: code under test cannot swap an assertion that a hidden test calls after it.
  ObjectFreeze(AssertionError.prototype);
  ObjectFreeze(AssertionError);
  ObjectFreeze(assert);
  ObjectFreeze(strict);
  return ObjectCreate(null, {
    assert: { value: assert },
    strict: { value: strict },
    isDeepEqual: { value: isDeepEqual },
    isDeepStrictEqual: { value: isDeepStrictEqual },
  });
});
