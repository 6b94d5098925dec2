import { existsSync } from 'node:fs';
import {
  ChatTurnFormat,
  collectChains,
  lossMask,
  readTrajectories,
  type Trajectory,
  type TrajectoryStep,
} from '@turngym/rl';
import { ByteTokenizer, LanguageModel, testConfig, tf, Trainer, useBackend } from '@turngym/lm';
import { DigitEnv } from '../../../packages/rl/src/__fixtures__/digit-env';
import {
  digitRegistry,
  readMetricsRows,
  smokeSetup,
  SMOKE_BACKEND,
} from '../../../packages/rl/src/__fixtures__/trainer-smoke';
import { planActAlgorithm, trainPlanAct, validatePlanActArgs } from './plan-act';
import { planActRoles, readActorTurn, readPlannerTurn, reportSchedule } from './plan-act-protocol';

const step = (role: string, envStep: boolean): TrajectoryStep =>
  ({ role, envStep, action: '', observation: '', reward: 0, terminated: false, truncated: false }) as TrajectoryStep;

describe('the Plan/Act protocol', () => {
  it('has the planner first, the actor until it reports back or hits its per-task cap, then the planner', () => {
    const next = reportSchedule(2);
    expect(next([])).toBe('planner');
    expect(next([step('planner', false)])).toBe('actor');
    expect(next([step('planner', false), step('actor', true)])).toBe('actor');
    expect(next([step('planner', false), step('actor', false)])).toBe('planner'); // a report
    expect(next([step('planner', false), step('actor', true), step('actor', true)])).toBe('planner'); // the cap
    expect(next([step('planner', true)])).toBe('actor'); // a final answer the env did not end on
  });

  it("routes the planner's FINAL to the env as its answer action and the actor's REPORT to the history only", () => {
    const [planner, actor] = planActRoles({ plannerMaxTurns: 2, actorMaxTurns: 5, actorTurnsPerTask: 3 }).roles;
    expect(planner!.envAction!('find the year Morrow Bay was founded')).toBeNull();
    expect(planner!.envAction!('FINAL SUBMIT(1843)')).toBe('SUBMIT(1843)');
    expect(actor!.envAction!('CLICK(Morrow Bay)')).toBe('CLICK(Morrow Bay)');
    expect(actor!.envAction!('REPORT Founded: 1843')).toBeNull();
    expect(readPlannerTurn('  FINAL Answer: 42 ')).toEqual({ kind: 'finish', envAction: 'Answer: 42' });
    expect([planner!.maxTurns, actor!.maxTurns]).toEqual([2, 5]);
  });

  it('reads FINAL and REPORT as whole words: a sub-task or an action that only starts with their letters is not one', () => {
    const [planner, actor] = planActRoles({ plannerMaxTurns: 2, actorMaxTurns: 5, actorTurnsPerTask: 3 }).roles;
    // Was a finish sending the env "LY, add 3 and 4" (and "IZE the plan"), ending the planner's episode.
    expect(readPlannerTurn('FINALLY, add 3 and 4')).toEqual({ kind: 'subtask', subtask: 'FINALLY, add 3 and 4' });
    expect(planner!.envAction!('FINALIZE the plan')).toBeNull();
    expect(planner!.envAction!('FINAL_ANSWER 7')).toBeNull();
    // Was a report of "ED_LIST(x)" to the planner instead of the env action it is.
    expect(readActorTurn('REPORTED_LIST(x)')).toEqual({ kind: 'act', envAction: 'REPORTED_LIST(x)' });
    expect(actor!.envAction!('REPORTS()')).toBe('REPORTS()');
    // The space of "FINAL " may be a line break, or the end of the text (an empty answer action).
    expect(readPlannerTurn('FINAL\nSUBMIT(1843)')).toEqual({ kind: 'finish', envAction: 'SUBMIT(1843)' });
    expect(readPlannerTurn(' FINAL ')).toEqual({ kind: 'finish', envAction: '' });
    expect(readPlannerTurn('FINAL: SUBMIT(1843)')).toEqual({ kind: 'finish', envAction: ': SUBMIT(1843)' });
    expect(readActorTurn('REPORT\tFounded: 1843')).toEqual({ kind: 'report', report: 'Founded: 1843' });
  });
});

describe("path 2's update", () => {
  let model: LanguageModel;
  beforeAll(async () => {
    await useBackend(SMOKE_BACKEND);
    model = LanguageModel.create(testConfig({ maxPositions: 256 }), { seed: 7, tokenizer: new ByteTokenizer() });
  });
  afterAll(() => model.dispose());

  it("reports both adapters' trained tokens to the runner (its tokens per second), the actor's losses", async () => {
    const args = validatePlanActArgs({ envId: 'test/digit-v1', runDir: 'unused', policies: 'independent' });
    const algorithm = planActAlgorithm('independent');
    model.addAdapter('policy', { rank: 4, alpha: 8, seed: 1 });
    model.addAdapter('planner', { rank: 4, alpha: 8, seed: 2 });
    const trainer = new Trainer(model, { adapter: 'policy', learningRate: 1e-4 });
    const planner = new Trainer(model, { adapter: 'planner', learningRate: 1e-4 });
    try {
      const trajectories = await collectChains({
        policy: { model, format: new ChatTurnFormat(model.tokenizer), roles: algorithm.roles!(args) },
        makeEnv: async () => new DigitEnv({ maxTurns: 3 }),
        envId: 'test/digit-v1',
        seeds: [3, 4],
        groupSize: 2,
        options: { maxActionTokens: 6, maxRolloutTokens: 40, seed: 5, instructions: false, adapter: 'policy' },
      });
      const samples = trajectories.map((trajectory, index) => ({ trajectory, advantage: index % 2 ? 1 : -1 }));
      const tokensOf = (role: string) =>
        trajectories.reduce((sum, t) => sum + lossMask(t, { role }).reduce((a, b) => a + b, 0), 0);
      expect(tokensOf('planner')).toBeGreaterThan(0);
      const stats = await algorithm.update(trainer, samples, { args, iteration: 0, trainers: { planner }, stores: {} });
      // One update epoch: every action token of both roles went through a step once. Was the actor's alone.
      expect(stats.trainedTokens).toBe(tokensOf('actor') + tokensOf('planner'));
      const metrics = algorithm.metrics!({ trajectories }, { args, iteration: 0, trainers: { planner }, stores: {} });
      expect(stats.policyLoss).toBe(metrics['losses/actor_policy_loss']);
    } finally {
      trainer.dispose();
      planner.dispose();
    }
  });
});

