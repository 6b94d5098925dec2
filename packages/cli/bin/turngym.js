#!/usr/bin/env node
'use strict';
// The `turngym` command npm links. npm links a package's bins at install time, before the root `prepare`
// script builds dist/, and skips a bin whose file does not exist yet: a bin pointing into dist/ left a fresh
// clone without `npx turngym`. This committed shim always exists, so the link is made; it loads the build.
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const built = join(__dirname, '..', 'dist', 'bin.js');
if (!existsSync(built)) {
  process.stderr.write(
    `error: the turngym CLI is not built (${built} is missing). ` +
      'Build it: `npm run build` at the repository root, or `npx tsc -b packages/cli`.\n',
  );
  process.exit(1);
}
require(built);
