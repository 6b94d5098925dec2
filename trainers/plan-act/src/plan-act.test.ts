import { existsSync } from 'node:fs';
import { readTrajectories, type Trajectory, type TrajectoryStep } from '@turngym/rl';
import { tf } from '@turngym/lm';
import { digitRegistry, readMetricsRows, smokeSetup } from '../../../packages/rl/src/__fixtures__/trainer-smoke';
import { trainPlanAct } from './plan-act';
import { planActRoles, readPlannerTurn, reportSchedule } from './plan-act-protocol';

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
    expect(existsSync(args('bad').runDir!)).toBe(false);
  });
});
