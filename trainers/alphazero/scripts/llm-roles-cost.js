#!/usr/bin/env node
// What one AlphaZero search costs with LLM roles: buyer, judge and executor as `openai:` chat-model specs against a
// local OpenAI-compatible server (@turngym/llm's serveChatModel, the server `turngym serve-model` wraps), played by
// a small deterministic role-play model. Per search: env steps through forks, role calls (executor + buyer + judge
// per step), requests that reached the server, cache hits, and role tokens. Build first: `npx tsc -b trainers/alphazero`.
//   node trainers/alphazero/scripts/llm-roles-cost.js [--simulations 10,50] [--episodes 4]
// Against the real `turngym serve-model` (build packages/cli too): `--serve-model <positions>` serves, with the built
// CLI, the committed `benchmarks/learning/models/tiny-1m-copy` checkpoint (`--weights <dir>`: another) under a
// generated config.json whose max_position_embeddings is <positions>: the checkpoints' 1,024 tokens are shorter than
// the seller executor's prompt, and a RoPE model has no position table to grow, so only the limit changes (past
// 1,024 the model runs on positions it never trained on). It plays buyer and executor; the judge is simulated (the
// model writes no verdict JSON), e.g.
//   node trainers/alphazero/scripts/llm-roles-cost.js --serve-model 4096 --simulations 10 --episodes 1 --max-tokens 24
'use strict';
const { spawn } = require('node:child_process');
const { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { JUDGE_SYSTEM_PROMPT } = require('@turngym/env-seller');
const { ScriptedChatModel, serveChatModel } = require('@turngym/llm');
const { trainAlphaZero } = require('../dist/index.js');

function flag(name, fallback) {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? process.argv[index + 1] : fallback;
}

// A buyer who warms to questions and answers, leaves when threatened or pressed too early; a judge who rules on the
// buyer's warmth. Replies depend only on the messages, as a temperature-0 model's would.
function reply(request) {
  const messages = request.messages;
  const system = messages[0]?.content ?? '';
  const users = messages.filter((message) => message.role === 'user').map((message) => message.content);
  if (system === JUDGE_SYSTEM_PROMPT) {
    const warm = (users.at(-1)?.match(/Buyer: (Good question|Tell me more|I see)/g) ?? []).length;
    if (/Buyer: Go away/.test(users.at(-1) ?? '')) return '{"reasoning":"Left.","score":0,"verdict":"refuse"}';
    return warm >= 3
      ? '{"reasoning":"Convinced.","score":4,"verdict":"buy"}'
      : `{"reasoning":"Warming up.","score":${Math.min(warm, 3)},"verdict":"continue"}`;
  }
  if (system.startsWith('You are a salesperson in the street')) return users.at(-1)?.split('.')[0] ?? 'Hello.';
  const said = users.at(-1) ?? '';
  if (/threat|impatien|quick decision/i.test(said)) return 'Go away.';
  if (/\bask\b/i.test(said)) return 'Good question, let me think.';
  if (/answer|empathi/i.test(said)) return 'I see, that helps.';
  return 'Tell me more.';
}

/** Replies in the env's role cache file (JSON lines): one per request that reached the server. */
function cacheEntries(path) {
  if (!existsSync(path)) return 0;
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '').length;
}

/**
 * A copy of a committed checkpoint with a `positions`-token context, served by `turngym serve-model` (the built
 * CLI, a child process); resolves once it prints its URL.
 */
