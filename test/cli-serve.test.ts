import { errorLines, runBuiltCli, withBuiltServer } from './helpers/run-built-cli';

const ID = 'turngym/example-v1';

describe('turngym serve + check --remote', () => {
  it('serves an env that passes the checker over the wire, and closes on SIGTERM', async () => {
    const { code, stderr } = await withBuiltServer(ID, ['--max-sessions', '8'], async (url) => {
      const checked = await runBuiltCli([
        'check',
        ID,
        '--remote',
        url.replace(/^http/, 'ws'),
        '--options',
        '{"chainLength": 4}',
      ]);
      expect(checked.stdout).toMatch(/turngym\/example-v1: all \d+ checks passed/);
      expect(checked.code).toBe(0);

      const unknown = await runBuiltCli(['check', 'turngym/other-v1', '--remote', url]);
      expect(unknown.code).toBe(2);
      expect(errorLines(unknown.stderr)).toHaveLength(1);
    });
    expect(code).toBe(0);
    expect(stderr).toContain('SIGTERM: closing the server');
    expect(stderr).not.toContain('without a token');
  });

  it('warns when it serves beyond loopback without a token, and not with one', async () => {
    const open = await withBuiltServer(ID, ['--host', '0.0.0.0'], async () => {});
    expect(open.code).toBe(0);
    expect(open.stderr).toMatch(/serving on 0\.0\.0\.0 without a token: anyone who can reach this port/);
    const guarded = await withBuiltServer(ID, ['--host', '0.0.0.0'], async () => {}, {
      TURNGYM_SERVER_TOKEN: 'a-long-enough-secret-token-for-tests',
    });
    expect(guarded.code).toBe(0);
    expect(guarded.stderr).not.toContain('without a token');
  });

  it('an unknown id fails before the server starts', async () => {
    const result = await runBuiltCli(['serve', 'turngym/nope-v1', '--port', '0']);
    expect(result.code).toBe(2);
    expect(errorLines(result.stderr)).toEqual([
      expect.stringMatching(/^error: No environment named "turngym\/nope-v1"/),
    ]);
  });
});
