'use strict';
/**
 * Lets a test spawn a TypeScript script from source (`node -r ./ts-register.js script.ts`): .ts files are
 * compiled with @swc/core as jest compiles them, and @turngym/* imports resolve to each package's
 * src/index.ts, as in jest.config.js (every workspace group). So a subprocess test needs no build.
 */
const fs = require('node:fs');
const path = require('node:path');
const Module = require('node:module');
const { transformSync } = require('@swc/core');
require('reflect-metadata');

const root = path.resolve(__dirname, '..', '..', '..', '..');
const sources = new Map();
for (const group of ['packages', 'environments', 'templates', 'benchmarks', 'trainers']) {
  const dir = path.join(root, group);
  if (!fs.existsSync(dir)) continue;
  for (const name of fs.readdirSync(dir)) {
    const manifest = path.join(dir, name, 'package.json');
    const index = path.join(dir, name, 'src', 'index.ts');
    if (fs.existsSync(manifest) && fs.existsSync(index)) {
      sources.set(JSON.parse(fs.readFileSync(manifest, 'utf8')).name, index);
    }
  }
}

const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return resolveFilename.call(this, sources.get(request) ?? request, ...rest);
};

Module._extensions['.ts'] = function (module, filename) {
  const { code } = transformSync(fs.readFileSync(filename, 'utf8'), {
    filename,
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
      target: 'es2022',
    },
    module: { type: 'commonjs' },
    sourceMaps: 'inline',
  });
  module._compile(code, filename);
};
