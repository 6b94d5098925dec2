'use strict';
const { expect, it } = require('@jest/globals');
const { mkdtempSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { headerUsage } = require('./header-usage');

function script(text) {
  const file = join(mkdtempSync(join(tmpdir(), 'usage-')), 'script.js');
  writeFileSync(file, text);
  return file;
}

it("prints the header comment's lines without their prefixes, and not the code after it", () => {
  const file = script(
    "'use strict';\n/**\n * Trains a thing.\n *\n *   node script.js --seed 1\n */\nconst x = 1; // * not usage\n",
  );
  expect(headerUsage(file)).toBe('Trains a thing.\n\n  node script.js --seed 1\n');
});

it('names the file when it has no header comment', () => {
  const file = script('const x = 1;\n');
  expect(() => headerUsage(file)).toThrow(/script\.js has no header comment/);
});
