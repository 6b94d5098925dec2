import { InvalidOptionsError, parseToolCall, Registry, SeededRng } from '@turngym/core';
import { EXAMPLE_TOOLS, ExampleEnv, register } from '@turngym/env-example';
import { ByteTokenizer, LanguageModel, testConfig, useBackend } from '@turngym/lm';
import type { Env } from '@turngym/spec';
import { collectChains } from './chain-rollouts';
import { ChatTurnFormat } from './chat-turn-format';
import { collectExpertTrajectories, expertActionText } from './expert-trajectories';
import { sftBatches } from './internal/sft-batches';
import { lossMask } from './loss-mask';
import { resetPrefix } from './rollout-engine';
import { validateRolloutOptions } from './rollout-options';
import { trainSft } from './sft';
import { ExpertEpisodeError, SftDataError } from './sft-errors';
import { validateTrajectory, type Trajectory } from './trajectory';
import { withoutWallClock } from './__fixtures__/trajectory-fixture';

const ENV_ID = 'turngym/example-v1';
const tokenizer = new ByteTokenizer();
const format = new ChatTurnFormat(tokenizer);
const registry = new Registry();
register(registry);

/** The tokens of each segment of a trajectory, in order. */
function segmentTokens(trajectory: Trajectory): { kind: string; tokens: number[] }[] {
  let offset = 0;
  return trajectory.segments.map((segment) => {
    const tokens = trajectory.tokens.slice(offset, offset + segment.tokenCount);
    offset += segment.tokenCount;
    return { kind: segment.kind, tokens };
  });
}

beforeAll(async () => {
  await useBackend('wasm');
});

