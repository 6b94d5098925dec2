'use strict';
// Runs the `turngym` command from the repository's TypeScript sources (compiled on the fly with swc, workspace
// packages resolved to their `src/index.ts`), so a test can spawn `turngym serve` as its own process without a
// build: `node run-cli-from-source.js serve <id> --plugin <module> --port 0`.
require('reflect-metadata');
const fs = require('node:fs');
const path = require('node:path');
const Module = require('node:module');
const { transformSync } = require('@swc/core');

const root = path.join(__dirname, '..', '..', '..', '..');
const packages = {};
for (const group of ['packages', 'environments', 'templates', 'benchmarks', 'trainers']) {
  const dir = path.join(root, group);
  if (!fs.existsSync(dir)) continue;
  for (const name of fs.readdirSync(dir)) {
    const manifest = path.join(dir, name, 'package.json');
    const entry = path.join(dir, name, 'src', 'index.ts');
    if (fs.existsSync(manifest) && fs.existsSync(entry))
      packages[JSON.parse(fs.readFileSync(manifest, 'utf8')).name] = entry;
  }
}
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return packages[request] ?? resolve.call(this, request, ...rest);
};
require.extensions['.ts'] = (module, filename) => {
  const { code } = transformSync(fs.readFileSync(filename, 'utf8'), {
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

const { runCli } = require(path.join(root, 'packages', 'cli', 'src', 'program.ts'));
void runCli(process.argv.slice(2)).then((code) => process.exit(code));
