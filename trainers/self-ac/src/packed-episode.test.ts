import { InvalidOptionsError } from '@turngym/core';
import {
  ByteTokenizer,
  LanguageModel,
  renderChatTemplate,
  testConfig,
  tf,
  useBackend,
  type ChatTemplateOptions,
  type ModelConfig,
} from '@turngym/lm';
import { ChatTurnFormat, collectChains, installedEnvRegistry, type Trajectory } from '@turngym/rl';
import type { Action, ChatMessage, Env } from '@turngym/spec';
import { fixtureTrajectory } from '../../../packages/rl/src/__fixtures__/trajectory-fixture';
import { digitRegistry, SMOKE_BACKEND } from '../../../packages/rl/src/__fixtures__/trainer-smoke';
import { CRITIC_PROMPT_TEXT, criticPromptTokens } from './critic-prompt';
import { padEpisodeVectors, tdRewards } from './episode-vectors';
import { packEpisode, separateRows, type PackEpisodeOptions, type PackedEpisode } from './packed-episode';
import { EpisodeTooLongError, PackedEpisodeError, SelfAcSetupError } from './self-ac-errors';
import { selfAcLoss } from './self-ac-loss';

const tokenizer = new ByteTokenizer();
const format = new ChatTurnFormat(tokenizer);

/** prompt (4) · a0 (2) · o0 (3) · a1 (2), terminated: n = 2, the final observation not tokenised. */
function handMade(stopReason: Trajectory['stopReason'] = 'terminated'): Trajectory {
  const step = (reward: number, observation: string, ended: boolean) => ({
    action: 'x',
    observation,
    reward,
    terminated: ended && stopReason === 'terminated',
    truncated: ended && stopReason === 'truncated',
    info: {},
    node: 'n',
    actionTokens: 2,
  });
  return fixtureTrajectory({
    episodeId: 'e',
    envId: 'test/e-v1',
    seed: 0,
    group: 0,
    tokens: [10, 11, 12, 13, 20, 21, 30, 31, 32, 40, 41],
    segments: [
      { kind: 'prompt', tokenCount: 4 },
      { kind: 'action', tokenCount: 2 },
      { kind: 'observation', tokenCount: 3 },
      { kind: 'action', tokenCount: 2 },
    ],
    logprobs: [0, 0, 0, 0, -1, -2, 0, 0, 0, -0.5, -0.25],
    steps: [step(0.5, 'o0', false), step(1, 'end', true)],
    totalReward: 1.5,
    stopReason,
    generatedTokens: 4,
    computedTokens: 11,
  });
}

describe('criticPromptTokens', () => {
  it("renders the slide's cp in the model's own chat template: close the open assistant turn, a system message, a new assistant turn", () => {
    const text = tokenizer.decode(criticPromptTokens(tokenizer));
    expect(text).toBe(`<|im_end|>\n<|im_start|>system\n${CRITIC_PROMPT_TEXT}<|im_end|>\n<|im_start|>assistant\n`);
  });

  it('refuses, as a Self-AC setup error, a template that allows a system message only first (Gemma, Mistral)', () => {
    // Gemma's check, reduced: a system message anywhere but first raises.
    const systemFirst =
      "{% for message in messages %}{% if message['role'] == 'system' and not loop.first %}" +
      "{{ raise_exception('System role not supported') }}{% endif %}" +
      "<start_of_turn>{{ message['role'] }}\n{{ message['content'] }}<end_of_turn>\n{% endfor %}" +
      '{% if add_generation_prompt %}<start_of_turn>model\n{% endif %}';
    class SystemFirstTokenizer extends ByteTokenizer {
      override applyChatTemplate(messages: readonly ChatMessage[], options: ChatTemplateOptions = {}): string {
        return renderChatTemplate(systemFirst, messages, options);
      }
    }
    // Before: the template's own Error ("System role not supported"), thrown from the first update, named
    // neither Self-AC nor its critic prompt.
    const render = () => criticPromptTokens(new SystemFirstTokenizer());
    expect(render).toThrow(SelfAcSetupError);
    expect(render).toThrow(
      'criticPromptTokens: the chat template refuses a system message after an assistant turn (System role not supported)',
    );
  });
});

