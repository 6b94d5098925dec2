#!/usr/bin/env node
// Measures the README's baselines of turngym/seller-commander-v1 (simulated roles, test split):
// random, the best fixed sequence, the scripted expert and MCTS through fork().
// Build first: `npx tsc -b environments/seller`, then from the repo root:
//   node environments/seller/scripts/measure-baselines.js [--simulations 4000] [--mcts-episodes 164]
//     [--search-tasks 150] [--restarts 4] [--sweeps 4] [--seed 1] [--write results.md]
'use strict';
const { writeFileSync } = require('node:fs');
const { cpus } = require('node:os');
const { measureSellerBaselines, formatBaselineTable } = require('../dist/index.js');

function flag(name, fallback) {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? process.argv[index + 1] : fallback;
}

async function main() {
  const options = {
    mctsSimulations: Number(flag('simulations', 4000)),
    mctsEpisodes: Number(flag('mcts-episodes', 164)),
    searchTasks: Number(flag('search-tasks', 150)),
    searchRestarts: Number(flag('restarts', 4)),
    searchSweeps: Number(flag('sweeps', 4)),
    seed: Number(flag('seed', 1)),
    onProgress: (line) => process.stderr.write(`${line}\n`),
  };
  const started = Date.now();
  const rows = await measureSellerBaselines(options);
  const text = [
    `Measured by \`node environments/seller/scripts/measure-baselines.js --simulations ${options.mctsSimulations} --mcts-episodes ${options.mctsEpisodes} --search-tasks ${options.searchTasks} --restarts ${options.searchRestarts} --sweeps ${options.searchSweeps} --seed ${options.seed}\``,
    `(${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${cpus().length} cores, ${Math.round((Date.now() - started) / 1000)} s).`,
    '',
    formatBaselineTable(rows),
    '',
  ].join('\n');
  process.stdout.write(text);
  const target = flag('write');
  if (target) writeFileSync(target, text);
}

main().catch((error) => {
  process.stderr.write(`${error.stack || error}\n`);
  process.exit(1);
});
