import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readEpisodeRecords, Registry } from '@turngym/core';
import { register, SELLER_COMMANDER_ID } from '@turngym/env-seller';
import { resolveSuiteAgent, runSuite, validateSuite } from '@turngym/leaderboard';
import { ScriptedChatModel } from '@turngym/llm';

// The seller's LLM judge and the leaderboard's runner together: an episode whose judge never answers usably is
// errored (counted, with the reason) and left out of the success rate, not scored as a lost sale.
describe('turngym bench with a seller judge that never answers usably', () => {
  let out: string;
  beforeAll(() => {
    out = mkdtempSync(join(tmpdir(), 'turngym-seller-role-unusable-'));
  });
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('records those episodes as errored (ROLE_UNUSABLE) and scores only the others', async () => {
    const unusableSeeds = new Set([1, 2]);
    // Rules "buy" at once, except on the unusable seeds, where it never writes a verdict that parses.
    const judge = new ScriptedChatModel(
      (request) =>
        unusableSeeds.has(request.seed as number)
          ? 'They will surely buy!'
          : '{"reasoning": "Convinced.", "score": 4, "verdict": "buy"}',
      { id: 'scripted-judge' },
    );
    const registry = new Registry();
    register(registry);
    const run = await runSuite({
      suite: validateSuite({
        id: 'seller-judge-v1',
        description: 'Seller with a scripted LLM judge.',
        entries: [{ envId: SELLER_COMMANDER_ID, seeds: { start: 0, count: 4 } }],
      }),
      agent: resolveSuiteAgent('scripted'),
      registry,
      outDir: out,
      dependencies: () => ({ judge }),
      resamples: 100,
    });
    const env = run.result.envs[0];
    expect(env).toMatchObject({ episodes: 4, scored: 2, errored: 2 });
    expect(env?.errors?.map((error) => [error.seed, error.code, error.retryable])).toEqual([
      [1, 'ROLE_UNUSABLE', false],
      [2, 'ROLE_UNUSABLE', false],
    ]);
    expect(env?.errors?.[0]?.message).toMatch(
      /the judge role \(scripted-judge\) gave no usable answer in 3 attempts \(last: no JSON object in the answer/,
    );
    // Two sales out of two scored episodes: the errored ones are not lost sales.
    expect(env?.metrics?.success.mean).toBe(1);
    expect(env?.metrics?.reward.mean).toBe(1);
    expect(run.result.overall).toMatchObject({ episodes: 4, scored: 2, errored: 2 });
    const records = readEpisodeRecords(join(run.runDirectory, 'records.jsonl'));
    expect(
      records
        .filter((record) => !record.complete)
        .map((record) => record.seed)
        .sort(),
    ).toEqual([1, 2]);
    expect(records.filter((record) => !record.complete).every((record) => record.totalReward === 0)).toBe(true);
  });
});
