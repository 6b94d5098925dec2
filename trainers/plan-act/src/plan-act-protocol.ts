/**
 * The Plan/Act text protocol (ALGORITHMS.md §4; seed plan-act-dual-agent-report.md): what each role is told
 * before its turn, how its text is read, and who speaks next. Shared by the trained rollouts (`planActRoles`)
 * and the chat-model agent (`PlanActChatAgent`), so a planner trained here reads the same way over an endpoint.
 *
 * - The **planner** writes the next sub-task (history only), or finishes: `FINAL <env action>` sends the env
 *   its answer action as written (`FINAL SUBMIT(1843)` on the wiki, `FINAL Answer: 42` on math), so the
 *   protocol needs nothing from the env but its own action syntax.
 * - The **actor** acts on the env, one action (tool call) per turn, until it reports back with
 *   `REPORT <what it found>` (history only); the planner then reads the report and plans again.
 */
import type { RoleSchedule, RolloutRole, RolloutRoles, TrajectoryStep } from '@turngym/rl';

export const PLANNER = 'planner';
export const ACTOR = 'actor';
export type PlanActRoleName = typeof PLANNER | typeof ACTOR;

/** The words of the protocol; short by default, since a small byte-level model pays for every character. */
export interface PlanActProtocol {
  /** Ends the user message before each planner turn. */
  plannerCue: string;
  /** Ends the user message before each actor turn. */
  actorCue: string;
  /** A planner turn that starts with it finishes the episode: the rest is the env's answer action. */
  finishPrefix: string;
  /** An actor turn that starts with it reports back to the planner instead of acting. */
  reportPrefix: string;
}

export const DEFAULT_PROTOCOL: PlanActProtocol = {
  plannerCue: 'Plan:',
  actorCue: 'Act:',
  finishPrefix: 'FINAL ',
  reportPrefix: 'REPORT ',
};

/** The turn caps of the two roles. */
export interface PlanActCaps {
  /** Most planner turns per episode (sub-tasks and the final answer). */
  plannerMaxTurns: number;
  /** Most actor turns per episode. */
  actorMaxTurns: number;
  /** Most actor turns per sub-task: after this many env actions without a report, the planner speaks again. */
  actorTurnsPerTask: number;
}

/**
 * The text after the protocol word `prefix` opens `trimmed` with, or null. The word is matched whole: the
 * space of `FINAL ` may be any whitespace (or the end of the text), but `FINALLY …` or `REPORTED …` is not the
 * word, so a sub-task or an env action that merely starts with its letters is not read as a finish or a report.
 */
function afterPrefix(trimmed: string, prefix: string): string | null {
  const word = prefix.trim();
  if (word === '' || !trimmed.startsWith(word)) return null;
  const rest = trimmed.slice(word.length);
  if (/[\p{L}\p{N}_]$/u.test(word) && /^[\p{L}\p{N}_]/u.test(rest)) return null;
  return rest.trim();
}

/** What a planner's text does: finish with the env action after the prefix, or hand a sub-task to the actor. */
export function readPlannerTurn(
  text: string,
  protocol: PlanActProtocol = DEFAULT_PROTOCOL,
): { kind: 'finish'; envAction: string } | { kind: 'subtask'; subtask: string } {
  const trimmed = text.trim();
  const envAction = afterPrefix(trimmed, protocol.finishPrefix);
  if (envAction !== null) return { kind: 'finish', envAction };
  return { kind: 'subtask', subtask: trimmed };
}

/** What an actor's text does: report back to the planner, or act on the env with the text as its action. */
export function readActorTurn(
  text: string,
  protocol: PlanActProtocol = DEFAULT_PROTOCOL,
): { kind: 'report'; report: string } | { kind: 'act'; envAction: string } {
  const report = afterPrefix(text.trim(), protocol.reportPrefix);
  if (report !== null) return { kind: 'report', report };
  return { kind: 'act', envAction: text };
}

/**
 * Who speaks after `steps`: the planner first; the actor after each sub-task; the planner again after the
 * actor reports back (a history-only actor turn) or after `actorTurnsPerTask` actor turns in a row. A
 * planner turn that reached the env (a final answer the env did not end on) is followed by the actor, as
 * after a sub-task.
 */
export function reportSchedule(
  actorTurnsPerTask: number,
): RoleSchedule & ((steps: readonly Pick<TrajectoryStep, 'role' | 'envStep'>[]) => PlanActRoleName) {
  return (steps: readonly Pick<TrajectoryStep, 'role' | 'envStep'>[]) => {
    const last = steps.at(-1);
    if (last === undefined || last.role !== ACTOR) return last === undefined ? PLANNER : ACTOR;
    if (last.envStep === false) return PLANNER;
    let run = 0;
    for (let index = steps.length - 1; index >= 0 && steps[index]!.role === ACTOR; index--) run += 1;
    return run >= actorTurnsPerTask ? PLANNER : ACTOR;
  };
}

/**
 * The two roles for the rollout engine. `adapters` maps a role to its LoRA adapter (the seed's path 2,
 * independent policies on one base); a role without one samples with the rollout's adapter, shared with
 * the other role and told apart only by its cue (path 1, shared parameters).
 */
export function planActRoles(
  caps: PlanActCaps,
  adapters: Partial<Record<PlanActRoleName, string>> = {},
  protocol: PlanActProtocol = DEFAULT_PROTOCOL,
): RolloutRoles {
  const planner: RolloutRole = {
    name: PLANNER,
    ...(adapters.planner ? { adapter: adapters.planner } : {}),
    stepsEnv: false,
    envAction: (text) => {
      const turn = readPlannerTurn(text, protocol);
      return turn.kind === 'finish' ? turn.envAction : null;
    },
    cue: protocol.plannerCue,
    maxTurns: caps.plannerMaxTurns,
  };
  const actor: RolloutRole = {
    name: ACTOR,
    ...(adapters.actor ? { adapter: adapters.actor } : {}),
    stepsEnv: true,
    envAction: (text) => {
      const turn = readActorTurn(text, protocol);
      return turn.kind === 'act' ? turn.envAction : null;
    },
    cue: protocol.actorCue,
    maxTurns: caps.actorMaxTurns,
  };
  return { roles: [planner, actor], schedule: reportSchedule(caps.actorTurnsPerTask) };
}
