import { BaseEnv, type EnvResetOutcome, type EnvStepOutcome } from '@turngym/core';
import { ByteTokenizer, LanguageModel, testConfig, useBackend } from '@turngym/lm';
import type { Action, EnvSpec } from '@turngym/spec';
import { SMOKE_BACKEND } from '../../../packages/rl/src/__fixtures__/trainer-smoke';
import { SelfAcSetupError } from './self-ac-errors';
import { criticPromptTokens } from './critic-prompt';
import { criticValues, totSearch, type StateValueFunction } from './tot-search';

/**
 * A constructed tree: a factor is "good" when its first character's code is even, and the env says so; the
 * third factor ends the episode (the answer), a success only if the two factors before it were good. A
 * critic that knows good from bad leads the search to success; one that has it backwards, to failure.
 */
class ForkEnv extends BaseEnv<string, Action> {
  static open = 0;
  readonly spec: EnvSpec = {
    specificationVersion: 'v1',
    id: 'test/fork-v1',
    summary: 'Three factors.',
    observationSpace: { type: 'text' },
    actionSpace: { type: 'text' },
    maxTurns: 3,
    rewardRange: [0, 1],
  };
  private factors = 0;
  private good = true;
  private released = false;

  constructor() {
    super();
    ForkEnv.open += 1;
  }

  protected spawn(): ForkEnv {
    return new ForkEnv();
  }

  protected onReset(): EnvResetOutcome<string> {
    this.factors = 0;
    this.good = true;
    return { observation: 'Go.' };
  }

  protected onStep(action: Action): EnvStepOutcome<string> {
    const good = String(action).charCodeAt(0) % 2 === 0;
    this.factors += 1;
    if (this.factors < 3) this.good = this.good && good;
    if (this.factors === 3) {
      return { observation: '', reward: this.good ? 1 : 0, terminated: true, info: { success: this.good } };
    }
    return { observation: good ? 'good' : 'bad', reward: 0, terminated: false };
  }

  fingerprint(action: Action): string {
    return String(action);
  }

  anchor(): string {
    return `factor${this.factors}`;
  }

  override async close(): Promise<void> {
    if (!this.released) ForkEnv.open -= 1;
    this.released = true;
    await super.close();
  }
}

/**
 * Two factors: the first is "good" (even first character) or "bad"; the second ends the episode. After a good
 * factor the env's turn limit cuts the line (truncated: no answer); after a bad one the second factor answers
 * and succeeds. A critic that values the good states higher must still not return a line that never answered.
 */
class CutEnv extends ForkEnv {
  private goodFirst = false;
  private steps = 0;

  protected override spawn(): CutEnv {
    return new CutEnv();
  }

  protected override onReset(): EnvResetOutcome<string> {
    this.steps = 0;
    return { observation: 'Go.' };
  }

  protected override onStep(action: Action): EnvStepOutcome<string> {
    this.steps += 1;
    if (this.steps === 1) {
      this.goodFirst = String(action).charCodeAt(0) % 2 === 0;
      return { observation: this.goodFirst ? 'good' : 'bad', reward: 0, terminated: false };
    }
    if (this.goodFirst) return { observation: 'good', reward: 0, terminated: false, truncated: true };
    return { observation: '', reward: 1, terminated: true, info: { success: true } };
  }
}

const tokenizer = new ByteTokenizer();
const goodText = tokenizer.encode('good');

/** A perfect critic of the constructed tree: 1 after a good factor, 0 after a bad one (or `flip`ped). */
function oracle(flip = false): StateValueFunction {
  return async (states) =>
    states.map((tokens) => {
      const text = tokenizer.decode([...tokens.slice(-40)]);
      const good = text.lastIndexOf('good') > text.lastIndexOf('bad');
      return good !== flip ? 1 : 0;
    });
}

