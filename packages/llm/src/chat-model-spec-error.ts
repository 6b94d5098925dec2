import { TurnGymError } from '@turngym/core';

/** A model spec string that names no known backend, or one that is not available in this install. */
export class ChatModelSpecError extends TurnGymError {
  constructor(
    readonly spec: string,
    message: string,
  ) {
    super('INVALID_MODEL_SPEC', message);
  }
}
