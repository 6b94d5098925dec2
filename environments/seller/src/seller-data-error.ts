import { TurnGymError } from '@turngym/core';

/** A products or personas file that is missing, not JSON, or fails its schema; the message names file and field. */
export class SellerDataError extends TurnGymError {
  constructor(
    readonly file: string,
    readonly problems: readonly string[],
    cause?: unknown,
  ) {
    super('INVALID_SELLER_DATA', `Invalid seller data in ${file}: ${problems.join('; ')}`, { cause });
  }
}
