import { TurnGymError } from '@turngym/core';

/**
 * A tree search asked of something it cannot search: an env whose actions are not a finite list (not a
 * discrete space, and no `actions` hook to list them), a state with no legal action that is not terminal, an
 * action listed twice, a prior hook whose probabilities do not fit the state's actions, a value hook that gives
 * NaN or an infinity, or a score hook that gives NaN. Code `TREE_SEARCH`.
 */
export class TreeSearchError extends TurnGymError {
  constructor(message: string) {
    super('TREE_SEARCH', message);
  }
}
