import { SeededRng } from '@turngym/core';
import { ByteTokenizer, LanguageModel, Trainer, isBackendAvailable, testConfig, tf, useBackend } from '@turngym/lm';
import { collectChains } from './chain-rollouts';
import { ChatTurnFormat } from './chat-turn-format';
import { actionSpans, lossMask, roleLossWeights } from './loss-mask';
import { ppoUpdate } from './ppo-update';
import type { RolloutPolicy } from './rollout-engine';
import { planActSchedule, roleStats, type RolloutRole } from './rollout-roles';
import type { Trajectory } from './trajectory';
import { collectTrees } from './tree-rollouts';
import { DigitEnv } from './__fixtures__/digit-env';

const tokenizer = new ByteTokenizer();
const format = new ChatTurnFormat(tokenizer);
const schedule = planActSchedule({ planner: 'planner', actor: 'actor', actsPerPlan: 2 });
const planner: RolloutRole = { name: 'planner', adapter: 'planner', stepsEnv: false, cue: 'Plan.' };
const actor: RolloutRole = { name: 'actor', adapter: 'actor', stepsEnv: true, cue: 'Act.' };

/** Sets every LoRA B of the adapter to seeded values, so the adapter really changes the policy. */
function perturb(model: LanguageModel, name: string, seed: number): void {
  const rng = new SeededRng(seed);
  for (const pair of model.adapter(name).pairs.values()) {
    const values = new Float32Array(pair.b.size).map(() => (rng.next() * 2 - 1) * 0.5);
    pair.b.assign(tf.tensor(values, pair.b.shape));
  }
}

