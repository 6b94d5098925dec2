import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launcher } from '../launcher';

/** A kit folder holding the launcher and a stand-in `node` that prints what it was asked to run. */
function fakeKit(): { parent: string; kit: string } {
  const parent = realpathSync(mkdtempSync(join(tmpdir(), 'gpu-kit-launcher-')));
  const kit = join(parent, 'turngym-gpu-kit');
  mkdirSync(kit);
  writeFileSync(join(kit, 'run.sh'), launcher('kit.js', 'test bundle'));
  writeFileSync(
    join(kit, 'node'),
    '#!/bin/sh\nfor arg in "$@"; do echo "arg:$arg"; done\necho "dawn:$TURNGYM_DAWN_NODE"\necho "lib:$LD_LIBRARY_PATH"\n',
  );
  chmodSync(join(kit, 'run.sh'), 0o755);
  chmodSync(join(kit, 'node'), 0o755);
  return { parent, kit };
}

function run(parent: string, env: Record<string, string | undefined>): string {
  const { CDPATH: _ignored, ...rest } = process.env;
  return execFileSync('sh', ['turngym-gpu-kit/run.sh', '--json', '/tmp/a b.json'], {
    cwd: parent,
    env: { ...rest, LD_LIBRARY_PATH: '', ...env },
    encoding: 'utf8',
  });
}

describe('the kit launcher', () => {
  it("runs the bundle beside it with the kit's node, dawn.node and lib/, passing the arguments through", () => {
    const { parent, kit } = fakeKit();
    expect(run(parent, {})).toBe(
      `arg:${kit}/kit.js\narg:--json\narg:/tmp/a b.json\ndawn:${kit}/dawn.node\nlib:${kit}/lib\n`,
    );
  });

  it('finds its folder when the shell exports CDPATH (cd then prints the folder it chose)', () => {
    const { parent, kit } = fakeKit();
    expect(run(parent, { CDPATH: parent })).toBe(
      `arg:${kit}/kit.js\narg:--json\narg:/tmp/a b.json\ndawn:${kit}/dawn.node\nlib:${kit}/lib\n`,
    );
  });
});
