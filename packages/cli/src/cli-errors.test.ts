import { TurnGymError } from '@turngym/core';
import { EXIT_BAD_INPUT, EXIT_FAILURE, exitCodeFor } from './cli-errors';

describe('exitCodeFor', () => {
  it('exits 2 for input the user fixes on the command line: task files, a --run-dir holding another run', () => {
    for (const code of ['INVALID_TASKS', 'INVALID_TASK_FILE', 'RUN_DIRECTORY', 'FOREIGN_OUTPUT']) {
      expect(exitCodeFor(new TurnGymError(code, 'bad input'))).toBe(EXIT_BAD_INPUT);
    }
  });

  it('exits 1 for a full disk met mid-run, though the error that reports it has a bad-input code', () => {
    const full = Object.assign(new Error('EFBIG: file too large, write'), { code: 'EFBIG' });
    const appending = new TurnGymError('RUN_DIRECTORY', 'appending to trajectories.jsonl failed', { cause: full });
    expect(exitCodeFor(appending)).toBe(EXIT_FAILURE);
    for (const code of ['ENOSPC', 'EDQUOT', 'EIO']) {
      const cause = Object.assign(new Error(code), { code });
      expect(exitCodeFor(new TurnGymError('RUN_DIRECTORY', 'appending failed', { cause }))).toBe(EXIT_FAILURE);
    }
    // A --run-dir on read-only storage is refused before the run starts: the command line names the wrong place.
    const readOnly = Object.assign(new Error('EROFS: read-only file system'), { code: 'EROFS' });
    expect(exitCodeFor(new TurnGymError('RUN_DIRECTORY', 'cannot be written', { cause: readOnly }))).toBe(
      EXIT_BAD_INPUT,
    );
  });

  it('exits 1 for faults and bugs', () => {
    expect(exitCodeFor(new TurnGymError('ENV_FAULT', 'the env crashed'))).toBe(EXIT_FAILURE);
    expect(exitCodeFor(new Error('a bug'))).toBe(EXIT_FAILURE);
  });
});
