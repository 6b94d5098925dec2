import { useBackend } from './backend';
import { ByteTokenizer } from './byte-tokenizer';
import type { Generation, GenerationOptions, GenerationRequest } from './generation';
import { GenerationBatch, type FinishedRow } from './generation-batch';
import { LanguageModel } from './language-model';
import { testConfig } from './tiny-configs';
import { randomTokens, randomWeights } from './__fixtures__/random-weights';
import { backendsUnderTest } from './__fixtures__/wasm-tests';

const backends = backendsUnderTest();

/** Steps `batch` until no row is left; the finished rows by ticket. */
function drain(
  batch: GenerationBatch,
  done = new Map<number, Generation>(),
): { done: Map<number, Generation>; steps: number } {
  let steps = 0;
  while (batch.size > 0) {
    for (const { ticket, generation } of batch.step()) done.set(ticket, generation);
    steps += 1;
  }
  return { done, steps };
}

function expectSameDraw(actual: Generation, expected: Generation): void {
  expect(actual.tokens).toEqual(expected.tokens);
  expect(actual.text).toBe(expected.text);
  expect(actual.finishReason).toBe(expected.finishReason);
  expect(actual.promptTokens).toBe(expected.promptTokens);
  actual.logprobs.forEach((logprob, t) => expect(Math.abs(logprob - expected.logprobs[t]!)).toBeLessThan(1e-4));
}

describe.each(
  backends.flatMap((backend) => (['shared', 'own'] as const).map((joinPass) => [backend, joinPass] as const)),
)('GenerationBatch on %s, joining rows in a %s pass', (backend, joinPass) => {
  let model: LanguageModel;
  const config = testConfig({ maxPositions: 64 });
  beforeAll(async () => {
    await useBackend(backend);
    model = LanguageModel.fromTensors(config, randomWeights(config, 8), new ByteTokenizer());
    model.addAdapter('policy', { rank: 4, alpha: 8, seed: 2, initScale: 0.5 });
  });
  afterAll(() => model.dispose());

  const options: Partial<GenerationOptions> = { maxTokens: 7, temperature: 1, seed: 5, adapter: 'policy' };
  const prompts = [
    randomTokens(5, 256, 41),
    randomTokens(11, 256, 42),
    randomTokens(2, 256, 43),
    randomTokens(8, 256, 44),
  ];

  it('draws what generate draws for the same requests, with stops and per-row limits', () => {
    const free = model.generate([{ tokens: prompts[0]! }], { ...options, stopTokenIds: [] })[0]!;
    const settings = { ...options, stopTokenIds: [free.tokens[2]!], stop: [model.tokenizer.decode([free.tokens[4]!])] };
    const requests: GenerationRequest[] = prompts.map((tokens, i) => ({
      tokens,
      ...(i === 3 ? { maxTokens: 2 } : {}),
    }));
    const expected = model.generate(requests, settings);
    const batch = new GenerationBatch(model, settings, { joinPass });
    const tickets = requests.map((request) => batch.add(request));
    const { done } = drain(batch);
    batch.dispose();
    expect(tickets).toEqual([0, 1, 2, 3]);
    tickets.forEach((ticket, i) => expectSameDraw(done.get(ticket)!, expected[i]!));
    expect(expected.some((generation) => generation.finishReason === 'stop')).toBe(true);
    // The prompts in one pass, then one pass for each token after the first, until the longest row ends.
    expect(batch.passes).toBe(Math.max(...expected.map((generation) => generation.tokens.length)));
  });

  it('lets a row join while others decode: each row draws what it would draw alone', () => {
    const requests: GenerationRequest[] = prompts.map((tokens, i) => ({ tokens, seed: 100 + i }));
    const alone = requests.map((request) => model.generate([request], { ...options, stopTokenIds: [] })[0]!);
    const batch = new GenerationBatch(model, { ...options, stopTokenIds: [] }, { joinPass });
    const done = new Map<number, Generation>();
    const collect = (rows: FinishedRow[]): void =>
      rows.forEach(({ ticket, generation }) => done.set(ticket, generation));
    batch.add(requests[0]!);
    batch.add(requests[1]!);
    collect(batch.step());
    collect(batch.step());
    // Rows 2 and 3 join two passes late, into a batch whose rows have other lengths and positions.
    batch.add(requests[2]!);
    collect(batch.step());
    batch.add(requests[3]!);
    drain(batch, done);
    batch.dispose();
    alone.forEach((generation, i) => expectSameDraw(done.get(i)!, generation));
  });

  it('hands out caches a later turn continues from, as generate does', () => {
    const settings = { ...options, stopTokenIds: [], keepCache: true };
    const batch = new GenerationBatch(model, settings, { joinPass });
    batch.add({ tokens: prompts[1]!, seed: 7 });
    batch.add({ tokens: prompts[2]!, seed: 8, maxTokens: 3 });
    const { done } = drain(batch);
    const reference = model.generate(
      [
        { tokens: prompts[1]!, seed: 7 },
        { tokens: prompts[2]!, seed: 8, maxTokens: 3 },
      ],
      settings,
    );
    // The next turn: each row's tokens plus an observation, continued from its cache, in the same batch.
    const observation = randomTokens(4, 256, 45);
    const next = [0, 1].map((ticket) => ({
      tokens: [...prompts[ticket + 1]!, ...done.get(ticket)!.tokens, ...observation],
      cache: done.get(ticket)!.cache!,
      seed: 20 + ticket,
    }));
    [0, 1].forEach((ticket) => batch.add(next[ticket]!));
    const { done: second } = drain(batch);
    batch.dispose();
    const expected = model.generate(
      [0, 1].map((ticket) => ({ ...next[ticket]!, cache: reference[ticket]!.cache! })),
      settings,
    );
    [0, 1].forEach((ticket) => {
      expectSameDraw(done.get(ticket)!, reference[ticket]!);
      expect(done.get(ticket)!.cache!.cachedLength).toBe(reference[ticket]!.cache!.cachedLength);
      expectSameDraw(second.get(ticket + 2)!, expected[ticket]!);
      const logits = done.get(ticket)!.promptLogits!;
      reference[ticket]!.promptLogits!.forEach((value, i) => expect(Math.abs(value - logits[i]!)).toBeLessThan(1e-4));
    });
    for (const generation of [...done.values(), ...second.values(), ...reference, ...expected])
      generation.cache?.dispose();
  });

  it('starts from a complete cache with its logits, and names what is wrong with a request', () => {
    const node = model.prefill(prompts[3]!, { adapter: 'policy' });
    const batch = new GenerationBatch(model, { ...options, stopTokenIds: [] }, { joinPass });
    batch.add({ cache: node, seed: 3 });
    const { done } = drain(batch);
    expectSameDraw(done.get(0)!, model.generate([{ cache: node, seed: 3 }], { ...options, stopTokenIds: [] })[0]!);
    const base = model.prefill(prompts[0]!);
    expect(() => batch.add({ cache: base })).toThrow(/computed with adapter null, not "policy"/);
    expect(() => batch.add({ tokens: [] })).toThrow(/empty prompt/);
    expect(() => batch.add({ tokens: prompts[0]!, maxTokens: 1.5 })).toThrow(/maxTokens is 1.5/);
    expect(() => new GenerationBatch(model, { temperature: -1 })).toThrow(/temperature/);
    expect(() => new GenerationBatch(model, {}, { joinPass: 'both' as 'own' })).toThrow(/joinPass must be/);
    const late = model.prefill(prompts[1]!, { adapter: 'policy' });
    batch.add({ tokens: [...prompts[1]!, 65], cache: late });
    late.dispose();
    expect(() => batch.step()).toThrow(/KvCache was disposed/);
    batch.dispose();
    expect(() => batch.add({ tokens: prompts[0]! })).toThrow(/disposed/);
    node.dispose();
    base.dispose();
  });
});