async function serveLongContextModel(root, positions) {
  const weights = flag(
    'weights',
    join(__dirname, '..', '..', '..', 'benchmarks', 'learning', 'models', 'tiny-1m-copy'),
  );
  const checkpoint = join(root, `long-${positions}`);
  cpSync(weights, checkpoint, { recursive: true });
  const config = JSON.parse(readFileSync(join(checkpoint, 'config.json'), 'utf8'));
  writeFileSync(
    join(checkpoint, 'config.json'),
    `${JSON.stringify({ ...config, max_position_embeddings: positions }, null, 2)}\n`,
  );
  const bin = join(__dirname, '..', '..', '..', 'packages', 'cli', 'bin', 'turngym.js');
  const args = [bin, 'serve-model', '--checkpoint', checkpoint, '--port', '0', '--model-name', 'tiny-long'];
  const child = spawn(process.execPath, [...args, '--backend', flag('backend', 'wasm')], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // The server must not outlive this script, however it ends.
  process.on('exit', () => child.kill('SIGTERM'));
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(1));
  const baseURL = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const match = /at (http:\/\/\S+)/.exec(out);
      if (match) resolve(match[1].replace(/\/+$/, ''));
    });
    child.on('exit', (code) => reject(new Error(`turngym serve-model exited with ${code}: ${out}`)));
  });
  return { baseURL, close: async () => void child.kill('SIGTERM') };
}

async function main() {
  const simulationCounts = flag('simulations', '10,50').split(',').map(Number);
  const episodes = Number(flag('episodes', 4));
  const root = mkdtempSync(join(tmpdir(), 'alphazero-llm-cost-'));
  const positions = flag('serve-model');
  const served = positions ? await serveLongContextModel(root, Number(positions)) : undefined;
  const external = served?.baseURL ?? flag('base-url');
  const model = flag('model', served ? 'tiny-long' : 'role-play');
  const judge = flag('judge', served ? 'simulated' : `openai:${model}`);
  const backend = new ScriptedChatModel(reply, { id: 'role-play' });
  const server = served
    ? served
    : external
      ? { baseURL: external, close: async () => {} }
      : await serveChatModel(backend, { modelName: model });
  // Requests that reached the server: counted by the role-play model, or by the env's own cache misses.
  let externalRequests = 0;
  const requestCount = () => (external ? externalRequests : backend.requests.length);
  const lines = [
    `Roles: buyer and executor \`openai:${model}\`, judge \`${judge}\`${external ? ` at ${external}` : ' (local role-play model)'}.`,
    '',
    '| simulations | run | searches | env steps / search | role calls / search | server requests / search | cache hits | role tokens / search | wall s / search |',
    '|---:|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  try {
    for (const simulations of simulationCounts) {
      const envOptions = {
        buyer: `openai:${model}`,
        judge,
        executor: `openai:${model}`,
        llm: {
          baseURL: server.baseURL,
          maxRetries: 0,
          cachePath: join(root, `cache-${simulations}.json`),
          ...(flag('max-tokens') ? { maxTokens: Number(flag('max-tokens')) } : {}),
          // A model served from a CPU under load can take minutes over a long prompt; a timeout would void it.
          ...(served ? { timeoutMs: 600_000 } : {}),
        },
      };
      for (const run of ['cold cache', 'warm cache (rerun)']) {
        const before = requestCount();
        const cacheBefore = cacheEntries(join(root, `cache-${simulations}.json`));
        const rows = [];
        const result = await trainAlphaZero(
          {
            envId: 'turngym/seller-commander-v1',
            envOptions,
            runDir: join(root, `${simulations}-${run.split(' ')[0]}`),
            iterations: 1,
            episodesPerIteration: episodes,
            simulations,
            evalEpisodes: 0,
            quiet: true,
          },
          { onIteration: (row) => rows.push(row) },
        );
        result.net.dispose();
        const row = rows[0];
        const searches = row.global_step;
        const steps = row['search/env_steps'] * searches + searches; // the searches' steps + the moves played
        const roleCalls = (judge === 'simulated' ? 2 : 3) * steps;
        if (external) externalRequests += cacheEntries(join(root, `cache-${simulations}.json`)) - cacheBefore;
        const requests = requestCount() - before;
        lines.push(
          `| ${simulations} | ${run} | ${searches} | ${row['search/env_steps'].toFixed(1)} | ${(roleCalls / searches).toFixed(1)} | ${(requests / searches).toFixed(1)} | ${(100 * (1 - requests / roleCalls)).toFixed(0)}% | ${Math.round(row['search/llm_tokens'])} | ${(row['time/self_play_s'] / searches).toFixed(1)} |`,
        );
        process.stderr.write(`${lines.at(-1)}\n`);
      }
    }
  } finally {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  process.exit(0);
}

main().catch((error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(1);
});
