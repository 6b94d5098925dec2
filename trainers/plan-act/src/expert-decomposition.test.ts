import { ByteTokenizer } from '@turngym/lm';
import {
  ChatTurnFormat,
  collectExpertTrajectories,
  installedEnvRegistry,
  lossMask,
  validateTrajectory,
  type Trajectory,
} from '@turngym/rl';
import { planActExpertTrajectory, singleTask, wikiHops } from './expert-decomposition';
import { PlanActDecompositionError } from './plan-act-errors';
import { readActorTurn, readPlannerTurn, reportSchedule } from './plan-act-protocol';

const tokenizer = new ByteTokenizer();
const format = new ChatTurnFormat(tokenizer);

describe('Plan/Act episodes from the expert', () => {
  let experts: Trajectory[];
  beforeAll(async () => {
    const collected = await collectExpertTrajectories({
      envId: 'turngym/wiki-qa-compact-v1',
      envOptions: { questionTypes: ['bridge'], minHops: 2, maxHops: 3, articles: 400 },
      seeds: [1, 2, 3],
      format,
      instructions: false,
      registry: installedEnvRegistry(),
    });
    experts = collected.trajectories;
  }, 60_000);

  it("asks the wiki expert's hops as sub-questions; the actor takes its tool calls and reports each hop's value", () => {
    expect(experts).toHaveLength(3);
    for (const expert of experts) {
      const episode = planActExpertTrajectory(expert, format, wikiHops, { actorTurnsPerTask: 3, instructions: false });
      expect(() => validateTrajectory(episode)).not.toThrow();
      // The env sees exactly the expert's actions, in order: the actor's tool calls, then the planner's answer.
      const sent = episode.steps
        .filter((step) => step.envStep)
        .map((step) => {
          const read = step.role === 'planner' ? readPlannerTurn(step.action) : readActorTurn(step.action);
          return 'envAction' in read ? read.envAction : undefined;
        });
      expect(sent).toEqual(expert.steps.map((step) => step.action));
      expect(episode.totalReward).toBe(expert.totalReward);
      // The turns follow the rollouts' schedule, so the warm start sees what RL will ask of it.
      const schedule = reportSchedule(3);
      episode.steps.forEach((step, index) => expect(step.role).toBe(schedule(episode.steps.slice(0, index))));
      // One sub-question per hop, e.g. "Birthplace of X?", answered by the actor's report of the next page.
      const planner = episode.steps.filter((step) => step.role === 'planner').map((step) => step.action);
      expect(planner).toHaveLength(expert.steps.length);
      for (const question of planner.slice(0, -1)) expect(question).toMatch(/^[A-Z][\w -]* of .+\?$/);
      const reports = episode.steps.filter((step) => step.action.startsWith('REPORT '));
      reports.slice(0, -1).forEach((report, hop) => {
        // Each hop's report names the page the next hop opens.
        expect(planner[hop + 1]).toContain(report.action.slice('REPORT '.length));
      });
      // Both roles' tokens are trained on; each action segment carries its role.
      const text = (mask: Uint8Array | number[]) =>
        tokenizer.decode(episode.tokens.filter((_, t) => mask[t] === 1)).replace(/<\|im_end\|>/g, '|');
      expect(text(lossMask(episode, { role: 'planner' }))).toBe(`${planner.join('|')}|`);
      expect(tokenizer.decode(episode.tokens)).toContain('\n\nPlan:<|im_end|>');
    }
  });

  it('cuts any env into one sub-task in runs the per-task cap allows, and refuses a cut that skips a step', () => {
    const expert = experts[1]!;
    const episode = planActExpertTrajectory(expert, format, singleTask(1), {
      actorTurnsPerTask: 2,
      instructions: false,
    });
    expect(episode.steps.map((step) => step.role)).toEqual([
      ...expert.steps.slice(0, -1).flatMap(() => ['planner', 'actor', 'actor']),
      'planner',
    ]);
    expect(() =>
      planActExpertTrajectory(expert, format, singleTask(3), { actorTurnsPerTask: 2, instructions: false }),
    ).toThrow(PlanActDecompositionError);
    const skipping = () => [{ subtask: 'Go.', steps: [1], report: 'done' }];
    expect(() =>
      planActExpertTrajectory(expert, format, skipping, { actorTurnsPerTask: 3, instructions: false }),
    ).toThrow(/cover steps \[1\]/);
  });
});
