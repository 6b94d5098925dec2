import { constants, existsSync, mkdtempSync, readdirSync, rmSync, type PathLike } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { captureIo as captureStreams } from './__fixtures__/capture-io';
import { runCli } from './program';

/** The CLI's streams, with what it wrote. */
function captureIo() {
  const { output, ...io } = captureStreams({ columns: 120 });
  return { io, output };
}

// Read-only storage (a mounted volume, a CI cache) under an output flag. Tests run as root here, which no file mode
// stops, so the file system's answer is stood in for: access(W_OK) says EROFS for everything under `root`, as a
// read-only mount does; every other file-system call is real.
describe('an output flag on read-only storage', () => {
  let root: string;
  let access: jest.SpyInstance;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'turngym-cli-read-only-'));
    // The module object itself (an `import * as` namespace is a copy, whose spy the CLI's calls would not meet).
    const fs = require('node:fs') as typeof import('node:fs');
    const real = fs.accessSync;
    access = jest.spyOn(fs, 'accessSync').mockImplementation((path: PathLike, mode?: number) => {
      if (String(path).startsWith(root) && mode !== undefined && (mode & constants.W_OK) !== 0) {
        throw Object.assign(new Error(`EROFS: read-only file system, access '${String(path)}'`), { code: 'EROFS' });
      }
      real(path, mode);
    });
  });
  afterEach(() => {
    access.mockRestore();
    rmSync(root, { recursive: true, force: true });
  });

  it('bench refuses it before any episode runs, naming the flag and the cause (exit 2)', async () => {
    const out = join(root, 'bench');
    const { io, output } = captureIo();
    const args = ['bench', 'quick', '--agent', 'random', '--envs', 'turngym/math-thought-v1', '--out', out];
    expect(await runCli(args, io)).toBe(2);
    expect(output().stderr).toContain(
      `error: --out ${out} cannot be written (it would be created in ${root}): EROFS: read-only file system`,
    );
    expect(existsSync(out)).toBe(false);
  });

  it('new-env refuses it before writing a file', async () => {
    const { io, output } = captureIo();
    expect(await runCli(['new-env', 'read-only-probe', '--dir', root], io)).toBe(2);
    expect(output().stderr).toContain(`error: --dir ${root} cannot be written: EROFS: read-only file system`);
    expect(readdirSync(root)).toEqual([]);
  });

  it('leaderboard --check, which writes nothing, still reads its inputs there', async () => {
    const { io, output } = captureIo();
    // No results in the read-only --out: the usual "run bench first", not a complaint about writing.
    expect(await runCli(['leaderboard', '--check', '--out', root], io)).toBe(2);
    expect(output().stderr).toContain('No results in');
    expect(output().stderr).not.toContain('cannot be written');
  });
});
