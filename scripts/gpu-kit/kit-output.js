'use strict';
// Where the GPU kit is written and how it is compressed, from the name build.js is given. The name decides:
// docs/gpu.md unpacks a .tar.xz with `tar xJf`, so an archive whose name says xz must be xz (a .txz came out
// gzip and tar refused it on the GPU machine), and a name that says neither is refused before the minute of
// bundling rather than written as a gzip archive under a misleading name.
const { resolve } = require('node:path');

const FORMATS = [
  { suffixes: ['.tar.xz', '.txz'], tarFlag: '-cJf' },
  { suffixes: ['.tar.gz', '.tgz'], tarFlag: '-czf' },
];

/**
 * The archive build.js writes for its argument (default turngym-gpu-kit.tar.gz in the current folder):
 * `{ path, tarFlag }` (tar's -cJf for xz, -czf for gzip). Throws a RangeError naming the accepted suffixes for any other name.
 */
function kitOutput(name = 'turngym-gpu-kit.tar.gz') {
  const path = resolve(name);
  const lower = path.toLowerCase();
  const format = FORMATS.find(({ suffixes }) => suffixes.some((suffix) => lower.endsWith(suffix)));
  if (!format) {
    const accepted = FORMATS.flatMap(({ suffixes }) => suffixes).join(', ');
    throw new RangeError(`${name}: the kit's name must end in one of ${accepted} (it decides the compression)`);
  }
  return { path, tarFlag: format.tarFlag };
}

module.exports = { kitOutput };
