import { TurnGymError } from '@turngym/core';

/**
 * An expert episode that cannot be re-rendered as a Plan/Act episode: unsolved, or cut into sub-tasks that
 * skip a step or hold more actor turns than the schedule allows. The message names the episode, so the
 * decomposer or `actorTurnsPerTask` can be fixed rather than the warm start trained on less.
 */
export class PlanActDecompositionError extends TurnGymError {
  constructor(
    readonly episodeId: string,
    reason: string,
  ) {
    super('PLAN_ACT_DECOMPOSITION', `${episodeId}: ${reason}.`);
  }
}
