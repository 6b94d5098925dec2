/**
 * Warm starts for both roles from the env's expert (ALGORITHMS.md §4): an expert episode is cut into
 * sub-tasks, and re-rendered as the Plan/Act episode that would have solved it — the planner writes each
 * sub-task and finally `FINAL <the expert's answer action>`, the actor takes the expert's actions of that
 * sub-task and reports back. The tokens are laid out exactly as the rollout engine lays out a Plan/Act
 * rollout (the same cues, the same history-only turns with an empty observation), so behaviour cloning on
 * them teaches what the RL rollouts will ask.
 */
import type { ChatTurnFormat, TokenSegment, Trajectory, TrajectoryStep } from '@turngym/rl';
import { withCue } from '@turngym/rl';
import { ACTOR, DEFAULT_PROTOCOL, PLANNER, type PlanActProtocol, type PlanActRoleName } from './plan-act-protocol';
import { PlanActDecompositionError } from './plan-act-errors';

/** One sub-task: what the planner asks, which expert steps the actor takes for it, what it reports. */
export interface SubTask {
  readonly subtask: string;
  /** Indices of the expert's steps, in order (never the last step: that is the planner's final answer). */
  readonly steps: readonly number[];
  readonly report: string;
}

/** Cuts a successful expert episode (all steps but the last, the answer) into sub-tasks. */
export type Decomposer = (expert: Trajectory) => SubTask[];

