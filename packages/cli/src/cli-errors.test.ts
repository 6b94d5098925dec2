import { TurnGymError } from '@turngym/core';
import { EXIT_BAD_INPUT, EXIT_FAILURE, exitCodeFor } from './cli-errors';

describe('exitCodeFor', () => {
  it('exits 2 for input the user fixes on the command line: task files, a --run-dir holding another run', () => {
    for (const code of ['INVALID_TASKS', 'INVALID_TASK_FILE', 'RUN_DIRECTORY', 'FOREIGN_OUTPUT']) {
      expect(exitCodeFor(new TurnGymError(code, 'bad input'))).toBe(EXIT_BAD_INPUT);
    }
  });

  it('exits 1 for faults and bugs', () => {
    expect(exitCodeFor(new TurnGymError('ENV_FAULT', 'the env crashed'))).toBe(EXIT_FAILURE);
    expect(exitCodeFor(new Error('a bug'))).toBe(EXIT_FAILURE);
  });
});