describe('packEpisode', () => {
  const cp = [90, 91, 92];
  const pack = (trajectory: Trajectory, discount = 0.5) =>
    packEpisode(trajectory, { format, criticPrompt: cp, discount, maxPositions: 1024 });

  it('lays out sp·up, cp0, a0, o0, cp1, a1, o1, cp2 with the slide positions and episode vectors', () => {
    const episode = pack(handMade());
    const o1 = format.observationTokens('end', false); // a1 did not sample an end of turn
    const { row, vectors } = episode;
    expect(row.tokens).toEqual([10, 11, 12, 13, ...cp, 20, 21, 30, 31, 32, ...cp, 40, 41, ...o1, ...cp]);
    // State tokens count on as if no cp were there; cp_k continues from the end of s_k.
    const stateEnd = 11 + o1.length;
    expect(row.positions).toEqual([
      0,
      1,
      2,
      3,
      4,
      5,
      6,
      4,
      5,
      6,
      7,
      8,
      9,
      10,
      11,
      9,
      10,
      ...range(11, stateEnd),
      ...range(stateEnd, stateEnd + 3),
    ]);
    expect(vectors.aStart).toEqual([7, 15]);
    expect(vectors.aEnd).toEqual([8, 16]);
    expect(vectors.cpStart).toEqual([4, 12, 17 + o1.length]);
    expect(vectors.cpEnd).toEqual([6, 14, 19 + o1.length]);
    expect(vectors.logPiOld).toEqual([-3, -0.75]);
    expect(vectors.piOld[0]).toBeCloseTo(Math.exp(-3), 12);
    expect(vectors.rewards).toEqual([0.5, 1, 0]);
    expect(vectors.returns).toEqual([0.5 + 0.5 * 1, 1, 0]);
    expect(vectors.terminal).toBe(true);
    expect(row.weights.map((w, t) => (w ? t : -1)).filter((t) => t >= 0)).toEqual([7, 8, 15, 16]);
    // a_k's first token is predicted by the last state token, not by the cp between them.
    expect(row.predictFrom[7]).toBe(3);
    expect(row.predictFrom[15]).toBe(11);
    expect(row.predictFrom.slice(4, 7)).toEqual([-1, -1, -1]);
    expect(episode.oldLogprobs[7]).toBe(-1);
    expect(episode.stateLengths).toEqual([4, 9, stateEnd]);
  });

  it('ShadowPrompt attention: cp_k sees s_k and itself causally; nothing after cp_k sees it', () => {
    const episode = pack(handMade());
    const { row, vectors } = episode;
    const L = row.tokens.length;
    const matrix = (row.attention as { matrix: Uint8Array }).matrix;
    const isCp = new Array<boolean>(L).fill(false);
    vectors.cpStart.forEach((start, k) => isCp.fill(true, start, vectors.cpEnd[k]! + 1));
    for (let q = 0; q < L; q += 1) {
      for (let key = 0; key < L; key += 1) {
        const allowed = matrix[q * L + key] === 1;
        if (key > q) expect(allowed).toBe(false);
        else if (!isCp[key]) expect(allowed).toBe(true);
        else {
          const k = vectors.cpStart.findIndex((start, j) => key >= start && key <= vectors.cpEnd[j]!);
          expect(allowed).toBe(q <= vectors.cpEnd[k]!); // only the prompt's own later tokens
        }
      }
    }
  });

  it('keeps a truncated episode’s last state as a bootstrap; pads a batch as §2 (V, r, R with 0, π with 1)', () => {
    const truncated = pack(handMade('truncated'));
    expect(truncated.vectors.terminal).toBe(false);
    const short = pack(
      fixtureTrajectory({
        ...handMade(),
        tokens: [10, 11, 12, 13, 20, 21],
        segments: [
          { kind: 'prompt', tokenCount: 4 },
          { kind: 'action', tokenCount: 2 },
        ],
        logprobs: [0, 0, 0, 0, -1, -2],
        steps: [handMade().steps[1]!],
      }),
    );
    const batch = padEpisodeVectors([truncated.vectors, short.vectors]);
    expect([batch.turns, batch.states]).toEqual([2, 3]);
    expect(Array.from(batch.piOld.slice(2))).toEqual([Math.fround(Math.exp(-3)), 1]);
    expect(Array.from(batch.logPiOld.slice(2))).toEqual([-3, 0]);
    expect(Array.from(batch.rewards)).toEqual([0.5, 1, 0, 1, 0, 0]);
    expect(Array.from(batch.aStart)).toEqual([7, 15, 7, 0]);
    expect(Array.from(batch.cpEnd.slice(3))).toEqual([6, short.vectors.cpEnd[1]!, 0]);
    expect(Array.from(batch.stateMask)).toEqual([1, 1, 1, 1, 1, 0]);
    // Truncated: V(s_2) is live (bootstrap) but not trained; terminal: V(s_1) is 0.
    expect(Array.from(batch.live)).toEqual([1, 1, 1, 1, 0, 0]);
    expect(Array.from(batch.criticMask)).toEqual([1, 1, 0, 1, 0, 0]);
  });

  it('ends the packed episode at the last state whose critic prompt fits the context; R still counts every reward', () => {
    const episode = packEpisode(handMade(), { format, criticPrompt: cp, discount: 0.5, maxPositions: 12 });
    expect(episode.vectors.aStart).toEqual([7]);
    expect(episode.vectors.rewards).toEqual([0.5, 0]);
    expect(episode.vectors.returns).toEqual([1, 1]);
    expect(episode.vectors.terminal).toBe(false);
    expect(episode.vectors.cut).toBe(true);
    // The critic's targets close the cut with the known return: r_0 + λ·R_1 = R_0.
    expect(tdRewards(episode.vectors)).toEqual([1, 0]);
    expect(episode.row.tokens).toEqual([10, 11, 12, 13, ...cp, 20, 21, 30, 31, 32, ...cp]);
  });

  it('cuts an episode longer than maxPackedTokens at the last turn boundary that fits, with the critic prompts and the return it carries', () => {
    const three = threeTurns();
    const whole = pack(three);
    expect(whole.vectors.cut).toBe(false);
    expect(whole.vectors.terminal).toBe(true);
    // Packed lengths: s_1 + 2·|cp| = 15, s_2 + 3·|cp| = 23, the whole episode more.
    expect(whole.row.tokens.length).toBeGreaterThan(23);
    const episode = packEpisode(three, {
      format,
      criticPrompt: cp,
      discount: 0.5,
      maxPositions: 1024,
      maxPackedTokens: 23,
    });
    expect(episode.row.tokens).toEqual([10, 11, 12, 13, ...cp, 20, 21, 30, 31, 32, ...cp, 40, 41, 50, 51, 52, ...cp]);
    expect(episode.row.weights.reduce((a, b) => a + b, 0)).toBe(4); // a_0 and a_1 are trained; a_2 is cut
    expect(episode.vectors.aStart).toEqual(whole.vectors.aStart.slice(0, 2));
    expect(episode.vectors.cpEnd).toEqual(whole.vectors.cpEnd.slice(0, 3));
    expect(episode.vectors.logPiOld).toEqual(whole.vectors.logPiOld.slice(0, 2));
    expect(episode.vectors.cut).toBe(true);
    expect(episode.vectors.terminal).toBe(false);
    expect(episode.vectors.rewards).toEqual([0.5, 0.25, 0]);
    // R counts the whole rollout: R_2 = 1 (the reward after the cut), R_1 = 0.25 + 0.5·1, R_0 = 0.5 + 0.5·R_1.
    expect(episode.vectors.returns).toEqual([0.875, 0.75, 1]);
    expect(tdRewards(episode.vectors)).toEqual([0.5, 0.75, 0]);
    const batch = padEpisodeVectors([episode.vectors]);
    expect(Array.from(batch.live)).toEqual([1, 1, 0]); // V(s_2) is not read: its known return is in r
    expect(Array.from(batch.rewards)).toEqual([0.5, 0.75, 0]);
    expect(Array.from(batch.criticMask)).toEqual([1, 1, 0]);
    // Every TD(j) target that reaches the cut is the known return, for every horizon: a critic that predicts
    // the returns has no loss, whatever its head says at the cut state.
    for (const headAtCut of [0, 9]) {
      const values = [[0.875, 0.75, headAtCut]];
      const loss = selfAcLoss([episode], values, [episode.oldLogprobs], { alpha: 1, discount: 0.5 });
      expect(loss.critic).toBeCloseTo(0, 12);
    }
    // One turn fits in 15 tokens; not even one in 14: the trainer leaves such an episode out.
    const one = packEpisode(three, {
      format,
      criticPrompt: cp,
      discount: 0.5,
      maxPositions: 1024,
      maxPackedTokens: 15,
    });
    expect(one.vectors.aStart.length).toBe(1);
    expect(tdRewards(one.vectors)).toEqual([0.875, 0]);
    expect(() =>
      packEpisode(three, { format, criticPrompt: cp, discount: 0.5, maxPositions: 1024, maxPackedTokens: 14 }),
    ).toThrow(EpisodeTooLongError);
  });

  it('leaves out (EpisodeTooLongError, counted by the trainer) an episode whose first states the critic cannot read', () => {
    // s_0 = 4 tokens, s_1 = 9, cp = 3. The context holds neither s_0 + cp (7) …
    const limits = (maxPositions: number, maxPackedTokens?: number) => () =>
      packEpisode(handMade(), { format, criticPrompt: cp, discount: 1, maxPositions, maxPackedTokens });
    expect(limits(6)).toThrow(EpisodeTooLongError);
    expect(limits(6)).toThrow(
      /e: a state of its first turn and the critic prompt take 7 tokens, more than the model's 6 positions/,
    );
    // … nor s_1 + cp (12): no action is left to train.
    expect(limits(8)).toThrow(/take 12 tokens, more than the model's 8 positions/);
    // s_0 + cp fits the context but not maxPackedTokens.
    expect(limits(8, 6)).toThrow(EpisodeTooLongError);
    expect(limits(8, 6)).toThrow(/packs to 7 tokens, more than maxPackedTokens \(6\)/);
    expect(limits(12).call(null).vectors.aStart.length).toBe(1);
  });

  it('refuses what it cannot pack, naming the episode', () => {
    expect(() => pack({ ...handMade(), stopReason: 'error' })).toThrow(PackedEpisodeError);
    expect(() => pack({ ...handMade(), steps: [] })).toThrow(/e: the rollout has no action/);
    expect(() => packEpisode(handMade(), { format, criticPrompt: cp, discount: 1, maxPositions: 8 })).toThrow(
      /positions/,
    );
  });

  it('refuses options that would pack wrong returns or refuse every episode, naming the field', () => {
    const withOptions = (options: Record<string, unknown>) => () =>
      packEpisode(handMade(), { format, criticPrompt: cp, ...options } as unknown as PackEpisodeOptions);
    // Before: λ = 2 packed R_0 = 0.5 + 2·1 = 2.5, a missing λ packed NaN returns, and a missing context refused
    // every episode as longer than "the model's undefined positions".
    expect(withOptions({ discount: 2, maxPositions: 1024 })).toThrow(InvalidOptionsError);
    expect(withOptions({ discount: 2, maxPositions: 1024 })).toThrow('options.discount must be <= 1 (got 2)');
    expect(withOptions({ maxPositions: 1024 })).toThrow('options.discount is required');
    expect(withOptions({ discount: Number.NaN, maxPositions: 1024 })).toThrow(/options\.discount must be number/);
    expect(withOptions({ discount: 1 })).toThrow('options.maxPositions is required');
    expect(withOptions({ discount: 1, maxPositions: 1024, maxPackedTokens: 0 })).toThrow(
      'options.maxPackedTokens must be >= 1 (got 0)',
    );
    expect(withOptions({ discount: 0, maxPositions: 1024 })().vectors.returns).toEqual([0.5, 1, 0]);
  });

  it('refuses a record whose segments, tokens and steps do not line up, rather than packing wrong vectors', () => {
    const refused = (trajectory: Trajectory, message: RegExp) => {
      expect(() => pack(trajectory)).toThrow(PackedEpisodeError);
      expect(() => pack(trajectory)).toThrow(message);
    };
    const two = handMade();
    // a_0 with 0 tokens: packed, its span was a_start 7 > a_end 3 (the loss failed later, naming no episode).
    refused(
      {
        ...two,
        tokens: [10, 11, 12, 13, 30, 31, 32, 40, 41],
        logprobs: [0, 0, 0, 0, 0, 0, 0, -0.5, -0.25],
        segments: [
          { kind: 'prompt', tokenCount: 4 },
          { kind: 'action', tokenCount: 0 },
          { kind: 'observation', tokenCount: 3 },
          { kind: 'action', tokenCount: 2 },
        ],
      },
      /^e: segments\[1\] is an action with 0 tokens/,
    );
    // Tokens or logprobs the segments do not cover.
    refused(
      { ...two, tokens: two.tokens.slice(0, -1) },
      /e: its segments cover 11 tokens but it has 10 tokens and 11 logprobs/,
    );
    refused({ ...two, logprobs: [...two.logprobs, 0] }, /cover 11 tokens but it has 11 tokens and 12 logprobs/);
    // A reward that is no number: packed, NaN made every return NaN and null was read as 0.
    refused(
      { ...two, steps: [{ ...two.steps[0]!, reward: Number.NaN }, two.steps[1]!] },
      /e: steps\[0\]\.reward is NaN/,
    );
    refused(
      { ...two, steps: [two.steps[0]!, { ...two.steps[1]!, reward: null as unknown as number }] },
      /steps\[1\]\.reward is null, not a finite number/,
    );
    // A step with no action before it: its reward would land on the wrong action.
    refused({ ...two, steps: [two.steps[0]!, ...two.steps] }, /e: it has 3 steps but 2 actions/);
    // An expert record with a disturbance turn (DART): steps d, a_0, a_1 against actions a_0, a_1. Packed, a_0
    // got d's reward 0 and a_1 a_0's 0.5, the final reward 1 was lost and o_1 was rendered from o_0's text.
    refused(
      {
        ...two,
        tokens: [10, 11, 12, 13, 70, 71, 72, 73, 74, ...two.tokens.slice(4)],
        logprobs: [0, 0, 0, 0, 0, 0, 0, 0, 0, ...two.logprobs.slice(4)],
        segments: [
          { kind: 'prompt', tokenCount: 4 },
          { kind: 'disturbance', tokenCount: 2 },
          { kind: 'observation', tokenCount: 3 },
          ...two.segments.slice(1),
        ],
        steps: [{ ...two.steps[0]!, reward: 0, observation: 'od', disturbed: true }, ...two.steps],
      },
      /e: it holds disturbance turns/,
    );
  });
});

/** Three turns, rewards 0.5, 0.25, 1; the task ends after a_2. */
function threeTurns(): Trajectory {
  const two = handMade();
  const step = (reward: number, observation: string, ended: boolean) => ({
    ...two.steps[0]!,
    reward,
    observation,
    terminated: ended,
  });
  return fixtureTrajectory({
    ...two,
    tokens: [10, 11, 12, 13, 20, 21, 30, 31, 32, 40, 41, 50, 51, 52, 60, 61],
    segments: [
      { kind: 'prompt', tokenCount: 4 },
      { kind: 'action', tokenCount: 2 },
      { kind: 'observation', tokenCount: 3 },
      { kind: 'action', tokenCount: 2 },
      { kind: 'observation', tokenCount: 3 },
      { kind: 'action', tokenCount: 2 },
    ],
    logprobs: [0, 0, 0, 0, -1, -2, 0, 0, 0, -0.5, -0.25, 0, 0, 0, -0.1, -0.2],
    steps: [step(0.5, 'o0', false), step(0.25, 'o1', false), step(1, 'end', true)],
    totalReward: 1.75,
    stopReason: 'terminated',
  });
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from }, (_, i) => from + i);
}

