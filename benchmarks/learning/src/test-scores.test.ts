import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ByteTokenizer, CheckpointError, LanguageModel, saveCheckpoint, testConfig } from '@turngym/lm';
import type { Experiment } from './experiments';
import { cachedScore, gainedAndLost, scoreOnTestTasks, signTestP, type TestScore } from './test-scores';

const score = (wins: string): TestScore => ({
  checkpoint: 'x',
  adapter: null,
  episodes: wins.length,
  successRate: [...wins].filter((win) => win === '1').length / wins.length,
  meanReturn: 0,
  wins,
});

describe('comparing a run with its start task by task', () => {
  it('counts the tasks gained and lost, not the net change', () => {
    expect(gainedAndLost(score('0101100'), score('0011101'))).toEqual({ gained: 2, lost: 1 });
    expect(gainedAndLost(score('0000'), score('0000'))).toEqual({ gained: 0, lost: 0 });
  });

  it('gives the exact two-sided sign test', () => {
    // By hand: 2 · (C(13,0) + C(13,1) + C(13,2)) / 2^13 = 2 · 92 / 8192.
    expect(signTestP(11, 2)).toBeCloseTo(184 / 8192, 12);
    expect(signTestP(2, 11)).toBeCloseTo(184 / 8192, 12);
    // 4 of 4 one way: 2 / 16; an even split or nothing changed: 1.
    expect(signTestP(4, 0)).toBeCloseTo(0.125, 12);
    expect(signTestP(5, 5)).toBe(1);
    expect(signTestP(0, 0)).toBe(1);
  });
});

describe('sampled scores', () => {
  const experiment: Experiment = {
    name: 'math',
    envId: 'turngym/math-thought-calc-v1',
    envOptions: { difficulties: [1], kinds: ['arithmetic'] },
    sft: [],
    rl: { evalEpisodes: 3, maxActionTokens: 8, maxRolloutTokens: 24, instructions: false, maxBatch: 8 },
    grpo: {},
    treeGrpo: {},
    budgets: [],
    seeds: [],
  };
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'turngym-scores-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('scores every test task several times at temperature 1, and a greedy score once', async () => {
    const model = LanguageModel.create(testConfig({ maxPositions: 512 }), { seed: 3, tokenizer: new ByteTokenizer() });
    await saveCheckpoint(model, join(dir, 'tiny'));
    model.dispose();
    const sampled = await scoreOnTestTasks(experiment, join(dir, 'tiny'), null, 2);
    expect(sampled).toMatchObject({ episodes: 6, samples: 2 });
    expect(sampled.wins).toMatch(/^[01]{6}$/);
    const greedy = await scoreOnTestTasks(experiment, join(dir, 'tiny'));
    expect(greedy.episodes).toBe(3);
    expect(greedy.samples).toBeUndefined();
  });

  it('a saved score is reused only for the same kind of score', async () => {
    const file = join(dir, 'final-sampled.json');
    const saved = { checkpoint: 'x', adapter: null, episodes: 6, successRate: 0.5, meanReturn: 0.5, wins: '101010' };
    writeFileSync(file, JSON.stringify({ ...saved, samples: 2, tag: 'iteration 9' }));
    // Served from the file: the checkpoint does not even exist.
    await expect(
      cachedScore(file, experiment, join(dir, 'missing'), { tag: 'iteration 9', samples: 2 }),
    ).resolves.toMatchObject({
      successRate: 0.5,
      samples: 2,
    });
    // A greedy score, or another number of samples, is not that file's: it is scored afresh (and fails here).
    await expect(cachedScore(file, experiment, join(dir, 'missing'), { tag: 'iteration 9' })).rejects.toThrow(
      CheckpointError,
    );
    await expect(
      cachedScore(file, experiment, join(dir, 'missing'), { tag: 'iteration 9', samples: 4 }),
    ).rejects.toThrow(/missing does not exist/);
  });
});
