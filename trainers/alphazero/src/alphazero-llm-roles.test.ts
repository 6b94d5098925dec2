import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from '@turngym/core';
import { JUDGE_SYSTEM_PROMPT, register, SELLER_COMMANDER_ID } from '@turngym/env-seller';
import { ScriptedChatModel, serveChatModel, type ChatModelServer, type ChatRequest } from '@turngym/llm';
import { trainAlphaZero, type AlphaZeroArgs } from './index';

const lastUser = (request: ChatRequest): string =>
  [...request.messages].reverse().find((message) => message.role === 'user')?.content ?? '';

/**
 * One model plays every role behind one OpenAI-compatible endpoint (told apart by the system prompt, as one
 * vLLM server would): the executor says a line per meta-action, the buyer leaves at a threat and asks how to
 * order after two pitches, the judge rules on the buyer's last line. Deterministic, so the test can count.
 */
function rolePlay(request: ChatRequest): string {
  const system = request.messages[0]?.content ?? '';
  if (system === JUDGE_SYSTEM_PROMPT) {
    const buyer =
      lastUser(request)
        .split('\n')
        .filter((line) => line.startsWith('Buyer: '))
        .at(-1) ?? '';
    if (/how do i order/i.test(buyer)) return '{"reasoning": "Asks how to order.", "score": 4, "verdict": "buy"}';
    if (/goodbye/i.test(buyer)) return '{"reasoning": "The buyer left.", "score": 0, "verdict": "refuse"}';
    return '{"reasoning": "Listening.", "score": 2, "verdict": "continue"}';
  }
  if (system.startsWith('You are a salesperson in the street')) {
    const instruction = lastUser(request);
    if (/threat|hit/i.test(instruction)) return 'Buy it now or I will hit you.';
    if (/greet/i.test(instruction)) return 'Hello there! Do you have a minute?';
    return 'It is light and tough, and the price is fair.';
  }
  const sellerLines = request.messages.filter((message) => message.role === 'user').map((message) => message.content);
  if (/hit you/.test(sellerLines.at(-1) ?? '')) return 'Leave me alone. Goodbye.';
  const pitches = sellerLines.filter((line) => line.includes('light and tough')).length;
  return pitches >= 2 ? 'Alright, how do I order one?' : 'That sounds interesting.';
}

describe('AlphaZero with LLM roles through the openai client and a local OpenAI-compatible server', () => {
  let root: string;
  let server: ChatModelServer;
  let backend: ScriptedChatModel;
  const registry = new Registry();
  register(registry);

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'alphazero-llm-'));
    backend = new ScriptedChatModel(rolePlay, { id: 'role-play' });
    server = await serveChatModel(backend, { modelName: 'role-play' });
  });
  afterEach(async () => {
    await server.close();
    await rm(root, { recursive: true, force: true });
  });

  it('searches and trains with buyer, judge and executor as chat-model specs; a rerun is answered from the cache alone', async () => {
    const envOptions = {
      buyer: 'openai:role-play',
      judge: 'openai:role-play',
      executor: 'openai:role-play',
      rounds: 4,
      llm: { baseURL: server.baseURL, maxRetries: 0, cachePath: join(root, 'role-cache.json') },
    };
    const args = (runDir: string): Partial<AlphaZeroArgs> => ({
      envId: SELLER_COMMANDER_ID,
      envOptions,
      testEnvOptions: { ...envOptions, split: 'test' },
      runDir: join(root, runDir),
      iterations: 2,
      episodesPerIteration: 2,
      simulations: 6,
      trainTasks: [0, 1],
      evalTasks: [0],
      evalEpisodes: 1,
      updatesPerIteration: 2,
      batchSize: 8,
      quiet: true,
    });
    const first: Record<string, number>[] = [];
    await trainAlphaZero(args('first'), { registry, onIteration: (row) => first.push(row) }).then((r) =>
      r.net.dispose(),
    );
    const served = backend.requests.length;
    expect(served).toBeGreaterThan(0);
    // Every simulation steps a fork at least once, each step asks executor, buyer and judge.
    for (const row of first) {
      expect(row['search/env_steps']).toBeGreaterThanOrEqual(6);
      expect(row['search/llm_tokens']).toBeGreaterThan(0);
    }
    // Search found the sale the role-play allows (two pitches, no threat) at least once in self-play.
    expect(Math.max(...first.map((row) => row['charts/success_rate']!))).toBeGreaterThan(0);

    const second: Record<string, number>[] = [];
    await trainAlphaZero(args('second'), { registry, onIteration: (row) => second.push(row) }).then((r) =>
      r.net.dispose(),
    );
    // Same seeds, same cached replies: the same searches, and not one request reached the server.
    expect(backend.requests.length).toBe(served);
    const strip = (rows: Record<string, number>[]) =>
      rows.map((row) => Object.fromEntries(Object.entries(row).filter(([name]) => !/^time\/|SPS/.test(name))));
    expect(strip(second)).toEqual(strip(first));
  }, 60_000);
});
