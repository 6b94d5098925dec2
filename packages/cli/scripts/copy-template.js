#!/usr/bin/env node
// Ships the env template inside the CLI package, so an installed CLI can scaffold without the monorepo.
// Runs at `npm pack` / `npm publish` ("prepack"; "postpack" removes it again). From a checkout,
// `turngym new-env` reads templates/env directly (see src/template-source.ts).
//
// Layout (neutral names, so nothing here looks like a workspace package or a test to npm, jest or tsc):
//   template/manifest.json          templates/env/package.json
//   template/tsconfig.template.json templates/env/tsconfig.json
//   template/tsconfig.base.json     tsconfig.base.json (the compiler options the template extends)
//   template/sources/…              templates/env/src/…
//
// Usage: node scripts/copy-template.js [target-dir]   (default: packages/cli/template)
//        node scripts/copy-template.js --remove
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const packageRoot = path.resolve(__dirname, '..');
const monorepoRoot = path.resolve(packageRoot, '..', '..');
const source = path.join(monorepoRoot, 'templates', 'env');
const defaultTarget = path.join(packageRoot, 'template');

if (process.argv[2] === '--remove') {
  fs.rmSync(defaultTarget, { recursive: true, force: true });
  process.exit(0);
}
const target = path.resolve(process.argv[2] ?? defaultTarget);

if (!fs.existsSync(path.join(source, 'package.json'))) {
  console.error(`copy-template: ${source} not found (run this from a TurnGym checkout)`);
  process.exit(1);
}

fs.rmSync(target, { recursive: true, force: true });
fs.mkdirSync(target, { recursive: true });
fs.cpSync(path.join(source, 'src'), path.join(target, 'sources'), { recursive: true });
fs.copyFileSync(path.join(source, 'package.json'), path.join(target, 'manifest.json'));
fs.copyFileSync(path.join(source, 'tsconfig.json'), path.join(target, 'tsconfig.template.json'));
fs.copyFileSync(path.join(monorepoRoot, 'tsconfig.base.json'), path.join(target, 'tsconfig.base.json'));
