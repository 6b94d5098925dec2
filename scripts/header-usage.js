'use strict';
const { readFileSync } = require('node:fs');

/**
 * A script's usage, read from its header comment (the first block comment, ` * ` prefixes removed), so the
 * text `--help` prints is the one a reader of the file sees and the two cannot drift apart.
 */
function headerUsage(file) {
  const source = readFileSync(file, 'utf8');
  const start = source.indexOf('/**');
  const end = source.indexOf('*/', start);
  if (start < 0 || end < 0) throw new Error(`${file} has no header comment to print as its usage`);
  const usage = source
    .slice(start, end)
    .split('\n')
    .filter((line) => line.startsWith(' *'))
    .map((line) => line.replace(/^ \* ?/, ''))
    .join('\n');
  return `${usage.trim()}\n`;
}

module.exports = { headerUsage };