/** `# Title` on a compact wiki page; `--- Title · lines` on a full one. */
function pageTitle(observation: string): string | undefined {
  return (/^# (.*)$/m.exec(observation) ?? /^--- (.*?)(?: \([^()]*\))? · lines /m.exec(observation))?.[1]?.trim();
}

/** `Field: value` lines of a page, link brackets and markers removed from the value. */
function fieldLines(observation: string): { field: string; value: string }[] {
  const lines: { field: string; value: string }[] = [];
  for (const match of observation.matchAll(/^(?:L\d+ )?([A-Z][^:\n]{0,40}): (.+)$/gm)) {
    const value = match[2]!.replace(/\[#\d+ ([^\]]*)\]/g, '$1').replace(/\[([^\]]*)\]/g, '$1');
    lines.push({ field: match[1]!, value: value.trim() });
  }
  return lines;
}

/** The argument of a `NAME(argument)` action. */
function argumentOf(action: string): string {
  return /^\s*[A-Z_]+\((.*)\)\s*$/s.exec(action)?.[1]?.trim() ?? action.trim();
}

/**
 * The wiki's hops (bridge questions): the expert's path is its plan. Each page the expert opens is a hop;
 * the sub-question is the field of that page that leads on (the one whose value names the next page, or on
 * the last page the answer it submits): "Birthplace of Pella Heino?", reported as "Lyskgrad". Actions that
 * open no page (a search) join the hop of the next page. A page with no such field is asked as "Open <title>."
 * and reported by its title.
 */
export const wikiHops: Decomposer = (expert) => {
  const steps = expert.steps;
  const answer = argumentOf(steps.at(-1)?.action ?? '');
  const hops: SubTask[] = [];
  let pending: number[] = [];
  const pages = steps.slice(0, -1).map((step) => pageTitle(step.observation));
  pages.forEach((title, index) => {
    pending.push(index);
    if (title === undefined) return;
    const next = pages.slice(index + 1).find((page) => page !== undefined && page !== title) ?? answer;
    const lead = fieldLines(steps[index]!.observation).find((line) => line.value.includes(next));
    hops.push({
      subtask: lead ? `${lead.field} of ${title}?` : `Open ${title}.`,
      steps: pending,
      report: lead ? lead.value : title,
    });
    pending = [];
  });
  if (pending.length > 0) hops.push({ subtask: 'Look it up.', steps: pending, report: 'done' });
  return hops;
};

/**
 * The math env with its calculator (`turngym/math-thought-calc-v1`): the expert's calculation is its plan.
 * Each `<calc>` step is a sub-task of its own, in the order the expert evaluates the expression, the results of
 * earlier sub-tasks already substituted (so the planner decomposes the problem and carries the values). The
 * planner writes the step as the calculator call it asks for, `<calc>18 - 9</calc>`; the actor makes that call
 * and reports the calculator's line ("18 - 9 = 9"). Both are the shapes the single-agent warm start already
 * writes (its calls, the env's lines): in "Compute 18 - 9." the planner's words began as the problem's do,
 * and the tiny byte-level model copied the problem's numbers after them (0/50 as Plan/Act after 160 SFT
 * steps, against 3/50 after 192 in this shape; docs/benchmarks/learning.md). A step without a calculator call
 * is a sub-task "Continue." reported as "done".
 */
export const mathCalcSteps: Decomposer = (expert) =>
  expert.steps.slice(0, -1).map((step, index) => {
    const expression = /<calc>([\s\S]*?)<\/calc>/i.exec(step.action)?.[1]?.trim();
    const line = /^(.*=\s*\S[^\n]*?)\s*$/m.exec(step.observation)?.[1];
    return expression !== undefined && line !== undefined
      ? { subtask: `<calc>${expression}</calc>`, steps: [index], report: line }
      : { subtask: 'Continue.', steps: [index], report: 'done' };
  });

/**
 * Any env: one sub-task ("Solve it.") whose actor turns are the expert's actions, in runs of at most
 * `actorTurnsPerTask` (each run reports "done" and the planner says "Continue."), so the planner's final
 * answer follows from the shared history.
 */
export function singleTask(actorTurnsPerTask: number): Decomposer {
  return (expert) => {
    const indices = expert.steps.slice(0, -1).map((_, index) => index);
    const runs: SubTask[] = [];
    for (let from = 0; from < indices.length; from += actorTurnsPerTask) {
      runs.push({
        subtask: from === 0 ? 'Solve it.' : 'Continue.',
        steps: indices.slice(from, from + actorTurnsPerTask),
        report: 'done',
      });
    }
    return runs;
  };
}

/**
 * Any env, with as few copies as the protocol allows (issue 26: the tiny byte-level model copies each value
 * with a few per cent of error, and `mathCalcSteps` has the planner, the actor and the reports copy each
 * number three to five times). The planner's sub-task names nothing ("Solve it."); the actor takes the
 * expert's actions (in runs of at most `actorTurnsPerTask`, each but the last reporting "done" and followed by
 * "Continue.") and then reports the expert's answer action itself (`REPORT Answer: 28`, `REPORT
 * SUBMIT(Mewonar)`), written right after the observation it comes from, as the single agent writes its answer;
 * the planner finishes with that report (`FINAL Answer: 28`), the one extra copy. On math the actor's calls
 * are the single agent's own, in one sub-task, so nothing but the protocol's cues and turns lies between
 * them ("Solve it." with a report of "done" solved 0/50: its planner had to find the result two turns back).
 */
export function answerReport(actorTurnsPerTask: number): Decomposer {
  const runs = singleTask(actorTurnsPerTask);
  return (expert) => {
    const answer = expert.steps.at(-1)?.action.trim() ?? '';
    return runs(expert).map((run, index, all) => (index === all.length - 1 ? { ...run, report: answer } : run));
  };
}

interface RenderedTurn {
  readonly role: PlanActRoleName;
  readonly text: string;
  /** The expert step this turn replays (its observation, reward, info), or none for a history-only turn. */
  readonly step?: TrajectoryStep;
}

/**
 * The Plan/Act episode that solves what `expert` solved: one token sequence as the rollout engine would
 * have sampled it, with a role on every turn and segment. The actor's report is a turn of its own, so a
 * sub-task may hold at most `actorTurnsPerTask − 1` expert steps before it (checked).
 */
export function planActExpertTrajectory(
  expert: Trajectory,
  format: ChatTurnFormat,
  decompose: Decomposer,
  options: {
    readonly actorTurnsPerTask: number;
    /** Whether the expert's prompt (and so the rollouts') starts with the env's instructions as the system message. */
    readonly instructions: boolean;
    readonly protocol?: PlanActProtocol;
  },
): Trajectory {
  const protocol = options.protocol ?? DEFAULT_PROTOCOL;
  if (!expert.success || expert.steps.length === 0) {
    throw new PlanActDecompositionError(expert.episodeId, 'only a successful expert episode can be decomposed');
  }
  const subtasks = decompose(expert);
  const covered = subtasks.flatMap((subtask) => subtask.steps);
  if (
    covered.join() !==
    expert.steps
      .slice(0, -1)
      .map((_, index) => index)
      .join()
  ) {
    throw new PlanActDecompositionError(
      expert.episodeId,
      `sub-tasks cover steps [${covered}], not every step but the answer`,
    );
  }
  const turns: RenderedTurn[] = [];
  for (const subtask of subtasks) {
    if (subtask.steps.length + 1 > options.actorTurnsPerTask) {
      throw new PlanActDecompositionError(
        expert.episodeId,
        `sub-task "${subtask.subtask}" takes ${subtask.steps.length} actions and a report, more than actorTurnsPerTask (${options.actorTurnsPerTask})`,
      );
    }
    turns.push({ role: PLANNER, text: subtask.subtask });
    for (const index of subtask.steps)
      turns.push({ role: ACTOR, text: expert.steps[index]!.action, step: expert.steps[index]! });
    turns.push({ role: ACTOR, text: `${protocol.reportPrefix}${subtask.report}` });
  }
  const answer = expert.steps.at(-1)!;
  turns.push({ role: PLANNER, text: `${protocol.finishPrefix}${answer.action}`, step: answer });
  return render(expert, format, turns, protocol, options.instructions);
}

const cueOf = (role: PlanActRoleName, protocol: PlanActProtocol): string =>
  role === PLANNER ? protocol.plannerCue : protocol.actorCue;

/** The turns as the engine's token layout (prompt, then action / observation segments with roles). */
function render(
  expert: Trajectory,
  format: ChatTurnFormat,
  turns: readonly RenderedTurn[],
  protocol: PlanActProtocol,
  instructions: boolean,
): Trajectory {
  const system = instructions ? (expert.instructions ?? undefined) : undefined;
  const tokens = format.promptTokens(system, withCue(String(expert.initialObservation), protocol.plannerCue));
  const segments: TokenSegment[] = [{ kind: 'prompt', tokenCount: tokens.length, role: PLANNER }];
  const steps: TrajectoryStep[] = [];
  let generated = 0;
  turns.forEach((turn, index) => {
    const action = format.actionTokens(turn.text);
    tokens.push(...action);
    segments.push({ kind: 'action', tokenCount: action.length, role: turn.role });
    generated += action.length;
    const step = turn.step;
    steps.push({
      action: turn.text,
      observation: step?.observation ?? '',
      reward: step?.reward ?? 0,
      terminated: step?.terminated ?? false,
      truncated: step?.truncated ?? false,
      info: step?.info ?? {},
      node: `${expert.episodeId}/${index}`,
      actionTokens: action.length,
      role: turn.role,
      envStep: step !== undefined,
      reusedTokens: 0,
    });
    const next = turns[index + 1];
    if (next === undefined) return;
    const between = format.observationTokens(withCue(step?.observation ?? '', cueOf(next.role, protocol)), true);
    tokens.push(...between);
    segments.push({ kind: 'observation', tokenCount: between.length, role: next.role });
  });
  return {
    ...expert,
    agent: `plan-act-expert:${expert.agent}`,
    steps,
    turns: steps.length,
    tokens,
    segments,
    logprobs: tokens.map(() => 0),
    generatedTokens: generated,
    computedTokens: 0,
  };
}
