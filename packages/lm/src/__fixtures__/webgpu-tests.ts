import { webGpuPrerequisitesMissing } from '../internal/webgpu-device';

/** What a test file does with its webgpu tests: run them, skip them (saying why), or fail. */
export type WebGpuTestPlan = 'run' | 'skip' | 'fail';

/** CI (`CI=true`, as most CI services set it) or TURNGYM_REQUIRE_WEBGPU=1 (set by .ci/run). */
function webGpuRequired(env: NodeJS.ProcessEnv): boolean {
  const ci = (env.CI ?? '').trim().toLowerCase();
  return env.TURNGYM_REQUIRE_WEBGPU === '1' || (ci !== '' && ci !== 'false' && ci !== '0');
}

/**
 * Where Dawn, tfjs-webgpu and an adapter's libraries are present, the webgpu tests run. Where something is
 * missing (`missing` says what), they may skip on a developer's machine, but in CI that is a failure: .ci/run
 * installs the software adapter (Mesa's llvmpipe through EGL), so a webgpu path that stopped starting must turn
 * CI red, not leave the GPU path untested.
 */
export function webGpuTestPlan(missing: string | null, env: NodeJS.ProcessEnv): WebGpuTestPlan {
  if (missing === null) return 'run';
  return webGpuRequired(env) ? 'fail' : 'skip';
}

/**
 * True when this test file's webgpu tests run. Otherwise it registers one test that says why: skipped (its
 * name gives the reason, and `npm test` lists it), or failing in CI. Call it once, at the top of a test file.
 */
export function webGpuTestsRun(): boolean {
  const missing = webGpuPrerequisitesMissing();
  const plan = webGpuTestPlan(missing, process.env);
  if (plan === 'run') return true;
  if (plan === 'fail') {
    test('a webgpu adapter can start (CI)', () => {
      throw new Error(`No webgpu adapter can start here: ${missing}. .ci/run installs the software adapter.`);
    });
  } else {
    test.skip(`the webgpu tests: no adapter can start here (${missing}); CI fails here`, () => {});
  }
  return false;
}
