import { spawn } from 'node:child_process';
import { assertCliBuilt, CLI, errorLines, REPO_ROOT, runBuiltCli } from './helpers/run-built-cli';

const ID = 'turngym/example-v1';

describe('turngym serve + check --remote', () => {
  beforeAll(assertCliBuilt); // these tests spawn the built CLI themselves
  it('serves an env that passes the checker over the wire, and closes on SIGTERM', async () => {
    const server = spawn(process.execPath, [CLI, 'serve', ID, '--port', '0', '--max-sessions', '8'], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    server.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => server.on('close', (code) => resolve(code)));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let stdout = '';
        server.stdout.setEncoding('utf8').on('data', (chunk: string) => {
          stdout += chunk;
          const found = /^serving turngym\/example-v1 at (http:\/\/\S+)/m.exec(stdout)?.[1];
          if (found) resolve(found);
        });
        void exited.then((code) => reject(new Error(`serve exited (${code}) before listening: ${stderr}`)));
      });

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
    } finally {
      server.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    expect(stderr).toContain('SIGTERM: closing the server');
  });

  it('an unknown id fails before the server starts', async () => {
    const result = await runBuiltCli(['serve', 'turngym/nope-v1', '--port', '0']);
    expect(result.code).toBe(2);
    expect(errorLines(result.stderr)).toEqual([
      expect.stringMatching(/^error: No environment named "turngym\/nope-v1"/),
    ]);
  });
});