/** A model with random LoRA B (so the adapter path changes the outputs) and a random value head. */
function randomModel(config: ModelConfig, seed: number): LanguageModel {
  const model = LanguageModel.create(config, { seed, tokenizer });
  const adapter = model.addAdapter('policy', { rank: 2, alpha: 4, seed });
  let s = seed;
  for (const pair of adapter.pairs.values()) pair.b.assign(tf.randomNormal(pair.b.shape, 0, 0.2, 'float32', (s += 1)));
  const head = model.addValueHead(seed);
  head.weight.assign(tf.randomNormal(head.weight.shape, 0, 1, 'float32', seed));
  return model;
}

/**
 * The equality §2 rests on: one packed forward gives, for every k, V(s_k) equal to a separate forward on
 * s_k + cp, and every action token's logprob equal to the rollout's own forward without critic prompts.
 */
async function expectPackedEqualsSeparate(model: LanguageModel, episodes: readonly PackedEpisode[]): Promise<number> {
  const packed = await model.score(
    episodes.map((episode) => episode.row),
    { adapter: 'policy', values: true },
  );
  let checked = 0;
  let worst = 0;
  for (const [b, episode] of episodes.entries()) {
    const separate = separateRows(episode);
    const critic = await model.score(separate.critic, { adapter: 'policy', values: true });
    const actor = await model.score([separate.actor], { adapter: 'policy' });
    episode.vectors.cpEnd.forEach((end, k) => {
      const alone = critic.values![k]!.at(-1)!;
      worst = Math.max(worst, Math.abs(packed.values![b]![end]! - alone));
      expect(packed.values![b]![end]).toBeCloseTo(alone, 4);
      checked += 1;
    });
    // Action token t of the packed row is token (t − cps before it) of the plain row.
    episode.vectors.aStart.forEach((start, k) => {
      const plainStart = episode.stateLengths[k]!;
      for (let t = start; t <= episode.vectors.aEnd[k]!; t += 1) {
        const plain = actor.logprobs[0]![plainStart + (t - start)]!;
        worst = Math.max(worst, Math.abs(packed.logprobs[b]![t]! - plain));
        expect(packed.logprobs[b]![t]).toBeCloseTo(plain, 4);
        checked += 1;
      }
    });
  }
  expect(worst).toBeLessThan(1e-4);
  return checked;
}