describe('collectExpertTrajectories', () => {
  it('records solved expert episodes token for token as rollouts: loss exactly on the actions and their end of turn', async () => {
    const seeds = [0, 1, 2, 3, 4, 5];
    const { trajectories, dropped } = await collectExpertTrajectories({
      envId: ENV_ID,
      envOptions: { chainLength: 2 },
      seeds,
      format,
      registry,
      instructions: true,
    });
    expect(dropped).toEqual([]);
    expect(trajectories.map((trajectory) => [trajectory.seed, trajectory.group])).toEqual(seeds.map((s, i) => [s, i]));
    for (const trajectory of trajectories) {
      validateTrajectory(trajectory);
      expect(trajectory).toMatchObject({ success: true, totalReward: 1, stopReason: 'terminated', envId: ENV_ID });
      expect(trajectory.logprobs.every((logprob) => logprob === 0)).toBe(true);
      // chainLength 2: two lookups and the submission.
      expect(trajectory.steps.map((turn) => turn.action.replace(/\(.*\)/, ''))).toEqual(['LOOKUP', 'LOOKUP', 'SUBMIT']);

      const pieces = segmentTokens(trajectory);
      expect(pieces.map((piece) => piece.kind)).toEqual([
        'prompt',
        'action',
        'observation',
        'action',
        'observation',
        'action',
      ]);
      const actions = pieces.filter((piece) => piece.kind === 'action');
      actions.forEach((piece, turn) => {
        // What the policy must learn to write: the expert's action text, then the end of the turn.
        expect(tokenizer.decode(piece.tokens)).toBe(`${trajectory.steps[turn]!.action}<|im_end|>`);
        expect(piece.tokens.length).toBe(trajectory.steps[turn]!.actionTokens);
      });
      pieces
        .filter((piece) => piece.kind === 'observation')
        .forEach((piece, turn) =>
          expect(piece.tokens).toEqual(format.observationTokens(trajectory.steps[turn]!.observation, true)),
        );

      const mask = lossMask(trajectory);
      const expected = pieces.flatMap((piece) => piece.tokens.map(() => (piece.kind === 'action' ? 1 : 0)));
      expect(Array.from(mask)).toEqual(expected);
      expect(trajectory.generatedTokens).toBe(expected.filter((bit) => bit === 1).length);
    }
  });

  it('disturbance records DART recoveries: a slip the env answers, never trained on, then the expert again', async () => {
    const request = {
      envId: ENV_ID,
      envOptions: { chainLength: 2 },
      seeds: Array.from({ length: 12 }, (_, i) => i),
      format,
      registry,
      instructions: false,
      disturbance: 0.5,
    };
    const first = await collectExpertTrajectories(request);
    // Same seeds, same slips: the recorder draws them from each episode's seed.
    expect(withoutWallClock(await collectExpertTrajectories(request))).toEqual(withoutWallClock(first));
    const disturbed = first.trajectories.filter((t) => t.segments.some((segment) => segment.kind === 'disturbance'));
    expect(disturbed.length).toBeGreaterThan(0);
    for (const trajectory of first.trajectories) {
      validateTrajectory(trajectory);
      expect(trajectory.success).toBe(true);
      const pieces = segmentTokens(trajectory);
      const mask = lossMask(trajectory);
      let offset = 0;
      pieces.forEach((piece, index) => {
        if (piece.kind === 'disturbance') {
          // The env answered the slip, and the expert's next action is trained on.
          expect(pieces[index + 1]!.kind).toBe('observation');
          expect(pieces[index + 2]!.kind).toBe('action');
          expect(Array.from(mask.slice(offset, offset + piece.tokens.length)).every((bit) => bit === 0)).toBe(true);
        }
        offset += piece.tokens.length;
      });
      // Turns record every env step, slips marked; each slip's text is the tokens in its segment.
      const slips = pieces.filter((piece) => piece.kind === 'disturbance');
      const slipTurns = trajectory.steps.filter((turn) => turn.disturbed === true);
      expect(slipTurns).toHaveLength(slips.length);
      slipTurns.forEach((turn, i) => expect(tokenizer.decode(slips[i]!.tokens)).toBe(`${turn.action}<|im_end|>`));
      const next = trajectory.steps.findIndex((turn) => turn.disturbed === true);
      if (next >= 0) expect(trajectory.steps[next + 1]!.action).not.toBe(trajectory.steps[next]!.action);
    }
    // Without it, the expert's own episodes, exactly.
    const plain = await collectExpertTrajectories({ ...request, disturbance: 0 });
    expect(plain.trajectories.every((t) => t.segments.every((segment) => segment.kind !== 'disturbance'))).toBe(true);
    await expect(collectExpertTrajectories({ ...request, disturbance: 30 })).rejects.toThrow(/disturbance/);
    // Slips lengthen episodes; a cap drops the long ones with the reason, and keeps the rest whole.
    const lengths = first.trajectories.map((t) => t.tokens.length).sort((a, b) => a - b);
    const cap = lengths[Math.floor(lengths.length / 2)]!;
    const capped = await collectExpertTrajectories({ ...request, maxTokens: cap });
    expect(withoutWallClock(capped.trajectories)).toEqual(
      withoutWallClock(first.trajectories.filter((t) => t.tokens.length <= cap)),
    );
    expect(capped.dropped.filter((d) => /longer than maxTokens/.test(d.reason))).toHaveLength(
      first.trajectories.length - capped.trajectories.length,
    );
  });

  it('renders the prompt exactly as rollouts do, observation cut included', async () => {
    const model = LanguageModel.create(testConfig(), { seed: 0, tokenizer });
    try {
      for (const instructions of [true, false]) {
        const options = validateRolloutOptions({ instructions, maxObservationTokens: 20 });
        const { trajectories } = await collectExpertTrajectories({
          envId: ENV_ID,
          seeds: [7],
          format,
          registry,
          instructions,
          maxObservationTokens: 20,
        });
        const env = (await registry.make(ENV_ID)) as Env<string>;
        const prefix = await resetPrefix(env, 7, { model, format }, options);
        await env.close();
        const trajectory = trajectories[0]!;
        expect(trajectory.tokens.slice(0, prefix.tokens.length)).toEqual(prefix.tokens);
        expect(trajectory.segments[0]).toEqual(prefix.segments[0]);
        expect(tokenizer.decode(prefix.tokens)).toContain('<|im_start|>user\nFind the code. Start …[cut]<|im_end|>');
        expect(tokenizer.decode(prefix.tokens).includes('You are looking for a secret code')).toBe(instructions);
        // The record shows the cut observations; the expert still saw them whole and solved the task.
        expect(trajectory.steps.at(-1)!.observation).toBe('Correct: that is the …[cut]');
        expect(trajectory.success).toBe(true);
      }
    } finally {
      model.dispose();
    }
  });

  it('keeps only episodes the agent solved and says why the others were dropped', async () => {
    const seeds = Array.from({ length: 12 }, (_, index) => index);
    const { trajectories, dropped } = await collectExpertTrajectories({
      envId: ENV_ID,
      seeds,
      format,
      registry,
      instructions: false,
      agent: 'random',
      concurrency: 3,
    });
    expect(trajectories.length + dropped.length).toBe(seeds.length);
    expect(dropped.length).toBeGreaterThan(6);
    expect(trajectories.every((trajectory) => trajectory.success === true)).toBe(true);
    for (const episode of dropped) {
      expect(episode.reason).toMatch(/^(truncated \(time-limit\) before solving|ended unsolved)/);
      expect(episode.seed).toBe(seeds[episode.group]);
    }
  });

  it('turns tool calls and discrete options into the text the env reads back', () => {
    const call = { name: 'LOOKUP', arguments: { key: 'amber-12' } };
    const tools = { type: 'tools', tools: EXAMPLE_TOOLS } as const;
    const text = expertActionText(call, tools);
    expect(text).toBe('LOOKUP({"key":"amber-12"})');
    expect(parseToolCall(text, EXAMPLE_TOOLS)).toEqual({ ok: true, call });
    const discrete = { type: 'discrete', n: 3, labels: ['greet', 'offer', ''] } as const;
    expect(expertActionText(1, discrete)).toBe('offer');
    expect(expertActionText(2, discrete)).toBe('2');
    expect(expertActionText('SUBMIT(1234)', tools)).toBe('SUBMIT(1234)');
  });

  it('stops with an error naming the env, agent and seed when the expert cannot play', async () => {
    const broken = new Registry();
    broken.register({
      id: 'test/broken-v1',
      entryPoint: () => new ExampleEnv(),
      agents: {
        scripted: () => ({
          name: 'scripted',
          start: async () => undefined,
          act: async () => {
            throw new Error('no privileged access here');
          },
        }),
      },
    });
    const collecting = collectExpertTrajectories({
      envId: 'test/broken-v1',
      seeds: [3, 4],
      format,
      registry: broken,
      instructions: false,
    });
    await expect(collecting).rejects.toThrow(ExpertEpisodeError);
    await expect(collecting).rejects.toThrow(
      /test\/broken-v1 seed 3: the "scripted" agent's episode failed: no privileged/,
    );
  });
});

