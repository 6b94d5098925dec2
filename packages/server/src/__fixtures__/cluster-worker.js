'use strict';
// A worker of `serveWorkers` for this package's tests (its `exec`): the test envs, served from the TypeScript
// sources (rl's ts-register.js compiles them on the fly), so a cluster test needs no build.
require('../../../rl/src/__fixtures__/ts-register.js');

const { serveAsWorker } = require('../serve-as-worker.ts');
const { ALL_IDS, testRegistry } = require('./test-envs.ts');

void serveAsWorker({ registry: testRegistry(), ids: ALL_IDS });
