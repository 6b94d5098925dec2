import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ByteTokenizer } from '@turngym/lm';
import { collectChains } from './chain-rollouts';
import { lossMask } from './loss-mask';
import { useNodeCompletion, type RolloutPolicy } from './rollout-engine';
import { validateEpisodeRecord } from '@turngym/core';
import { InvalidTrajectoryError } from './rl-errors';
import {
  appendTrajectories,
  asEpisodeRecord,
  readTrajectories,
  TRAJECTORY_SCHEMA_ID,
  validateTrajectory,
  type Trajectory,
} from './trajectory';
import { withoutWallClock } from './__fixtures__/trajectory-fixture';
import { collectTrees } from './tree-rollouts';
import { DigitEnv, type DigitEnvOptions } from './__fixtures__/digit-env';
import { useDigitPolicy } from './__fixtures__/digit-policy';

const envFactory =
  (options: Partial<DigitEnvOptions> = {}) =>
  async () =>
    new DigitEnv({ maxTurns: 4, ...options });

describe('rollouts', () => {
  const digitPolicy = useDigitPolicy();
  let policy: RolloutPolicy;
  beforeAll(() => {
    policy = digitPolicy();
  });
  const tokenizer = new ByteTokenizer();

  const chains = (options: Record<string, unknown> = {}, env: Partial<DigitEnvOptions> = {}) =>
    collectChains({
      policy,
      makeEnv: envFactory(env),
      envId: 'test/digit-v1',
      seeds: [3, 4],
      groupSize: 3,
      options: { maxActionTokens: 8, seed: 11, ...options },
    });

  /** The logprobs the model gives the packed sequence: what the trainer will compute as π_old. */
  async function rescored(trajectory: Trajectory): Promise<number[]> {
    const { logprobs } = await policy.model.score([{ tokens: trajectory.tokens }]);
    return logprobs[0]!.map((value) => value ?? 0);
  }

  it('records each rollout token-in/token-out: the sampled logprobs are what the packed sequence scores', async () => {
    const trajectories = await chains();
    expect(trajectories).toHaveLength(6);
    expect(trajectories.map((trajectory) => trajectory.seed)).toEqual([3, 3, 3, 4, 4, 4]);
    for (const trajectory of trajectories) {
      const mask = lossMask(trajectory);
      expect(mask.length).toBe(trajectory.tokens.length);
      const scores = await rescored(trajectory);
      trajectory.tokens.forEach((_, t) => {
        if (mask[t]) expect(trajectory.logprobs[t]).toBeCloseTo(scores[t]!, 3);
        else expect(trajectory.logprobs[t]).toBe(0);
      });
      // Each action segment is exactly what was sent to the env (plus an end-of-turn token if sampled).
      let offset = 0;
      let turn = 0;
      for (const segment of trajectory.segments) {
        if (segment.kind === 'action') {
          const tokens = trajectory.tokens.slice(offset, offset + segment.tokenCount);
          const text = tokenizer.decode(policy.format.endsTurn(tokens) ? tokens.slice(0, -1) : tokens);
          expect(text).toBe(trajectory.steps[turn]!.action);
          turn += 1;
        }
        offset += segment.tokenCount;
      }
      expect(turn).toBe(trajectory.steps.length);
      // Observations are the env's, rendered as user turns.
      const decoded = tokenizer.decode(trajectory.tokens);
      expect(decoded.startsWith('<|im_start|>system\nReply with the digit.<|im_end|>')).toBe(true);
      expect(trajectory.generatedTokens).toBe(mask.reduce((sum, bit) => sum + bit, 0));
      // A chain runs every token of its sequence once, except the last one it sampled (nothing reads it).
      if (trajectory.segments.at(-1)!.kind === 'action')
        expect(trajectory.computedTokens).toBe(trajectory.tokens.length - 1);
    }
  });

  it('is deterministic for a seed and differs across seeds', async () => {
    const [a, b, c] = [await chains(), await chains(), await chains({ seed: 12 })];
    // The whole record, not only the tokens: only when it started and the env's wall time may differ.
    expect(withoutWallClock(b)).toEqual(withoutWallClock(a));
    expect(c.map((trajectory) => trajectory.tokens)).not.toEqual(a.map((trajectory) => trajectory.tokens));
  });

  it('omits the instructions when asked and cuts long observations', async () => {
    const [trajectory] = await chains({ instructions: false, maxObservationTokens: 5 }, { feedback: 'x'.repeat(40) });
    const text = tokenizer.decode(trajectory!.tokens);
    expect(text.startsWith('<|im_start|>user\nSay ')).toBe(true);
    expect(text).toContain('xxxxx …[cut]');
    expect(text).not.toContain('x'.repeat(6));
  });

  it('enforces per-rollout token and tool-call budgets and the per-prompt budget', async () => {
    const byTokens = await chains({ maxRolloutTokens: 12 }, { maxTurns: 20 });
    for (const trajectory of byTokens) {
      expect(trajectory.generatedTokens).toBeLessThanOrEqual(12);
      if (trajectory.stopReason !== 'terminated') expect(trajectory.stopReason).toBe('rollout-tokens');
    }
    const byCalls = await chains({ maxToolCalls: 2 }, { maxTurns: 20 });
    for (const trajectory of byCalls) {
      expect(trajectory.cost.toolCalls).toBeLessThanOrEqual(2);
      if (trajectory.stopReason !== 'terminated') expect(trajectory.stopReason).toBe('tool-calls');
    }
    const byPrompt = await chains({ promptTokenBudget: 40 }, { maxTurns: 20 });
    for (const group of [0, 1]) {
      const spent = byPrompt.filter((t) => t.group === group).reduce((sum, t) => sum + t.generatedTokens, 0);
      expect(spent).toBeLessThanOrEqual(40);
      expect(spent).toBeGreaterThan(20);
    }
    expect(byPrompt.some((trajectory) => trajectory.stopReason === 'prompt-tokens')).toBe(true);
  });

  it('stops a rollout at the context limit with a trajectory the trainer can score whole', async () => {
    // ~110-token observations and 20 turns overrun the model's 512 positions, in the middle of an observation
    // or of an action, depending on the rollout.
    const long = await chains({ maxRolloutTokens: 1000 }, { maxTurns: 20, feedback: 'x'.repeat(100) });
    const limit = policy.model.config.maxPositions;
    expect(long.some((trajectory) => trajectory.stopReason === 'context')).toBe(true);
    for (const trajectory of long) {
      expect(trajectory.tokens.length).toBeLessThanOrEqual(limit);
      if (trajectory.stopReason !== 'terminated') expect(trajectory.stopReason).toBe('context');
      if (trajectory.stopReason === 'context') expect(trajectory.segments.at(-1)!.kind).toBe('action');
    }
    await expect(policy.model.score(long.map((trajectory) => ({ tokens: trajectory.tokens })))).resolves.toBeDefined();
  });

  it('reports an env that throws as an errored rollout, closes its env and goes on with the others', async () => {
    const trajectories = await chains({}, { failAtTurn: 1 });
    for (const trajectory of trajectories) {
      if (trajectory.steps.length === 0 || trajectory.stopReason === 'terminated') continue;
      expect(trajectory.stopReason).toBe('error');
      expect(trajectory.error?.message).toContain('digit env failed at turn 1');
      expect(trajectory.complete).toBe(false);
    }
    expect(trajectories.some((trajectory) => trajectory.stopReason === 'error')).toBe(true);
  });

  it('writes each rollout as an episode record with tokens: the shared fields agree with its steps', async () => {
    const trajectories = await chains({ maxActionTokens: 8 }, { maxTurns: 3 });
    for (const trajectory of trajectories) {
      validateTrajectory(trajectory);
      const record = asEpisodeRecord(trajectory);
      expect(validateEpisodeRecord(record)).toEqual(record);
      expect(record).toMatchObject({ episodeId: trajectory.episodeId, envId: 'test/digit-v1', seed: trajectory.seed });
      expect(trajectory.turns).toBe(trajectory.steps.length);
      expect(trajectory.totalReward).toBeCloseTo(
        trajectory.steps.reduce((sum, step) => sum + step.reward, 0),
        12,
      );
      expect(trajectory.instructions).toBe('Reply with the digit.');
      expect(trajectory.initialObservation).toMatch(/^Say /);
      expect(trajectory.agent).toBe('lm:base');
      expect(trajectory.forkOf).toBeNull();
      const last = trajectory.steps.at(-1);
      expect(trajectory.terminated).toBe(trajectory.stopReason === 'terminated');
      expect(trajectory.complete).toBe(['terminated', 'truncated'].includes(trajectory.stopReason));
      if (trajectory.complete) {
        expect([last!.terminated, last!.truncated]).toEqual([trajectory.terminated, trajectory.truncated]);
        expect(trajectory.success).toBe(last!.info.success === true);
      }
      // Earlier steps did not end the episode; each keeps the env's own info.
      for (const step of trajectory.steps.slice(0, -1))
        expect([step.terminated, step.truncated]).toEqual([false, false]);
      expect(trajectory.cost.toolCalls).toBe(
        trajectory.steps.reduce((sum, step) => sum + ((step.info.cost as { toolCalls: number }).toolCalls ?? 0), 0),
      );
    }
    expect(trajectories.some((trajectory) => trajectory.complete)).toBe(true);
  });

  it('reads turngym.trajectory/v1 records as their v2 equivalent', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'turngym-rollouts-'));
    try {
      const v1 = {
        schema: 'turngym.trajectory/v1',
        id: 'it0/g0/c0',
        envId: 'test/digit-v1',
        seed: 3,
        group: 0,
        tokens: [1, 2, 3, 4],
        segments: [
          { kind: 'prompt', tokenCount: 1 },
          { kind: 'action', tokenCount: 2 },
          { kind: 'observation', tokenCount: 1 },
        ],
        logprobs: [0, -0.5, -0.25, 0],
        turns: [{ node: 'n1', action: '7', observation: 'no', reward: 0.2, actionTokens: 2, fingerprint: 'f7' }],
        reward: 0.2,
        success: null,
        stopReason: 'error',
        generatedTokens: 2,
        computedTokens: 3,
        toolCalls: 1,
        error: 'digit env failed at turn 1',
      };
      await writeFile(join(dir, 'trajectories.jsonl'), `${JSON.stringify(v1)}\n`);
      const [trajectory] = await readTrajectories(join(dir, 'trajectories.jsonl'));
      expect(trajectory).toMatchObject({
        schema: TRAJECTORY_SCHEMA_ID,
        episodeId: 'it0/g0/c0',
        turns: 1,
        totalReward: 0.2,
        success: false,
        complete: false,
        cost: { toolCalls: 1, llmTokens: 0, wallMs: 0 },
        error: { code: 'UNKNOWN', message: 'digit env failed at turn 1', retryable: false },
        steps: [
          { node: 'n1', action: '7', reward: 0.2, terminated: false, truncated: false, info: { fingerprint: 'f7' } },
        ],
      });
      expect(() => validateTrajectory({ ...v1, turns: 'many' })).toThrow(InvalidTrajectoryError);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('saves and reads trajectories as schema-checked JSONL', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'turngym-rollouts-'));
    try {
      const trajectories = await chains();
      await appendTrajectories(join(dir, 'trajectories.jsonl'), trajectories);
      expect(await readTrajectories(join(dir, 'trajectories.jsonl'))).toEqual(trajectories);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  describe('tree rollouts', () => {
    const trees = (shape = { trees: 2, branches: 2, rounds: 1 }, seed = 5) =>
      collectTrees({
        policy,
        makeEnv: envFactory({ maxTurns: 6 }),
        envId: 'test/digit-v1',
        seeds: [3, 4],
        shape,
        options: { maxActionTokens: 8, seed },
      });

    it('samples M·(1 + N·L) leaves per prompt; a branch shares its parent prefix and generates only the rest', async () => {
      const result = await trees();
      expect(result.trajectories).toHaveLength(12);
      const leavesOf = (group: number, tree: number) =>
        result.trajectories.filter((trajectory) => trajectory.group === group && trajectory.tree!.tree === tree);
      expect([0, 1].map((group) => [0, 1].map((tree) => leavesOf(group, tree).length))).toEqual([
        [3, 3],
        [3, 3],
      ]);
      for (const leaf of result.trajectories.filter((trajectory) => trajectory.tree!.round > 0)) {
        const { tree, sharedTurns, branchedFrom } = leaf.tree!;
        const siblings = leavesOf(leaf.group, tree);
        const parent = siblings.find((other) =>
          other.tree!.round === 0
            ? branchedFrom.endsWith('/n0') || other.steps.some((turn) => turn.node === branchedFrom)
            : false,
        )!;
        // The branch is a fork of the episode that reached its node, at its shared turns (as a forked
        // episode's record says), and a valid episode record itself.
        const forked = result.trajectories.find((other) => other.episodeId === leaf.forkOf?.episodeId)!;
        expect(leaf.forkOf!.turn).toBe(sharedTurns);
        expect(leaf.steps.slice(0, sharedTurns)).toEqual(forked.steps.slice(0, sharedTurns));
        validateEpisodeRecord(asEpisodeRecord(leaf));
        // The shared turns are the parent's, node ids included; the tokens up to the branch point match.
        expect(leaf.steps.slice(0, sharedTurns)).toEqual(parent.steps.slice(0, sharedTurns));
        const sharedLength = leaf.segments.slice(0, 1 + 2 * sharedTurns).reduce((sum, s) => sum + s.tokenCount, 0);
        expect(leaf.tokens.slice(0, sharedLength)).toEqual(parent.tokens.slice(0, sharedLength));
        const ownActions = leaf.steps.slice(sharedTurns).reduce((sum, turn) => sum + turn.actionTokens, 0);
        expect(leaf.generatedTokens).toBe(ownActions);
        // The node's cache holds its last observation (the parent's next turn ran it): the branch runs no
        // token of the shared prefix, only its own tokens after it, less the last one sampled (never run).
        expect(leaf.computedTokens).toBe(leaf.tokens.length - sharedLength - 1);
        // A branch continued from a forked KV cache scores like a fresh forward pass of its whole sequence.
        const scores = await rescored(leaf);
        const mask = lossMask(leaf);
        leaf.tokens.forEach((_, t) => {
          if (mask[t]) expect(leaf.logprobs[t]).toBeCloseTo(scores[t]!, 3);
        });
      }
    });

    it("samples the tokens branches sample when they run their node's last observation again", async () => {
      const completed = await trees();
      const previous = useNodeCompletion(false);
      let rerun: Awaited<ReturnType<typeof trees>>;
      try {
        rerun = await trees();
      } finally {
        useNodeCompletion(previous);
      }
      expect(completed.trajectories.map((leaf) => leaf.tokens)).toEqual(rerun.trajectories.map((leaf) => leaf.tokens));
      completed.trajectories.forEach((leaf, index) => {
        const other = rerun.trajectories[index]!;
        leaf.logprobs.forEach((logprob, t) => expect(Math.abs(logprob - other.logprobs[t]!)).toBeLessThan(1e-5));
        // A branch from a completed node runs none of its prefix; roots run the same either way.
        if (leaf.tree!.round === 0) expect(leaf.computedTokens).toBe(other.computedTokens);
        else expect(leaf.computedTokens).toBeLessThan(other.computedTokens);
      });
    });

    it('is deterministic for a seed', async () => {
      const [a, b] = [await trees(), await trees()];
      expect(withoutWallClock(b.trajectories)).toEqual(withoutWallClock(a.trajectories));
    });

    it('with N·L = 0 is M independent chains', async () => {
      const result = await trees({ trees: 3, branches: 0, rounds: 1 });
      expect(result.trajectories).toHaveLength(6);
      expect(result.trajectories.every((trajectory) => trajectory.tree!.round === 0)).toBe(true);
    });

    it('yields more rollouts per generated token than chains', async () => {
      const result = await trees();
      const plain = await chains({ seed: 5 }, { maxTurns: 6 });
      const perToken = (list: readonly Trajectory[]) =>
        list.length / list.reduce((sum, trajectory) => sum + trajectory.generatedTokens, 0);
      expect(perToken(result.trajectories) / perToken(plain)).toBeGreaterThan(1.15);
    });

    it('over L = 2 rounds, later rounds also branch from nodes the earlier rounds reached', async () => {
      // Round 1's nodes are snapshotted (only the last round's are named and not kept), so round 2 draws some.
      const result = await trees({ trees: 2, branches: 2, rounds: 2 }, 8);
      expect(result.trajectories).toHaveLength(2 * 2 * (1 + 2 * 2));
      // The round whose rollout reached each node (its own turns, after the ones it shares).
      const roundOf = new Map(
        result.trajectories.flatMap((leaf) =>
          leaf.steps.slice(leaf.tree!.sharedTurns).map((step) => [step.node, leaf.tree!.round] as const),
        ),
      );
      const fromRoundOne = result.trajectories.filter(
        (leaf) => leaf.tree!.round === 2 && roundOf.get(leaf.tree!.branchedFrom) === 1,
      );
      expect(fromRoundOne.length).toBeGreaterThan(0);
      for (const leaf of fromRoundOne) {
        const forked = result.trajectories.find((other) => other.episodeId === leaf.forkOf!.episodeId)!;
        expect(forked.tree!.round).toBe(1);
        expect(leaf.steps.slice(0, leaf.tree!.sharedTurns)).toEqual(forked.steps.slice(0, leaf.tree!.sharedTurns));
      }
    });

    it('rejects a bad shape naming the field', async () => {
      await expect(trees({ trees: 0, branches: 2, rounds: 1 })).rejects.toThrow('shape.trees is 0');
    });
  });
});