describe('rollouts with several roles', () => {
  let model: LanguageModel;
  beforeAll(async () => {
    await useBackend(isBackendAvailable('wasm') ? 'wasm' : 'cpu');
    model = LanguageModel.create(testConfig({ maxPositions: 256 }), { seed: 7, tokenizer });
    model.addAdapter('planner', { rank: 4, alpha: 8, seed: 1 });
    model.addAdapter('actor', { rank: 4, alpha: 8, seed: 2 });
    perturb(model, 'planner', 11);
    perturb(model, 'actor', 12);
  });
  afterAll(() => model.dispose());
  afterEach(() => expect(DigitEnv.open).toBe(0));

  const rollouts = (roles: readonly RolloutRole[], options: Record<string, unknown> = {}) =>
    collectChains({
      policy: { model, format, roles: { roles, schedule } },
      makeEnv: async () => new DigitEnv({ maxTurns: 3 }),
      envId: 'test/digit-v1',
      seeds: [3, 4],
      groupSize: 2,
      options: { maxActionTokens: 6, seed: 5, instructions: false, ...options },
    });

  /** Log-probs of the packed sequence under an adapter: what the trainer computes as π_old. */
  async function scored(trajectory: Trajectory, adapter: string | null): Promise<number[]> {
    const { logprobs } = await model.score([{ tokens: trajectory.tokens }], { adapter });
    return logprobs[0]!.map((value) => value ?? 0);
  }

  let planAct: Trajectory[];
  beforeAll(async () => {
    planAct = await rollouts([planner, actor]);
  });

  it("interleaves a planner's turn that does not step the env with actor turns that do, role on every turn and segment", () => {
    expect(planAct).toHaveLength(4);
    for (const trajectory of planAct) {
      expect(trajectory.steps.length).toBeGreaterThan(1);
      trajectory.steps.forEach((turn, index) => {
        const role = index % 3 === 0 ? 'planner' : 'actor';
        expect(turn.role).toBe(role);
        expect(turn.envStep).toBe(role === 'actor');
        if (role === 'planner') expect(turn).toMatchObject({ observation: '', reward: 0 });
      });
      // Only the actor's turns reached the env: one tool call each.
      expect(trajectory.cost.toolCalls).toBe(trajectory.steps.filter((turn) => turn.role === 'actor').length);
      expect(trajectory.segments.every((segment) => segment.role !== undefined)).toBe(true);
      const actionRoles = trajectory.segments.filter((s) => s.kind === 'action').map((s) => s.role);
      expect(actionRoles).toEqual(trajectory.steps.map((turn) => turn.role));
      // Each context segment ends with the cue of the role that reads it next.
      let offset = 0;
      for (const segment of trajectory.segments) {
        const text = tokenizer.decode(trajectory.tokens.slice(offset, offset + segment.tokenCount));
        if (segment.kind !== 'action') expect(text).toContain(segment.role === 'planner' ? 'Plan.' : 'Act.');
        offset += segment.tokenCount;
      }
    }
  });

  it("samples each role with its own adapter: its tokens score as sampled under it, not under the other's", async () => {
    for (const trajectory of planAct) {
      const byAdapter = { planner: await scored(trajectory, 'planner'), actor: await scored(trajectory, 'actor') };
      for (const [role, other] of [
        ['planner', 'actor'],
        ['actor', 'planner'],
      ] as const) {
        const mask = lossMask(trajectory, { role });
        let gap = 0;
        trajectory.tokens.forEach((_, t) => {
          if (!mask[t]) return;
          // Switching adapters between turns leaks nothing: the cache each role continues is its own.
          expect(trajectory.logprobs[t]).toBeCloseTo(byAdapter[role][t]!, 3);
          gap += Math.abs(trajectory.logprobs[t]! - byAdapter[other][t]!);
        });
        expect(gap).toBeGreaterThan(0.5);
      }
    }
  });

  it("per-role masks select exactly that role's action tokens", () => {
    for (const trajectory of planAct) {
      const all = lossMask(trajectory);
      const plannerMask = lossMask(trajectory, { role: 'planner' });
      const actorMask = lossMask(trajectory, { role: 'actor' });
      let offset = 0;
      for (const segment of trajectory.segments) {
        for (let t = offset; t < offset + segment.tokenCount; t++) {
          const action = segment.kind === 'action';
          expect(plannerMask[t]).toBe(action && segment.role === 'planner' ? 1 : 0);
          expect(actorMask[t]).toBe(action && segment.role === 'actor' ? 1 : 0);
          expect(plannerMask[t]! + actorMask[t]!).toBe(all[t]);
        }
        offset += segment.tokenCount;
      }
      // Spans keep their turn index among all actions (per-turn advantages still line up).
      expect(actionSpans(trajectory, { role: 'planner' }).map((span) => span.turn)).toEqual(
        trajectory.steps.flatMap((turn, index) => (turn.role === 'planner' ? [index] : [])),
      );
      expect(roleLossWeights(trajectory, { planner: 0, actor: 0.5 })).toEqual(Array.from(actorMask, (bit) => bit / 2));
    }
  });

  it("counts each role's KV-cache prefix reuse: a role continues its own adapter's cache across the other's turns", () => {
    for (const trajectory of planAct) {
      const ends: Record<string, number> = {};
      let offset = 0;
      let turn = 0;
      for (const segment of trajectory.segments) {
        offset += segment.tokenCount;
        if (segment.kind !== 'action') continue;
        const record = trajectory.steps[turn++]!;
        // The cache held everything up to the role's last action but its last sampled token (never run).
        expect(record.reusedTokens).toBe(ends[record.role!] === undefined ? 0 : ends[record.role!]! - 1);
        ends[record.role!] = offset;
      }
    }
    const stats = roleStats(planAct);
    expect(stats.planner!.turns + stats.actor!.turns).toBe(planAct.reduce((sum, t) => sum + t.steps.length, 0));
    expect(stats.actor!.envSteps).toBe(stats.actor!.turns);
    expect(stats.planner!.envSteps).toBe(0);
    expect(stats.actor!.cacheHits).toBeGreaterThan(0);
    expect(stats.actor!.reusedTokens).toBeGreaterThan(0);
  });

  it('roles on the base model share one cache: more reuse and fewer tokens computed than with two adapters', async () => {
    const shared = await rollouts([
      { ...planner, adapter: undefined },
      { ...actor, adapter: undefined },
    ]);
    for (const trajectory of shared) {
      // Every turn after the first continues the previous turn's cache, whichever role wrote it.
      trajectory.steps.slice(1).forEach((turn) => expect(turn.reusedTokens).toBeGreaterThan(0));
      if (trajectory.segments.at(-1)!.kind === 'action')
        expect(trajectory.computedTokens).toBe(trajectory.tokens.length - 1);
    }
    const perTurn = (list: readonly Trajectory[], field: 'reused' | 'computed') =>
      list.reduce(
        (sum, t) =>
          sum + (field === 'computed' ? t.computedTokens : t.steps.reduce((a, turn) => a + turn.reusedTokens!, 0)),
        0,
      ) / list.reduce((sum, t) => sum + t.steps.length, 0);
    expect(perTurn(shared, 'reused')).toBeGreaterThan(perTurn(planAct, 'reused'));
    expect(perTurn(shared, 'computed')).toBeLessThan(perTurn(planAct, 'computed'));
  });

  it("ends a rollout 'truncated' when the schedule names a role past its turn cap", async () => {
    const capped = await rollouts([{ ...planner, maxTurns: 1 }, actor]);
    for (const trajectory of capped) {
      expect(trajectory.steps.filter((turn) => turn.role === 'planner')).toHaveLength(1);
      if (trajectory.stopReason !== 'terminated') expect(trajectory.stopReason).toBe('truncated');
      expect(trajectory.steps.length).toBeLessThanOrEqual(3);
    }
  });

  it("a role's envAction decides per turn what reaches the env: its reading of the text, or nothing", async () => {
    const sent: string[] = [];
    // The actor's turns alternate: the first of each pair reports back (history only), the second acts as "X".
    let turn = 0;
    const routed = await collectChains({
      policy: {
        model,
        format,
        roles: {
          roles: [planner, { ...actor, envAction: (text) => (turn++ % 2 === 0 ? null : `X${text.length}`) }],
          schedule,
        },
      },
      makeEnv: async () => {
        const env = new DigitEnv({ maxTurns: 3 });
        const step = env.step.bind(env);
        env.step = (action) => {
          sent.push(String(action));
          return step(action);
        };
        return env;
      },
      envId: 'test/digit-v1',
      seeds: [3],
      groupSize: 1,
      options: { maxActionTokens: 6, seed: 5, instructions: false, maxBatch: 1 },
    });
    const steps = routed[0]!.steps;
    const actorTurns = steps.filter((step) => step.role === 'actor');
    expect(actorTurns.length).toBeGreaterThan(1);
    actorTurns.forEach((step, index) => {
      expect(step.envStep).toBe(index % 2 === 1);
      // The record keeps the text as written; the env got the role's reading of it.
      if (step.envStep) expect(sent).toContain(`X${step.action.length}`);
      else expect(step).toMatchObject({ observation: '', reward: 0 });
    });
    expect(sent).toHaveLength(actorTurns.filter((step) => step.envStep).length);
    expect(roleStats(routed).actor!.envSteps).toBe(sent.length);
  });

  it("a role without an adapter samples with the rollout's adapter option", async () => {
    const [trajectory] = await rollouts([{ ...planner, adapter: undefined }, actor], { adapter: 'planner' });
    const byPlanner = await scored(trajectory!, 'planner');
    const mask = lossMask(trajectory!, { role: 'planner' });
    trajectory!.tokens.forEach((_, t) => {
      if (mask[t]) expect(trajectory!.logprobs[t]).toBeCloseTo(byPlanner[t]!, 3);
    });
  });

  it('refuses an unknown role, a missing adapter, a duplicate role and tree rollouts, naming the problem', async () => {
    await expect(rollouts([actor])).rejects.toThrow('The role schedule named "planner" for turn 0');
    await expect(rollouts([{ ...planner, adapter: 'nope' }, actor])).rejects.toThrow('nope');
    await expect(rollouts([planner, { ...actor, name: 'planner' }])).rejects.toThrow('is used twice');
    const policy: RolloutPolicy = { model, format, roles: { roles: [planner, actor], schedule } };
    await expect(
      collectTrees({
        policy,
        makeEnv: async () => new DigitEnv({ maxTurns: 3 }),
        envId: 'test/digit-v1',
        seeds: [3],
        shape: { trees: 1, branches: 1, rounds: 1 },
      }),
    ).rejects.toThrow('tree rollouts (snapshots) take one policy');
  });

  it("ppoUpdate's roleWeights train one role's tokens and leave out samples with none", async () => {
    const trainer = new Trainer(model, { adapter: 'actor', learningRate: 1e-4 });
    const variables = model.adapter('actor').variables();
    const before = variables.map((variable) => tf.clone(variable));
    const samples = planAct.map((trajectory) => ({ trajectory, advantage: 1 }));
    const actorTokens = planAct.reduce((sum, t) => sum + lossMask(t, { role: 'actor' }).reduce((a, b) => a + b, 0), 0);
    const stats = await ppoUpdate(trainer, samples, { roleWeights: { planner: 0 }, minibatchSize: 4 });
    expect(stats.actionTokens).toBe(actorTokens);
    await expect(ppoUpdate(trainer, samples, { roleWeights: { planner: 0, actor: 0 } })).rejects.toThrow(
      'no sample has an action token',
    );
    // Undo the step so the adapter stays the one the rollouts were sampled with.
    variables.forEach((variable, index) => variable.assign(before[index]!));
    tf.dispose(before);
  });
});
