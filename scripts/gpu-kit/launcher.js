'use strict';
// The kit's launchers (run.sh, learn.sh): find the kit's own folder, put its lib/ first on the library path,
// name dawn.node, and run a bundle with the kit's Node.

/**
 * A POSIX sh script that runs `bundle` (beside it) with the kit's Node and the arguments given. The folder is
 * found with CDPATH cleared: with CDPATH exported (some shells' profiles do), `cd` prints the folder it chose,
 * the folder's name was read twice, and the launcher exec'd "<dir>\n<dir>/node": not found.
 */
function launcher(bundle, what) {
  return [
    '#!/bin/sh',
    `# Runs the kit's ${what} (flags: docs/gpu.md).`,
    'dir=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd)',
    'export LD_LIBRARY_PATH="$dir/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"',
    'export TURNGYM_DAWN_NODE="$dir/dawn.node"',
    'export TURNGYM_WEBGPU_BUNDLED=1',
    // wasm on every core (at most 8, tfjs's pool): the fairest CPU baseline.
    'export TURNGYM_LM_THREADS="${TURNGYM_LM_THREADS:-auto}"',
    `exec "$dir/node" "$dir/${bundle}" "$@"`,
    '',
  ].join('\n');
}

module.exports = { launcher };
