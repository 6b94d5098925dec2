import { runEpisode } from '@turngym/core';
import { ByteTokenizer } from '@turngym/lm';
import { ScriptedChatModel } from '@turngym/llm';
import {
  ChatTurnFormat,
  collectExpertTrajectories,
  installedEnvRegistry,
  validateTrajectory,
  type Trajectory,
} from '@turngym/rl';
import { answerReport, mathCalcSteps, planActExpertTrajectory } from './expert-decomposition';
import { PlanActChatAgent } from './plan-act-chat-agent';
import { readActorTurn, readPlannerTurn, reportSchedule } from './plan-act-protocol';
import { validatePlanActWarmStartArgs } from './plan-act-warm-start';

const ENV_ID = 'turngym/math-thought-calc-v1';
const ENV_OPTIONS = { difficulties: [2], kinds: ['arithmetic'] };
const format = new ChatTurnFormat(new ByteTokenizer());
const registry = installedEnvRegistry();

describe('Plan/Act on math: the planner decomposes the expression, the actor runs the calculator', () => {
  let experts: Trajectory[];
  beforeAll(async () => {
    const collected = await collectExpertTrajectories({
      envId: ENV_ID,
      envOptions: ENV_OPTIONS,
      seeds: [1, 2, 3],
      format,
      instructions: false,
      registry,
    });
    experts = collected.trajectories;
  }, 60_000);

  it("asks each of the expert's calculator steps as a sub-task, reported by the calculator's result", () => {
    expect(experts).toHaveLength(3);
    for (const expert of experts) {
      const episode = planActExpertTrajectory(expert, format, mathCalcSteps, {
        actorTurnsPerTask: 2,
        instructions: false,
      });
      expect(() => validateTrajectory(episode)).not.toThrow();
      const planner = episode.steps.filter((step) => step.role === 'planner').map((step) => step.action);
      const calls = expert.steps.slice(0, -1).map((step) => /<calc>(.*)<\/calc>/.exec(step.action)![1]);
      // Several steps (difficulty 2 has nested operations), one sub-task each, then the expert's answer.
      expect(calls.length).toBeGreaterThan(1);
      // The planner asks for each step as the calculator call, the actor makes it and reports the calculator's line.
      expect(planner).toEqual([...calls.map((call) => `<calc>${call}</calc>`), `FINAL ${expert.steps.at(-1)!.action}`]);
      const reports = episode.steps.filter((step) => step.action.startsWith('REPORT ')).map((step) => step.action);
      expect(reports).toEqual(expert.steps.slice(0, -1).map((step) => `REPORT ${step.observation.trim()}`));
      expect(reports[0]).toMatch(/^REPORT .+ = \S+$/);
      // A later sub-task uses an earlier report's result: the planner carries the values the actor found.
      const carried = planner.slice(1).some((task, i) => task.includes(/= (\S+)$/.exec(reports[i]!)![1]!));
      expect(carried).toBe(true);
      const schedule = reportSchedule(2);
      episode.steps.forEach((step, index) => expect(step.role).toBe(schedule(episode.steps.slice(0, index))));
    }
  });

  it('plays one planner → actor episode end to end against the env and solves it', async () => {
    const expert = experts[0]!;
    const episode = planActExpertTrajectory(expert, format, mathCalcSteps, {
      actorTurnsPerTask: 2,
      instructions: false,
    });
    const texts = (role: string) => episode.steps.filter((step) => step.role === role).map((step) => step.action);
    const planner = new ScriptedChatModel(texts('planner'), { id: 'planner' });
    const actor = new ScriptedChatModel(texts('actor'), { id: 'actor' });
    const agent = new PlanActChatAgent({ planner, actor }, { actorTurnsPerTask: 2 });
    const env = await registry.make(ENV_ID, { options: ENV_OPTIONS });
    const outcome = await runEpisode(env, agent, expert.seed);
    await env.close();
    expect(outcome.success).toBe(true);
    expect(outcome.totalReward).toBe(expert.totalReward);
    // The env saw the actor's calculator calls and the planner's final answer, nothing else.
    expect(outcome.turns).toBe(expert.steps.length);
    const sent = agent.turns.filter((turn) => turn.envAction !== undefined);
    expect(sent.map((turn) => turn.role)).toEqual([...expert.steps.slice(0, -1).map(() => 'actor'), 'planner']);
    expect(sent.map((turn) => turn.envAction)).toEqual(expert.steps.map((step) => step.action));
    // Each planner call read the calculator's result the actor reported before it.
    for (const [index, request] of planner.requests.entries()) {
      if (index === 0) continue;
      const last = request.messages.at(-2)!;
      expect(readActorTurn(last.content as string)).toMatchObject({ kind: 'report' });
    }
    expect(readPlannerTurn(agent.turns.at(-1)!.text)).toEqual({
      kind: 'finish',
      envAction: expert.steps.at(-1)!.action,
    });
  });

  it("copies less with answer-report: sub-tasks name no number, the actor makes the expert's calls and reports its answer", async () => {
    for (const expert of experts) {
      const episode = planActExpertTrajectory(expert, format, answerReport(2), {
        actorTurnsPerTask: 3,
        instructions: false,
      });
      expect(() => validateTrajectory(episode)).not.toThrow();
      const schedule = reportSchedule(3);
      episode.steps.forEach((step, index) => expect(step.role).toBe(schedule(episode.steps.slice(0, index))));
      const planner = episode.steps.filter((step) => step.role === 'planner').map((step) => step.action);
      const answer = expert.steps.at(-1)!.action;
      // Difficulty 2 takes three calculator calls: two in the first run, one after "Continue.".
      expect(planner).toEqual(['Solve it.', 'Continue.', `FINAL ${answer}`]);
      const actor = episode.steps.filter((step) => step.role === 'actor').map((step) => step.action);
      const calls = expert.steps.slice(0, -1).map((step) => step.action);
      expect(actor).toEqual([calls[0], calls[1], 'REPORT done', calls[2], `REPORT ${answer}`]);
      // The only number the planner writes is the answer it read in the report just before.
      for (const task of planner.slice(0, -1)) expect(task).not.toMatch(/\d/);
    }
    // It plays against the env: the actor's calls and the planner's repeat of the reported answer solve it.
    const expert = experts[0]!;
    const episode = planActExpertTrajectory(expert, format, answerReport(2), {
      actorTurnsPerTask: 3,
      instructions: false,
    });
    const texts = (role: string) => episode.steps.filter((step) => step.role === role).map((step) => step.action);
    const agent = new PlanActChatAgent(
      { planner: new ScriptedChatModel(texts('planner')), actor: new ScriptedChatModel(texts('actor')) },
      { actorTurnsPerTask: 3 },
    );
    const env = await registry.make(ENV_ID, { options: ENV_OPTIONS });
    const outcome = await runEpisode(env, agent, expert.seed);
    await env.close();
    expect(outcome.success).toBe(true);
    expect(agent.turns.filter((turn) => turn.envAction !== undefined).map((turn) => turn.envAction)).toEqual(
      expert.steps.map((step) => step.action),
    );
    expect(validatePlanActWarmStartArgs({ envId: ENV_ID, out: 'out', decomposer: 'answer-report' }).decomposer).toBe(
      'answer-report',
    );
  });
});
