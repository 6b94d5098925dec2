import type { Trajectory, TrajectoryStep } from './trajectory';

/**
 * One role of a rollout with several roles (ALGORITHMS.md §4, Plan/Act): a planner whose turns write the
 * next sub-task into the shared history, an actor whose turns step the env. Every role reads the same
 * system prompt and history (one token sequence per rollout), so each call continues a KV-cache prefix.
 */
export interface RolloutRole {
  /** Recorded on each of its turns and segments (`role`), and named by the schedule. */
  readonly name: string;
  /**
   * The LoRA adapter it generates with (an independent policy on the one base in memory); omitted = the
   * rollout's `options.adapter` (or the base model), shared with the other such roles, the role then told
   * apart only by its `cue` (the seed's shared-parameter path 1).
   */
  readonly adapter?: string;
  /** Whether its turns step the env (an actor) or only write to the history (a planner's sub-task). */
  readonly stepsEnv: boolean;
  /**
   * Decides per turn, from the text the role wrote, what reaches the env: the env action it stands for, or
   * null when the turn only writes to the history (an actor reporting back, a planner writing a sub-task; a
   * planner's final answer becomes the env's answer action). Given, it replaces `stepsEnv`; the turn records
   * the text as written and `envStep` says which way it went.
   */
  readonly envAction?: (text: string) => string | null;
  /**
   * Text the user message before each of its turns ends with (after the env's observation, if any), e.g.
   * "Planner: write the next sub-task." Omitted = nothing is added.
   */
  readonly cue?: string;
  /** Most turns it may take in one rollout; the rollout ends `truncated` when the schedule names it again. */
  readonly maxTurns?: number;
}

/**
 * Names the role of the next turn from the turns so far (each with its `role`). It must be a pure function
 * of them: the engine asks it when it writes the cue before a turn and again when it samples the turn.
 */
export type RoleSchedule = (steps: readonly TrajectoryStep[]) => string;

/** The roles of a rollout and who speaks when. */
export interface RolloutRoles {
  readonly roles: readonly RolloutRole[];
  readonly schedule: RoleSchedule;
}

/** Checks the roles (non-empty, unique names, turn caps) and returns them by name. */
export function rolesByName(roles: RolloutRoles): ReadonlyMap<string, RolloutRole> {
  if (roles.roles.length === 0) throw new RangeError('roles.roles is empty; expected at least one role.');
  const byName = new Map<string, RolloutRole>();
  roles.roles.forEach((role, index) => {
    if (typeof role.name !== 'string' || role.name === '') {
      throw new RangeError(`roles.roles[${index}].name is ${JSON.stringify(role.name)}; expected a non-empty string.`);
    }
    if (byName.has(role.name)) throw new RangeError(`roles.roles[${index}].name "${role.name}" is used twice.`);
    if (role.maxTurns !== undefined && (!Number.isInteger(role.maxTurns) || role.maxTurns < 1)) {
      throw new RangeError(`roles.roles[${index}].maxTurns is ${String(role.maxTurns)}; expected an integer >= 1.`);
    }
    byName.set(role.name, role);
  });
  return byName;
}

/** The role the schedule names for the turn after `turns`, checked against the declared roles. */
export function scheduledRole(
  roles: RolloutRoles,
  byName: ReadonlyMap<string, RolloutRole>,
  turns: readonly TrajectoryStep[],
): RolloutRole {
  const name = roles.schedule(turns);
  const role = byName.get(name);
  if (!role) {
    throw new RangeError(
      `The role schedule named ${JSON.stringify(name)} for turn ${turns.length}; expected one of ${[...byName.keys()].join(', ')}.`,
    );
  }
  return role;
}

/**
 * Plan/Act's schedule: a `planner` turn first, then `actsPerPlan` `actor` turns, then the planner again,
 * and so on (the planner sees each sub-task's results before writing the next).
 */
export function planActSchedule(options: { planner: string; actor: string; actsPerPlan: number }): RoleSchedule {
  if (!Number.isInteger(options.actsPerPlan) || options.actsPerPlan < 1) {
    throw new RangeError(`actsPerPlan is ${String(options.actsPerPlan)}; expected an integer >= 1.`);
  }
  return (turns) => (turns.length % (options.actsPerPlan + 1) === 0 ? options.planner : options.actor);
}

/** The user message before a turn: the env's observation, then the next role's cue. */
export function withCue(observation: string, cue: string | undefined): string {
  if (cue === undefined || cue === '') return observation;
  return observation === '' ? cue : `${observation}\n\n${cue}`;
}

/** What one role did and what its KV-cache prefix saved, summed over rollouts. */
export interface RoleStats {
  readonly turns: number;
  /** Turns that stepped the env. */
  readonly envSteps: number;
  /** Tokens the role sampled. */
  readonly actionTokens: number;
  /** Turns whose context started from a KV cache the role's adapter had already computed. */
  readonly cacheHits: number;
  /** Context tokens read from that cache instead of run again. */
  readonly reusedTokens: number;
}

/** Per role, its turns and KV-cache reuse in these trajectories (turns without a role are not counted). */
export function roleStats(trajectories: readonly Trajectory[]): Record<string, RoleStats> {
  const stats: Record<string, { -readonly [K in keyof RoleStats]: number }> = {};
  for (const trajectory of trajectories) {
    const shared = trajectory.tree?.sharedTurns ?? 0;
    // A branch's shared turns were spent by the rollout it branched from.
    for (const turn of trajectory.steps.slice(shared)) {
      if (turn.role === undefined) continue;
      const entry = (stats[turn.role] ??= { turns: 0, envSteps: 0, actionTokens: 0, cacheHits: 0, reusedTokens: 0 });
      entry.turns += 1;
      if (turn.envStep !== false) entry.envSteps += 1;
      entry.actionTokens += turn.actionTokens;
      const reused = turn.reusedTokens ?? 0;
      if (reused > 0) entry.cacheHits += 1;
      entry.reusedTokens += reused;
    }
  }
  return stats;
}