describe('ShadowPrompt equality (ALGORITHMS.md §2)', () => {
  beforeAll(() => useBackend(SMOKE_BACKEND));

  const configs: [string, ModelConfig][] = [
    ['Qwen2-style (GQA, q/k/v biases, tied embeddings)', testConfig()],
    [
      'Llama-style (MHA, untied head, llama3 rope scaling)',
      testConfig({
        family: 'llama',
        numHeads: 2,
        numKvHeads: 2,
        headDim: 16,
        tieWordEmbeddings: false,
        qkvBias: false,
        ropeScaling: { type: 'llama3', factor: 8, lowFreqFactor: 1, highFreqFactor: 4, originalMaxPositions: 8 },
      }),
    ],
  ];

  it.each(configs)('%s: packed V(s_k) and action logprobs equal separate forwards', async (_, config) => {
    const model = randomModel(config, 7);
    try {
      const registry = digitRegistry();
      const trajectories = await collectChains({
        policy: { model, format },
        makeEnv: async () => (await registry.make('test/digit-v1')) as Env<string, Action>,
        envId: 'test/digit-v1',
        seeds: [1],
        groupSize: 3,
        options: { maxActionTokens: 5, maxRolloutTokens: 100, seed: 3, adapter: 'policy' },
      });
      const episodes = trajectories.map((t) =>
        packEpisode(t, { format, criticPrompt: criticPromptTokens(tokenizer), discount: 1, maxPositions: 1024 }),
      );
      expect(episodes.some((episode) => episode.vectors.aStart.length > 1)).toBe(true);
      expect(await expectPackedEqualsSeparate(model, episodes)).toBeGreaterThan(10);
    } finally {
      model.dispose();
    }
  });

  it('fails when a critic prompt leaks into later tokens (the test can tell)', async () => {
    const model = randomModel(testConfig(), 8);
    try {
      const episode = packEpisode(handMade(), {
        format,
        criticPrompt: criticPromptTokens(tokenizer),
        discount: 1,
        maxPositions: 1024,
      });
      const L = episode.row.tokens.length;
      const leaky = Uint8Array.from({ length: L * L }, (_, i) => (i % L <= Math.floor(i / L) ? 1 : 0));
      const broken = { ...episode, row: { ...episode.row, attention: { kind: 'matrix' as const, matrix: leaky } } };
      await expect(expectPackedEqualsSeparate(model, [broken])).rejects.toThrow();
    } finally {
      model.dispose();
    }
  });
});

describe('ShadowPrompt equality on real episodes of every registered env', () => {
  const registry = installedEnvRegistry();
  let model: LanguageModel;
  beforeAll(async () => {
    await useBackend(SMOKE_BACKEND);
    model = randomModel(testConfig({ maxPositions: 1024 }), 11);
  });
  afterAll(() => model.dispose());

  it.each(registry.list())('%s', async (envId) => {
    const [trajectory] = await collectChains({
      policy: { model, format },
      makeEnv: async () => (await registry.make(envId)) as Env<string, Action>,
      envId,
      seeds: [0],
      groupSize: 1,
      options: {
        maxActionTokens: 6,
        maxRolloutTokens: 24,
        maxObservationTokens: 24,
        instructions: false,
        seed: 1,
        adapter: 'policy',
      },
    });
    expect(trajectory!.stopReason).not.toBe('error');
    const episode = packEpisode(trajectory!, {
      format,
      criticPrompt: criticPromptTokens(tokenizer),
      discount: 1,
      maxPositions: 1024,
    });
    expect(await expectPackedEqualsSeparate(model, [episode])).toBeGreaterThan(0);
  });
});