// The loop, resume, budget and metrics are the runner's (tested in @turngym/rl); this is Plan/Act's smoke test.
describe('trainPlanAct', () => {
  const smoke = smokeSetup('turngym-plan-act-');
  const registry = digitRegistry();
  const args = (name: string) => ({ ...smoke.args(name), groupSize: 3, maxRolloutTokens: 40, actorTurnsPerTask: 2 });

  function expectRolesOnEveryTurn(trajectories: readonly Trajectory[]): void {
    for (const trajectory of trajectories) {
      expect(trajectory.steps[0]?.role).toBe('planner');
      for (const turn of trajectory.steps) {
        expect(['planner', 'actor']).toContain(turn.role);
        // Only a FINAL planner turn or a non-REPORT actor turn reached the env.
        const final = turn.action.trim().startsWith('FINAL');
        const report = turn.action.trim().startsWith('REPORT');
        expect(turn.envStep).toBe(turn.role === 'planner' ? final : !report);
      }
    }
  }

  it('shared parameters (path 1): both roles on the policy adapter, one cache, per-role metrics', async () => {
    const runDir = args('shared').runDir!;
    const result = await trainPlanAct({ ...args('shared'), policies: 'shared' }, { registry });
    expect(() => result.model.adapter('planner')).toThrow();
    result.model.dispose();
    expect(result.iterations).toBe(3);
    const trajectories = await readTrajectories(`${runDir}/trajectories.jsonl`);
    expectRolesOnEveryTurn(trajectories);
    expect(trajectories.every((t) => t.agent === 'planner=lm:policy,actor=lm:policy')).toBe(true);
    const rows = await readMetricsRows(runDir);
    expect(rows.some((row) => Number.isFinite(row['losses/policy_loss']))).toBe(true);
    // One shared cache: every turn after the first continues it.
    expect(rows.every((row) => row['cache/hit_rate']! > 0.4)).toBe(true);
    expect(rows.every((row) => row['roles/planner_turns']! >= 1)).toBe(true);
  });

  it('independent policies (path 2): a LoRA adapter per role on one base; a frozen role stays as it was', async () => {
    const trained = await trainPlanAct(
      { ...args('independent'), policies: 'independent', iterations: 2 },
      { registry },
    );
    const frozen = await trainPlanAct(
      { ...args('frozen'), policies: 'independent', plannerLossWeight: 0, iterations: 2 },
      { registry },
    );
    const norm = (model: typeof trained.model, name: string) =>
      model
        .adapter(name)
        .variables()
        .reduce((sum, variable) => sum + (tf.norm(variable).dataSync()[0] as number), 0);
    const untouched = (model: typeof trained.model) => {
      // LoRA starts with B = 0; B moves only through updates.
      const bs = [...model.adapter('planner').pairs.values()].map((pair) => tf.abs(pair.b).max().dataSync()[0]);
      return bs.every((value) => value === 0);
    };
    expect(untouched(trained.model)).toBe(false);
    expect(untouched(frozen.model)).toBe(true);
    expect(norm(frozen.model, 'policy')).not.toBe(norm(trained.model, 'policy'));
    trained.model.dispose();
    frozen.model.dispose();
    const trajectories = await readTrajectories(`${args('independent').runDir!}/trajectories.jsonl`);
    expectRolesOnEveryTurn(trajectories);
    expect(trajectories.every((t) => t.agent === 'planner=lm:planner,actor=lm:policy')).toBe(true);
    const rows = await readMetricsRows(args('independent').runDir!);
    expect(rows.some((row) => Number.isFinite(row['losses/planner_policy_loss']))).toBe(true);
  });

  it('rejects bad arguments naming the field', async () => {
    await expect(trainPlanAct({ ...args('bad'), policies: 'two' as never })).rejects.toThrow(/policies/);
    await expect(trainPlanAct({ ...args('bad'), plannerLossWeight: -1 })).rejects.toThrow(/plannerLossWeight/);
    // Both roles frozen: nothing would ever train. Refused before the run directory is written.
    await expect(
      trainPlanAct({ ...args('bad'), plannerLossWeight: 0, actorLossWeight: 0 }, { registry }),
    ).rejects.toThrow(/plannerLossWeight and actorLossWeight are both 0/);
    // Path 2 trains each adapter on its own role's tokens alone: a weight other than 0 or 1 was silently read as 1.
    await expect(
      trainPlanAct({ ...args('bad'), policies: 'independent', plannerLossWeight: 0.5 }, { registry }),
    ).rejects.toThrow(/plannerLossWeight is 0\.5 with policies 'independent'/);
    await expect(
      trainPlanAct({ ...args('bad'), policies: 'independent', actorLossWeight: 2, plannerLossWeight: 0 }, { registry }),
    ).rejects.toThrow(/actorLossWeight is 2 with policies 'independent'/);
    expect(existsSync(args('bad').runDir!)).toBe(false);
  });
});