describe('sftBatches', () => {
  // Lengths spread like expert episodes of a few turns (100–250 tokens).
  const items = Array.from({ length: 50 }, (_, index) => ({ index, length: 100 + ((index * 37) % 150) }));
  const batches = (groupByLength: boolean, seed: number): (typeof items)[] =>
    sftBatches(items, (item) => item.length, 4, groupByLength, new SeededRng(seed));
  const padded = (list: (typeof items)[]): number =>
    list.reduce((sum, batch) => sum + batch.length * Math.max(...batch.map((item) => item.length)), 0);

  it.each([false, true])('visits every trajectory once per epoch in a seeded order (groupByLength %s)', (group) => {
    const epoch = batches(group, 5);
    expect(epoch.flat().map((item) => item.index)).toEqual(expect.arrayContaining(items.map((item) => item.index)));
    expect(epoch.flat()).toHaveLength(items.length);
    expect(epoch.every((batch) => batch.length >= 1 && batch.length <= 4)).toBe(true);
    expect(batches(group, 5)).toEqual(epoch);
    expect(batches(group, 6)).not.toEqual(epoch);
  });

  it('grouping by length pads less', () => {
    expect(padded(batches(true, 5))).toBeLessThan(0.9 * padded(batches(false, 5)));
  });
});

/** Solved expert episodes of the example env, rendered without instructions (as the warm starts below train). */
function expertEpisodes(seeds: number[], envOptions?: Record<string, unknown>) {
  return collectExpertTrajectories({
    envId: ENV_ID,
    ...(envOptions ? { envOptions } : {}),
    seeds,
    format,
    registry,
    instructions: false,
  });
}

