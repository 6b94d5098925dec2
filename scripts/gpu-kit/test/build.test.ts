import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const build = join(__dirname, '..', 'build.js');

/** build.js's exit status and stderr for an output name it must refuse before any bundling. */
function refused(out: string): { status: number | null; stderr: string } {
  const { status, stderr } = spawnSync(process.execPath, [build, out], { encoding: 'utf8', timeout: 60_000 });
  return { status, stderr };
}

describe('build.js', () => {
  it('refuses an output folder that does not exist in one line, before bundling', () => {
    const missing = join(mkdtempSync(join(tmpdir(), 'gpu-kit-build-')), 'missing');
    expect(refused(join(missing, 'kit.tar.xz'))).toEqual({
      status: 1,
      stderr: `gpu-kit: ${missing} does not exist: create it, or name another folder for the kit\n`,
    });
  });

  it('refuses a name that decides no compression', () => {
    const out = join(mkdtempSync(join(tmpdir(), 'gpu-kit-build-')), 'kit.tar');
    expect(refused(out)).toEqual({
      status: 1,
      stderr: `gpu-kit: ${out}: the kit's name must end in one of .tar.xz, .txz, .tar.gz, .tgz (it decides the compression)\n`,
    });
  });
});
