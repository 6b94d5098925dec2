import { readFileSync } from 'node:fs';
import ivm from 'isolated-vm';
import { locateWorkerFiles } from './sandbox-process';

// The runtime driven directly, as the worker drives it (same source assembly as worker/sandbox-worker.js), for the
// guard the worker never exercises: node:assert is built only before untrusted code, never after.
type Argument = string | number | boolean;
type Dispatch = ivm.Reference<(...args: Argument[]) => string>;

function freshDispatch(isolate: ivm.Isolate): Dispatch {
  const { runtime } = locateWorkerFiles();
  const asExpression = (path: string): string => readFileSync(path, 'utf8').trimEnd().replace(/;$/, '');
  const source = `(${asExpression(runtime)})(${asExpression(runtime.replace(/isolate-runtime\.js$/, 'node-assert.js'))});`;
  const context = isolate.createContextSync();
  return isolate.compileScriptSync(source).runSync(context, { reference: true, timeout: 2000 });
}

describe('the isolate runtime', () => {
  const isolate = new ivm.Isolate({ memoryLimit: 32 });
  afterAll(() => isolate.dispose());
  const call = (dispatch: Dispatch, ...args: Argument[]): unknown =>
    dispatch.applySync(undefined, args, { timeout: 2000 });

  it('builds node:assert when configured for it, before any untrusted code', () => {
    const dispatch = freshDispatch(isolate);
    call(dispatch, 'configure', 1000, true);
    expect(call(dispatch, 'runSnippet', "typeof require('node:assert').deepStrictEqual")).toBe(
      '{"status":"ok","value":"\\"function\\""}',
    );
  });

  it('refuses to build node:assert once untrusted code has been defined or run', () => {
    const dispatch = freshDispatch(isolate);
    call(dispatch, 'configure', 1000, false);
    // A patched intrinsic that a late-built node:assert would capture.
    call(dispatch, 'defineModule', 'a.js', 'Object.is = () => true;', 'code', false);
    expect(() => call(dispatch, 'configure', 1000, true)).toThrow(/configure must come before any untrusted code/);
    expect(call(dispatch, 'runSnippet', "require('assert')")).toMatch(
      /Cannot load 'assert': the sandbox loads node:assert only for code that names it/,
    );
  });
});
