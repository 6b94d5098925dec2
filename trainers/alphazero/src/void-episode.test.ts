import { EnvFaultError, InvalidOptionsError } from '@turngym/core';
import { RoleUnusableError } from '@turngym/env-seller';
import { AlphaZeroError } from './alphazero-error';
import { isVoidEpisode } from './void-episode';

describe('isVoidEpisode', () => {
  it("voids the episode on a role's fault or unusable answers, and nothing else", () => {
    expect(isVoidEpisode(new EnvFaultError('the buyer role failed after its retries'))).toBe(true);
    const unusable = new RoleUnusableError({
      envId: 'turngym/seller-commander-v1',
      role: 'judge',
      model: 'openai:x',
      attempts: 2,
      lastReply: 'maybe',
      problem: 'no JSON object in the answer',
    });
    expect(isVoidEpisode(unusable)).toBe(true);
    // An env bug or a misuse stops the run.
    expect(isVoidEpisode(new AlphaZeroError('ALPHAZERO_ENV', 'reward NaN'))).toBe(false);
    expect(isVoidEpisode(new InvalidOptionsError('x', ['y']))).toBe(false);
    expect(isVoidEpisode(new TypeError('undefined is not a function'))).toBe(false);
  });
});