describe('trainSft', () => {
  it('refuses bad data and options with errors naming the problem', async () => {
    const model = LanguageModel.create(testConfig({ maxPositions: 64 }), { seed: 0, tokenizer });
    try {
      const { trajectories } = await expertEpisodes([0]);
      const [trajectory] = trajectories as [Trajectory];
      await expect(trainSft(model, [], { base: true })).rejects.toThrow(SftDataError);
      await expect(trainSft(model, [trajectory], { base: true })).rejects.toThrow(
        `trajectory "expert/g0" has ${trajectory.tokens.length} tokens, more than the model's context (maxPositions = 64)`,
      );
      const short = { ...trajectory, episodeId: 'short', tokens: trajectory.tokens.slice(0, 40) };
      await expect(trainSft(model, [short], { base: true })).rejects.toThrow(
        `trajectory "short": its segments cover ${trajectory.tokens.length} tokens but it has 40`,
      );
      const fits = {
        ...short,
        segments: [
          { kind: 'prompt' as const, tokenCount: 30 },
          { kind: 'action' as const, tokenCount: 10 },
        ],
      };
      await expect(trainSft(model, [fits], { base: true, maxTokens: 30 })).rejects.toThrow(
        'trajectory "short" has 40 tokens, more than maxTokens = 30',
      );
      const promptOnly = { ...short, segments: [{ kind: 'prompt' as const, tokenCount: 40 }] };
      await expect(trainSft(model, [promptOnly], { base: true })).rejects.toThrow(
        'trajectory "short" has no action tokens',
      );
      await expect(trainSft(model, [trajectory], {})).rejects.toThrow(InvalidOptionsError);
      model.addAdapter('sft');
      await expect(trainSft(model, [trajectory], { base: true, adapter: 'sft' })).rejects.toThrow(/not both/);
      await expect(trainSft(model, [trajectory], { base: true, batchSize: 0 })).rejects.toThrow(/trainSft.*batchSize/);
    } finally {
      model.dispose();
    }
  });

  it('its loss is the mean cross-entropy of the action tokens alone', async () => {
    const { trajectories } = await expertEpisodes([0, 1, 2]);
    const model = LanguageModel.create(testConfig(), { seed: 4, tokenizer });
    try {
      // Scored before the update: the first step's loss is over these weights.
      const { logprobs } = await model.score(trajectories.map((trajectory) => ({ tokens: trajectory.tokens })));
      const actionLogprobs = trajectories.flatMap((trajectory, row) =>
        Array.from(lossMask(trajectory)).flatMap((bit, t) => (bit ? [logprobs[row]![t]!] : [])),
      );
      const steps: number[] = [];
      const result = await trainSft(model, trajectories, {
        base: true,
        batchSize: 3,
        onStep: (step) => steps.push(step.loss),
      });
      expect(result.epochs[0]!.actionTokens).toBe(actionLogprobs.length);
      expect(steps[0]).toBeCloseTo(-actionLogprobs.reduce((sum, value) => sum + value, 0) / actionLogprobs.length, 4);
    } finally {
      model.dispose();
    }
  });

  it('observationWeight also trains the env text, and still reports the action tokens alone', async () => {
    const { trajectories } = await expertEpisodes([0, 1, 2, 3]);
    const rows = trajectories.map((trajectory) => ({ tokens: trajectory.tokens }));
    /** Mean log π of the tokens the policy did not write (the first, unscored, left out). */
    const envTextLogprob = async (model: LanguageModel): Promise<number> => {
      const { logprobs } = await model.score(rows);
      const values = trajectories.flatMap((trajectory, row) =>
        Array.from(lossMask(trajectory)).flatMap((bit, t) => (!bit && t > 0 ? [logprobs[row]![t]!] : [])),
      );
      return values.reduce((sum, value) => sum + value, 0) / values.length;
    };
    const train = async (observationWeight: number): Promise<{ losses: number[]; before: number; after: number }> => {
      const model = LanguageModel.create(testConfig(), { seed: 5, tokenizer });
      try {
        const before = await envTextLogprob(model);
        const losses: number[] = [];
        await trainSft(model, trajectories, {
          base: true,
          epochs: 4,
          batchSize: 2,
          learningRate: 1e-2,
          observationWeight,
          onStep: (step) => losses.push(step.loss),
        });
        return { losses, before, after: await envTextLogprob(model) };
      } finally {
        model.dispose();
      }
    };
    const actionsOnly = await train(0);
    const withText = await train(0.5);
    // Same weights before the first update, and the reported loss is over the action tokens either way.
    expect(withText.losses[0]).toBeCloseTo(actionsOnly.losses[0]!, 5);
    expect(withText.after - withText.before).toBeGreaterThan(0.5);
    expect(withText.after).toBeGreaterThan(actionsOnly.after + 0.5);
    const model = LanguageModel.create(testConfig(), { seed: 5, tokenizer });
    try {
      await expect(trainSft(model, trajectories, { base: true, observationWeight: 1 })).rejects.toThrow(
        /observationWeight/,
      );
    } finally {
      model.dispose();
    }
  }, 60_000);

  it('awaits onEpoch after each epoch, before the next one starts', async () => {
    const { trajectories } = await expertEpisodes([0, 1, 2, 3]);
    const model = LanguageModel.create(testConfig(), { seed: 4, tokenizer });
    try {
      const seen: string[] = [];
      // Each onEpoch holds until a step runs (a trainer that does not wait: the step lands before the epoch
      // line and the test fails at once) or 200 ms pass. A waiting trainer passes at any speed; the timer
      // only bounds how long a non-waiting one has to show itself.
      let release: (() => void) | undefined;
      await trainSft(model, trajectories, {
        base: true,
        epochs: 3,
        batchSize: 2,
        onStep: (step) => {
          seen.push(`step ${step.step}`);
          release?.();
        },
        onEpoch: async (epoch) => {
          await new Promise<void>((resolve) => {
            const done = (): void => {
              clearTimeout(timer);
              release = undefined;
              resolve();
            };
            const timer = setTimeout(done, 200);
            release = done;
          });
          seen.push(`epoch ${epoch.epoch} (${epoch.steps} steps)`);
        },
      });
      expect(seen).toEqual([
        'step 1',
        'step 2',
        'epoch 0 (2 steps)',
        'step 3',
        'step 4',
        'epoch 1 (2 steps)',
        'step 5',
        'step 6',
        'epoch 2 (2 steps)',
      ]);
    } finally {
      model.dispose();
    }
  });

  it('shuffles with its seed, and trains a LoRA adapter without touching the base', async () => {
    const { trajectories } = await expertEpisodes([0, 1, 2, 3, 4, 5], { chainLength: 1 });
    const run = async (seed: number): Promise<number[]> => {
      const model = LanguageModel.create(testConfig(), { seed: 3, tokenizer });
      try {
        model.addAdapter('sft', { rank: 4, alpha: 8 });
        const rows = trajectories.slice(0, 2).map((trajectory) => ({ tokens: trajectory.tokens }));
        const before = await model.score(rows);
        const losses: number[] = [];
        const result = await trainSft(model, trajectories, {
          adapter: 'sft',
          epochs: 3,
          batchSize: 2,
          learningRate: 1e-2,
          seed,
          onStep: (step) => losses.push(step.loss),
        });
        expect(result.steps).toBe(9);
        expect(result.epochs.at(-1)!.loss).toBeLessThan(result.epochs[0]!.loss);
        expect(await model.score(rows)).toEqual(before);
        return losses;
      } finally {
        model.dispose();
      }
    };
    const first = await run(1);
    expect(await run(1)).toEqual(first);
    expect(await run(2)).not.toEqual(first);
  }, 30_000);

  it('teaches a from-scratch model the action format: greedy rollouts on its training seeds succeed', async () => {
    // chainLength 1: LOOKUP(the key named in the task), then SUBMIT(the code the lookup returned). Key and
    // code differ per task, so the format alone solves nothing: the model must copy them from its context
    // (or have memorised them per task — these are its training seeds, as in a warm start).
    const envOptions = { chainLength: 1, keys: 4 };
    const seeds = Array.from({ length: 16 }, (_, index) => index);
    const { trajectories, dropped } = await collectExpertTrajectories({
      envId: ENV_ID,
      envOptions,
      seeds,
      format,
      registry,
      instructions: false,
    });
    expect(dropped).toEqual([]);
    const model = LanguageModel.create(testConfig(), { seed: 1, tokenizer });
    const greedy = async (): Promise<{ successes: number; wellFormed: number }> => {
      const chains = await collectChains({
        policy: { model, format },
        makeEnv: async () => (await registry.make(ENV_ID, { options: envOptions })) as Env<string>,
        envId: ENV_ID,
        seeds,
        groupSize: 1,
        options: { temperature: 0, instructions: false, maxActionTokens: 24, maxRolloutTokens: 72 },
      });
      const actions = chains.flatMap((chain) => chain.steps.map((turn) => turn.action));
      return {
        successes: chains.filter((chain) => chain.success === true).length,
        wellFormed: actions.filter((action) => parseToolCall(action, EXAMPLE_TOOLS).ok).length / actions.length,
      };
    };
    try {
      const untrained = await greedy();
      expect(untrained).toEqual({ successes: 0, wellFormed: 0 });

      const result = await trainSft(model, trajectories, {
        base: true,
        epochs: 60,
        batchSize: 8,
        learningRate: 1e-2,
      });
      const [first, last] = [result.epochs[0]!, result.epochs.at(-1)!];
      // ln 264 ≈ 5.6 nats per token at the start; the actions are nearly all learnt by the end.
      expect(first.loss).toBeGreaterThan(4);
      expect(last.loss).toBeLessThan(0.4);
      expect(last.accuracy).toBeGreaterThan(0.8);

      const trained = await greedy();
      expect(trained.wellFormed).toBeGreaterThanOrEqual(0.9);
      // Both steps right, with keys and codes copied from the context, on at least a quarter of the tasks.
      expect(trained.successes).toBeGreaterThanOrEqual(4);
    } finally {
      model.dispose();
    }
  }, 120_000);
});
