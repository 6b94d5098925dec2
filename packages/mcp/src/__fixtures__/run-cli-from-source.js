'use strict';
// Runs the `turngym` command from the repository's TypeScript sources (rl's ts-register.js compiles them on the fly
// and resolves workspace packages to their src/index.ts), so a test can spawn `turngym serve --mcp` as its own
// process, as an MCP host does, without a build.
const path = require('node:path');
require('../../../rl/src/__fixtures__/ts-register.js');

const { runCli } = require(path.join(__dirname, '..', '..', '..', 'cli', 'src', 'program.ts'));
void runCli(process.argv.slice(2)).then((code) => process.exit(code));