describe('GenerationBatch: TURNGYM_JOIN_PASS', () => {
  const config = testConfig({ maxPositions: 64 });
  let model: LanguageModel;
  const saved = process.env.TURNGYM_JOIN_PASS;
  beforeAll(async () => {
    await useBackend('cpu');
    model = LanguageModel.fromTensors(config, randomWeights(config, 8), new ByteTokenizer());
  });
  afterAll(() => model.dispose());
  afterEach(() => {
    if (saved === undefined) delete process.env.TURNGYM_JOIN_PASS;
    else process.env.TURNGYM_JOIN_PASS = saved;
  });

  /** A batch of two rows under the environment's join pass: its passes in the first step, and its draws. */
  function run(value: string | undefined, joinPass?: 'shared' | 'own'): { passes: number; tokens: number[][] } {
    if (value === undefined) delete process.env.TURNGYM_JOIN_PASS;
    else process.env.TURNGYM_JOIN_PASS = value;
    const batch = new GenerationBatch(model, { maxTokens: 3, stopTokenIds: [], seed: 4 }, joinPass ? { joinPass } : {});
    batch.add({ tokens: randomTokens(5, 256, 51) });
    batch.add({ tokens: randomTokens(3, 256, 52) });
    batch.step();
    const passes = batch.passes;
    const { done } = drain(batch);
    batch.dispose();
    return { passes, tokens: [0, 1].map((ticket) => done.get(ticket)!.tokens) };
  }

  it('overrides the default (own, on every backend) without changing what is drawn, and yields to the argument', () => {
    const byDefault = run(undefined);
    expect(byDefault.passes).toBe(2);
    expect(run('shared')).toEqual({ passes: 1, tokens: byDefault.tokens });
    expect(run(' own ')).toEqual(byDefault);
    expect(run('shared', 'own').passes).toBe(2);
  });

  it('names the variable when its value is neither', () => {
    expect(() => run('both')).toThrow(/TURNGYM_JOIN_PASS: must be "shared" or "own" \(got "both"\)/);
  });
});
