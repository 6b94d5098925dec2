// Tests run from TypeScript sources through @swc/jest (fast, keeps decorator metadata for tsyringe).
// Workspace packages resolve to their `src/index.ts`, so no build is needed before `jest`.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const workspaceGlobs = ['packages', 'environments', 'trainers', 'benchmarks', 'templates'];
const moduleNameMapper = {};
for (const group of workspaceGlobs) {
  const root = path.join(__dirname, group);
  if (!fs.existsSync(root)) continue;
  for (const dir of fs.readdirSync(root)) {
    const manifest = path.join(root, dir, 'package.json');
    if (!fs.existsSync(manifest)) continue;
    const { name } = JSON.parse(fs.readFileSync(manifest, 'utf8'));
    if (fs.existsSync(path.join(root, dir, 'src', 'index.ts'))) {
      moduleNameMapper[`^${name.replace('/', '\\/')}$`] = path.join(root, dir, 'src', 'index.ts');
    }
  }
}

const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
      target: 'es2022',
    },
    module: { type: 'commonjs' },
    sourceMaps: 'inline',
  },
];

module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>'],
  testMatch: ['**/src/**/*.test.ts', '**/test/**/*.test.ts', '<rootDir>/scripts/*.test.js'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  // The CLI ships a build-time copy of templates/env; jest must see only the original package.
  modulePathIgnorePatterns: ['<rootDir>/packages/cli/template'],
  transform: { '^.+\\.tsx?$': swc },
  moduleNameMapper,
  setupFiles: ['reflect-metadata'],
  testTimeout: 30000,
  // At least two workers, where jest's default (cores − 1) gives one on a 2-core CI machine: much of a suite's time is
  // spent waiting on what it started (the CLI, npm, Chromium, sandbox and server processes), which the second worker
  // fills. The whole suite on 2 cores beside other work (a rough comparison): 56 min with one worker, 23 min with two.
  maxWorkers: Math.max(2, os.availableParallelism() - 1),
};
