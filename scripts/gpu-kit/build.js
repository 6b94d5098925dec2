#!/usr/bin/env node
// Builds the GPU kit (issue 30): one self-contained archive that runs the webgpu LM benchmark and a short
// training run on a machine that has a GPU driver but neither Node nor this repository. docs/gpu.md has
// the commands. Usage: node scripts/gpu-kit/build.js [out.tar.gz | out.tgz | out.tar.xz | out.txz]
// (default: turngym-gpu-kit.tar.gz; the name decides the compression, kit-output.js)
//
// The archive holds turngym-gpu-kit/ with
//   node        this machine's Node binary (process.execPath; it links only libc/libstdc++)
//   dawn.node   Dawn for Node, from the `webgpu` package
//   kit.js      benchmarks/perf's gpu-kit-main bundled with esbuild (tfjs, its webgpu and wasm backends, lm)
//   learn.js    benchmarks/learning's gpu-learning-run bundled likewise (GRPO on the math env, issue 30 item 5)
//   math-warm-start/  the committed math warm start, where learn.js starts from
//   *.wasm      tfjs's wasm binaries, which kit.js loads from its own folder (the benchmark's wasm baseline)
//   lib/        libvulkan.so.1 (the Vulkan loader, from Debian's libvulkan1) and a libEGL.so link
//   run.sh      puts lib/ on LD_LIBRARY_PATH, names dawn.node, runs kit.js with the arguments given (launcher.js)
//   learn.sh    the same for learn.js
// The GPU's own Vulkan driver (NVIDIA's ICD, nvidia_icd.json + its library) comes from the machine.
'use strict';
const { execFileSync } = require('node:child_process');
const {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} = require('node:fs');
const { tmpdir } = require('node:os');
const { dirname, join, resolve } = require('node:path');
const { kitOutput } = require('./kit-output');
const { launcher } = require('./launcher');

const root = resolve(__dirname, '../..');
const LIMIT = 64 * 1024 * 1024;

function fail(message) {
  console.error(`gpu-kit: ${message}`);
  process.exit(1);
}

let output;
try {
  output = kitOutput(process.argv[2]);
} catch (error) {
  fail(error.message);
}
const out = output.path;
// Checked before the minute of bundling: tar does not create the folder, and its failure came as a stack trace.
if (!existsSync(dirname(out))) fail(`${dirname(out)} does not exist: create it, or name another folder for the kit`);

/** The first of `names` in the usual library directories, resolved to the file. */
function systemLibrary(...names) {
  for (const dir of ['/usr/lib/x86_64-linux-gnu', '/lib/x86_64-linux-gnu', '/usr/lib64', '/usr/lib']) {
    for (const name of names) if (existsSync(join(dir, name))) return realpathSync(join(dir, name));
  }
  return null;
}

const entry = join(root, 'benchmarks/perf/dist/gpu-kit-main.js');
const learnEntry = join(root, 'benchmarks/learning/dist/gpu-learning-run.js');
for (const file of [entry, learnEntry]) {
  if (!existsSync(file)) fail(`${file} is missing: build first (npx tsc -b benchmarks/perf benchmarks/learning)`);
}
const warmStart = join(root, 'benchmarks/learning/models/math-warm-start');
let dawn;
try {
  dawn = join(dirname(require.resolve('webgpu/package.json', { paths: [root] })), 'dist/linux-x64/dawn.node');
} catch {
  fail('the `webgpu` package is not installed (npm install)');
}
const vulkan = systemLibrary('libvulkan.so.1');
if (!vulkan) fail('no libvulkan.so.1: apt-get install -y --no-install-recommends libvulkan1');
const wasmDir = join(dirname(require.resolve('@tensorflow/tfjs-backend-wasm/package.json', { paths: [root] })), 'dist');

const stage = mkdtempSync(join(tmpdir(), 'turngym-gpu-kit-'));
const kit = join(stage, 'turngym-gpu-kit');
mkdirSync(join(kit, 'lib'), { recursive: true });
try {
  const esbuild = require(require.resolve('esbuild', { paths: [root] }));
  for (const [from, to] of [
    [entry, 'kit.js'],
    [learnEntry, 'learn.js'],
  ]) {
    esbuild.buildSync({
      entryPoints: [from],
      outfile: join(kit, to),
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'cjs',
      // Whitespace and syntax only: the wasm threads' worker bootstrap (lm's wasm-threads.ts) names variables
      // of tfjs-wasm's module by their source names, which minifying identifiers would change.
      minifyWhitespace: true,
      minifySyntax: true,
      legalComments: 'none',
      logLevel: 'error',
      // Loaded with require(<computed path>) at run time, found beside kit.js or not at all.
      external: ['*.node', '@tensorflow/tfjs-node', '@tensorflow/tfjs-node-gpu'],
    });
  }
  cpSync(warmStart, join(kit, 'math-warm-start'), { recursive: true });
  copyFileSync(process.execPath, join(kit, 'node'));
  chmodSync(join(kit, 'node'), 0o755);
  copyFileSync(dawn, join(kit, 'dawn.node'));
  // Debug sections are ~13 MB of Debian's Node; the dynamic symbols Node and Dawn load by stay. Without binutils'
  // strip the kit is only larger.
  for (const binary of ['node', 'dawn.node']) {
    try {
      execFileSync('strip', ['--strip-unneeded', join(kit, binary)], { stdio: 'ignore' });
    } catch {
      console.warn(`gpu-kit: could not strip ${binary} (binutils' strip missing?); the kit is larger`);
    }
  }
  for (const name of [
    'tfjs-backend-wasm.wasm',
    'tfjs-backend-wasm-simd.wasm',
    'tfjs-backend-wasm-threaded-simd.wasm',
  ]) {
    copyFileSync(join(wasmDir, name), join(kit, name));
  }
  copyFileSync(vulkan, join(kit, 'lib/libvulkan.so.1'));
  // Dawn's OpenGL ES backend opens the unversioned libEGL.so, which only Debian's -dev package provides.
  symlinkSync('/usr/lib/x86_64-linux-gnu/libEGL.so.1', join(kit, 'lib/libEGL.so'));
  writeFileSync(join(kit, 'run.sh'), launcher('kit.js', 'webgpu-vs-wasm LM benchmark and short training run'));
  writeFileSync(join(kit, 'learn.sh'), launcher('learn.js', 'GRPO run of the math learning table'));
  chmodSync(join(kit, 'run.sh'), 0o755);
  chmodSync(join(kit, 'learn.sh'), 0o755);
  // xz where the name asks for it (kit-output.js): about a third smaller than gzip (the Node binary dominates).
  execFileSync('tar', [output.tarFlag, out, '-C', stage, 'turngym-gpu-kit'], {
    env: { ...process.env, XZ_OPT: process.env.XZ_OPT ?? '-T0' },
  });
} finally {
  rmSync(stage, { recursive: true, force: true });
}
const size = statSync(out).size;
console.log(`${out}: ${(size / 2 ** 20).toFixed(1)} MiB`);
if (size > LIMIT) fail(`the kit is ${(size / 2 ** 20).toFixed(1)} MiB, over the 64 MiB limit`);
