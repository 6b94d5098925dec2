// A suite run in a child process, straight from the TypeScript sources (no build needed), for the test
// that kills a run with SIGKILL and resumes it. argv: <out dir> <episode count> <pause after>. Once <pause after>
// episodes are in the journal, every agent stops at its next action and the child prints `paused <n>`: the
// parent kills it then, mid-run with episodes in flight, whatever the speed of the machine.
'use strict';
const { readFileSync } = require('node:fs');
const Module = require('node:module');
const { join, resolve } = require('node:path');
const { transformSync } = require('@swc/core');

const root = resolve(__dirname, '..', '..', '..', '..');
const sources = {
  '@turngym/spec': 'packages/spec/src/index.ts',
  '@turngym/core': 'packages/core/src/index.ts',
  '@turngym/llm': 'packages/llm/src/index.ts',
  '@turngym/env-example': 'templates/env/src/index.ts',
};
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return sources[request] ? join(root, sources[request]) : resolveFilename.call(this, request, ...rest);
};
require.extensions['.ts'] = (module, filename) => {
  const { code } = transformSync(readFileSync(filename, 'utf8'), {
    filename,
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
      target: 'es2022',
    },
    module: { type: 'commonjs' },
  });
  module._compile(code, filename);
};
require('reflect-metadata');

const { faults, testRegistry, tinySuite } = require('./test-envs.ts');
const { resolveSuiteAgent, runSuite } = require('../index.ts');

const [outDir, count, pauseAfter] = process.argv.slice(2);
const suite = tinySuite([{ envId: 'test/faulty-v1', seeds: { start: 0, count: Number(count) } }], 'kill-v1');
const onEpisode = ({ done }) => {
  if (done !== Number(pauseAfter)) return;
  // Never released, and the timer keeps the process alive (a pending promise alone would let it exit):
  // the parent kills it.
  faults.hold = new Promise(() => setInterval(() => undefined, 60_000));
  process.stdout.write(`paused ${done}\n`);
};
runSuite({
  suite,
  agent: resolveSuiteAgent('faulty'),
  registry: testRegistry(),
  outDir,
  concurrency: 2,
  onEpisode,
}).then(
  () => process.stdout.write('finished\n'),
  (error) => {
    process.stderr.write(`${error.stack}\n`);
    process.exit(1);
  },
);
