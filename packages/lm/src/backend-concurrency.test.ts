import { useBackend } from './backend';
import { wasmTestsRun } from './__fixtures__/wasm-tests';

// A file of its own: the race needs a process (a jest module registry) where wasm has not started yet.
const wasm = wasmTestsRun() ? it : it.skip;

describe('useBackend called concurrently', () => {
  wasm('starts wasm once for callers that do not wait for each other', async () => {
    // Two scorers in one process (the learning runner's) each load a model, and so each start the backend.
    await expect(Promise.all([useBackend('wasm'), useBackend('wasm'), useBackend('wasm')])).resolves.toEqual([
      'wasm',
      'wasm',
      'wasm',
    ]);
  });
});
