import { isBackendAvailable } from '../backend';

/** What a test file does with its wasm tests: run them, skip them (saying why), or fail. */
export type WasmTestPlan = 'run' | 'skip' | 'fail';

/**
 * Where the wasm backend loads, its tests run. Where it does not, they may skip on a developer's machine, but
 * TURNGYM_REQUIRE_WASM=1 (set by CI, like TURNGYM_REQUIRE_CHROMIUM) makes that a failure: a wasm package
 * that stopped loading must turn CI red, not quietly leave the wasm kernels untested.
 */
export function wasmTestPlan(available: boolean, env: NodeJS.ProcessEnv): WasmTestPlan {
  if (available) return 'run';
  return env.TURNGYM_REQUIRE_WASM === '1' ? 'fail' : 'skip';
}

/** Why `@tensorflow/tfjs-backend-wasm` did not load (isBackendAvailable only says that it did not). */
function wasmLoadFailure(): string {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    require('@tensorflow/tfjs-backend-wasm');
    return 'the package loads, but its kernels did not register';
  } catch (error) {
    return String((error as Error).message ?? error)
      .replace(/\s+/g, ' ')
      .slice(0, 200);
  }
}

/**
 * True when this test file's wasm tests run. Otherwise it registers one test that says why: skipped (its
 * name gives the reason, and `npm test` lists it), or failing under TURNGYM_REQUIRE_WASM=1. Call it once, at
 * the top of a test file.
 */
export function wasmTestsRun(): boolean {
  const plan = wasmTestPlan(isBackendAvailable('wasm'), process.env);
  if (plan === 'run') return true;
  const reason = wasmLoadFailure();
  if (plan === 'fail') {
    test('the wasm backend loads (TURNGYM_REQUIRE_WASM=1)', () => {
      throw new Error(`@tensorflow/tfjs-backend-wasm did not load: ${reason}`);
    });
  } else {
    test.skip(`the wasm tests: the wasm backend did not load (${reason}); CI fails here`, () => {});
  }
  return false;
}

/** The backends a test file runs its tests on: cpu always, wasm where it loads (see `wasmTestsRun`). */
export function backendsUnderTest(): ('cpu' | 'wasm')[] {
  return wasmTestsRun() ? ['cpu', 'wasm'] : ['cpu'];
}
