import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { captureIo } from '../__fixtures__/capture-io';
import { runCli } from '../program';

/** stderr without plugin-discovery warnings (an env package of the checkout that is not built). */
function errorLines(stderr: string): string[] {
  return stderr.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('warning: '));
}

describe('turngym bench / leaderboard / quickstart', () => {
  let dir: string;
  let suiteFile: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'turngym-cli-bench-'));
    suiteFile = join(dir, 'tiny-v1.json');
    writeFileSync(
      suiteFile,
      JSON.stringify({
        id: 'tiny-v1',
        description: 'Two example episodes, and an env that is not installed.',
        entries: [
          { envId: 'turngym/example-v1', seeds: [3, 4] },
          { envId: 'turngym/not-installed-v1', package: '@turngym/env-not-installed', seeds: [1] },
        ],
      }),
    );
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('bench runs each agent, writes one result per run and the leaderboard, with a progress bar on a terminal', async () => {
    const out = join(dir, 'out');
    const io = captureIo({ stderrIsTty: true });
    expect(await runCli(['bench', suiteFile, '--agent', 'scripted', '--agent', 'random', '--out', out], io)).toBe(0);
    const { stdout, stderr } = io.output();
    expect(stderr).toContain(
      'note: turngym/not-installed-v1 skipped: not installed (npm i @turngym/env-not-installed)',
    );
    expect(stderr).toMatch(/tiny-v1 · scripted \[.*\] \d\/2 episodes \| turngym\/example-v1 \| errored 0/);
    expect(stdout).toMatch(/^ENV\s+scripted\s+random$/m);
    expect(stdout).toMatch(/^turngym\/example-v1\s+100% \[100–100\]\s+0% \[0–0\]$/m);
    expect(stdout).toContain(`result: ${join(out, 'results', 'tiny-v1--scripted.json')}`);
    expect(existsSync(join(out, 'results', 'tiny-v1--random.json'))).toBe(true);
    expect(readFileSync(join(out, 'leaderboard.md'), 'utf8')).toMatch(/^\| 1 \| scripted \| 100% /m);
    expect(existsSync(join(out, 'index.html')) && existsSync(join(out, 'viewer.html'))).toBe(true);

    const json = captureIo();
    expect(await runCli(['bench', suiteFile, '--agent', 'scripted', '--out', out, '--json'], json)).toBe(0);
    const report = JSON.parse(json.output().stdout) as {
      results: { result: { overall: { success: { mean: number } } } }[];
    };
    expect(report.results[0]?.result.overall.success.mean).toBe(1);
  });

  it('fails before any episode, in one line with exit code 2, on an unknown agent or an unreachable endpoint', async () => {
    const out = join(dir, 'out');
    const unknown = captureIo();
    expect(await runCli(['bench', suiteFile, '--agent', 'gpt4o', '--out', out], unknown)).toBe(2);
    expect(errorLines(unknown.output().stderr)).toEqual([
      'error: Unknown agent "gpt4o" for turngym/example-v1: its baselines are random, scripted; or use a chat-model spec (openai:<model>, local:<checkpoint>).',
    ]);
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    await new Promise((resolve) => server.close(resolve));
    const unreachable = captureIo();
    expect(
      await runCli(
        ['bench', suiteFile, '--agent', 'openai:some-model', '--base-url', `http://127.0.0.1:${port}/v1`, '--out', out],
        unreachable,
      ),
    ).toBe(2);
    expect(errorLines(unreachable.output().stderr)).toEqual([
      `error: openai:some-model: cannot reach http://127.0.0.1:${port}/v1 (ECONNREFUSED); is an OpenAI-compatible server running there? Set --base-url or TURNGYM_OPENAI_BASE_URL.`,
    ]);
    const twice = captureIo();
    expect(await runCli(['bench', suiteFile, '--agent', 'random', '--agent', 'random', '--out', out], twice)).toBe(2);
    expect(errorLines(twice.output().stderr)).toEqual(['error: --agent random is given twice: each agent runs once.']);
    const badSuite = captureIo();
    expect(await runCli(['bench', 'nonesuch', '--agent', 'scripted', '--out', out], badSuite)).toBe(2);
    expect(errorLines(badSuite.output().stderr)).toEqual([
      'error: Unknown suite "nonesuch": built-in suites are full-v1, quick-v1, or pass the path of a suite file.',
    ]);
    expect(existsSync(join(out, 'runs'))).toBe(false);
  });

  it('leaderboard renders results and submissions, and --check rejects a bad file with exit code 2', async () => {
    const out = join(dir, 'out');
    expect(
      await runCli(['bench', suiteFile, '--agent', 'scripted', '--out', out, '--no-leaderboard'], captureIo()),
    ).toBe(0);
    expect(existsSync(join(out, 'index.html'))).toBe(false);
    const io = captureIo();
    expect(await runCli(['leaderboard', '--out', out, '--title', 'My board'], io)).toBe(0);
    expect(io.output().stdout).toMatch(/^# My board$/m);
    expect(io.output().stdout).toMatch(/^\| 1 \| scripted \| 100% \[100–100\] \| 100% \[100–100\] \|/m);
    expect(readFileSync(join(out, 'index.html'), 'utf8')).toContain('<title>My board</title>');

    const bad = join(dir, 'bad.json');
    const result = JSON.parse(readFileSync(join(out, 'results', 'tiny-v1--scripted.json'), 'utf8')) as {
      overall: { scored: number };
    };
    result.overall.scored += 1;
    writeFileSync(bad, JSON.stringify({ schema: 'turngym.leaderboard-submission/v1', submittedBy: 'Eve', result }));
    const check = captureIo();
    expect(await runCli(['leaderboard', '--check', join(out, 'results'), bad], check)).toBe(2);
    expect(errorLines(check.output().stderr)).toEqual([
      `error: ${bad} (result): result.overall's episode counts must be the sums over envs`,
    ]);
    const ok = captureIo();
    expect(await runCli(['leaderboard', '--check', join(out, 'results')], ok)).toBe(0);
    expect(ok.output().stdout).toBe('ok: 1 results and 0 submissions are valid\n');
  });

  it('quickstart runs both baselines on the suite, writes the leaderboard, and reuses a finished run', async () => {
    const out = join(dir, 'out');
    const io = captureIo();
    expect(await runCli(['quickstart', '--suite', suiteFile, '--out', out], io)).toBe(0);
    const { stdout, stderr } = io.output();
    expect(stdout).toMatch(/^tiny-v1: the random and scripted baselines on 1 env$/m);
    expect(stdout).toMatch(/^turngym\/example-v1\s+0% \[0–0\]\s+100% \[100–100\]$/m);
    expect(stdout).toContain(`leaderboard:  ${join(out, 'index.html')}`);
    expect(stderr.match(/note: turngym\/not-installed-v1 skipped/g)).toHaveLength(1);
    expect(existsSync(join(out, 'leaderboard.md'))).toBe(true);
    const again = captureIo();
    expect(await runCli(['quickstart', '--suite', suiteFile, '--out', out], again)).toBe(0);
    expect(again.output().stderr).toContain(
      'reusing tiny-v1--random: all 2 episodes are done (--fresh runs them again)',
    );
  });

  it('bench --list shows the built-in suites', async () => {
    const io = captureIo();
    expect(await runCli(['bench', '--list'], io)).toBe(0);
    expect(io.output().stdout).toMatch(/^SUITE\s+ENVS\s+EPISODES\s+DESCRIPTION$/m);
    expect(io.output().stdout).toMatch(/^quick-v1\s+8\s+160\s+/m);
    expect(io.output().stdout).toMatch(/^full-v1\s+8\s+800\s+/m);
  });
});