describe('ToT-SelfAC search', () => {
  let model: LanguageModel;
  beforeAll(async () => {
    await useBackend(SMOKE_BACKEND);
    model = LanguageModel.create(testConfig(), { seed: 2, tokenizer });
    model.addAdapter('policy', { rank: 2, alpha: 4, seed: 2 });
    model.addValueHead(2);
  });
  afterAll(() => model.dispose());

  const options = { branches: 6, beam: 1, maxTurns: 3, maxActionTokens: 6, seed: 11 };

  it('keeps the higher-V branch at every depth, and so finds the line the critic prefers', async () => {
    expect(goodText.length).toBeGreaterThan(0);
    for (const seed of [1, 2]) {
      const guided = await totSearch(model, new ForkEnv(), seed, { ...options, seed }, oracle());
      const misled = await totSearch(model, new ForkEnv(), seed, { ...options, seed }, oracle(true));
      for (const depth of [0, 1]) {
        const candidates = guided.trace.filter((c) => c.depth === depth && !c.finished);
        const kept = candidates.filter((c) => c.kept);
        expect(kept).toHaveLength(1);
        expect(kept[0]!.value).toBe(Math.max(...candidates.map((c) => c.value)));
      }
      // Same candidates at depth 0 (same seeds), opposite choices.
      expect(misled.trace.filter((c) => c.depth === 0).map((c) => c.action)).toEqual(
        guided.trace.filter((c) => c.depth === 0).map((c) => c.action),
      );
      expect(guided.best.finished).toBe(true);
      expect(guided.best.success).toBe(true);
      expect(guided.best.reward).toBe(1);
      expect(misled.best.success).toBe(false);
    }
    expect(ForkEnv.open).toBe(0);
  });

  it('is deterministic for a seed, and spends at most its token budget', async () => {
    const a = await totSearch(model, new ForkEnv(), 5, { ...options, beam: 2 });
    const b = await totSearch(model, new ForkEnv(), 5, { ...options, beam: 2 });
    expect(b).toEqual(a);
    const other = await totSearch(model, new ForkEnv(), 5, { ...options, beam: 2, seed: 12 });
    expect(other.trace.map((c) => c.action)).not.toEqual(a.trace.map((c) => c.action));
    const capped = await totSearch(model, new ForkEnv(), 5, { ...options, maxSearchTokens: 30 });
    expect(capped.generatedTokens).toBeLessThanOrEqual(30);
    expect(ForkEnv.open).toBe(0);
  });

  it('never returns a line the env truncated (no answer) while a line answered, whatever their V', async () => {
    const result = await totSearch(model, new CutEnv(), 1, { ...options, beam: 6, seed: 11 }, oracle());
    const first = result.trace.filter((c) => c.depth === 0);
    // Both kinds of first factor were sampled and kept: good ones (V 1) and bad ones (V 0).
    expect(first.filter((c) => c.kept).map((c) => c.value)).toEqual(expect.arrayContaining([0, 1]));
    const cut = result.trace.filter((c) => c.depth === 1 && c.value === 1);
    expect(cut.length).toBeGreaterThan(0);
    expect(cut.every((c) => !c.finished && !c.kept)).toBe(true);
    // Before: a truncated line was "finished", scored by its good parent's V 1, and returned over the answers.
    expect(result.best).toMatchObject({ finished: true, success: true, reward: 1, value: 0 });
    expect(result.finished.every((line) => line.success)).toBe(true);
    // With no line answering, the best-valued truncated line comes back, not an empty one.
    const none = await totSearch(model, new CutEnv(), 1, { ...options, beam: 6, seed: 11 }, async (states) =>
      states.map((tokens) => (tokenizer.decode([...tokens.slice(-40)]).includes('bad') ? -1 : 1)),
    );
    expect(none.best.actions.length).toBeGreaterThan(0);
    expect(ForkEnv.open).toBe(0);
  });

  it('reads V from the model’s value head through the critic prompt by default', async () => {
    const head = model.valueHead!;
    const saved = await head.toTensors();
    head.setTensors(
      new Map([
        ['v_head.summary.weight', { shape: [1, head.hiddenSize], data: new Float32Array(head.hiddenSize) }],
        ['v_head.summary.bias', { shape: [1], data: Float32Array.of(0.75) }],
      ]),
    );
    try {
      const result = await totSearch(model, new ForkEnv(), 1, options);
      expect(result.trace.length).toBeGreaterThan(0);
      for (const candidate of result.trace) expect(candidate.value).toBeCloseTo(0.75, 5);
    } finally {
      head.setTensors(saved);
    }
    // A state with no room left for the critic prompt is ranked last instead of overflowing the context.
    const critic = criticValues(model, 'policy');
    const room = model.config.maxPositions - criticPromptTokens(tokenizer).length;
    const values = await critic([tokenizer.encode('short state'), new Array<number>(room + 1).fill(65)]);
    expect(Number.isFinite(values[0])).toBe(true);
    expect(values[1]).toBe(-Infinity);
    const bare = LanguageModel.create(testConfig(), { seed: 2, tokenizer });
    await expect(totSearch(bare, new ForkEnv(), 1, { ...options, adapter: null })).rejects.toBeInstanceOf(
      SelfAcSetupError,
    );
    bare.dispose();
  });
});
