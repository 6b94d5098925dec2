import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readEpisodeRecords } from '@turngym/core';
import { captureIo } from '../__fixtures__/capture-io';
import { runCli } from '../program';

const ID = 'turngym/example-v1';

async function run(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const io = captureIo();
  const code = await runCli(['run', ID, ...argv], io);
  return { code, ...io.output() };
}

/** The (agent, seed) of every record in the file, in file order. */
function recorded(file: string): string[] {
  return readEpisodeRecords(file).map((record) => `${record.agent}:${record.seed}`);
}

describe('turngym run --out', () => {
  let dir: string;
  let out: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'turngym-cli-run-'));
    out = join(dir, 'episodes.jsonl');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses to record the seeds the file already holds for this env and agent, and says how to go on', async () => {
    expect((await run(['--agent', 'scripted', '--episodes', '3', '--out', out])).code).toBe(0);
    const before = readFileSync(out, 'utf8');

    // The same command again: refused before any episode, the file as it was.
    const again = await run(['--agent', 'scripted', '--episodes', '3', '--out', out]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(
      `error: --out ${out} already holds every episode of this run (${ID}, agent scripted, seeds 0–2); appending ` +
        'would record them twice. Choose another --out, or add --overwrite to empty the file first.',
    );
    // A longer run over the same seeds names the ones the file lacks.
    const longer = await run(['--agent', 'scripted', '--episodes', '5', '--out', out]);
    expect(longer.code).toBe(2);
    expect(longer.stderr).toContain('already holds 3 of the 5 episodes of this run');
    expect(longer.stderr).toContain('Run the seeds it lacks with --seed 3 --episodes 2, choose another --out');
    expect(readFileSync(out, 'utf8')).toBe(before);

    // What the message says works: the seeds it lacks, and another agent on the same seeds, are appended.
    expect((await run(['--agent', 'scripted', '--seed', '3', '--episodes', '2', '--out', out])).code).toBe(0);
    expect((await run(['--agent', 'random', '--episodes', '2', '--out', out])).code).toBe(0);
    expect(recorded(out)).toEqual([
      'scripted:0',
      'scripted:1',
      'scripted:2',
      'scripted:3',
      'scripted:4',
      'random:0',
      'random:1',
    ]);

    // --overwrite starts the file afresh.
    const fresh = await run(['--agent', 'scripted', '--episodes', '2', '--out', out, '--overwrite']);
    expect(fresh.code).toBe(0);
    expect(recorded(out)).toEqual(['scripted:0', 'scripted:1']);
  });

  it('runs again the seed of an episode the file holds only as errored or abandoned', async () => {
    expect((await run(['--agent', 'scripted', '--episodes', '2', '--out', out])).code).toBe(0);
    const [first, second] = readFileSync(out, 'utf8').trim().split('\n') as [string, string];
    const errored = {
      ...JSON.parse(second),
      complete: false,
      error: { code: 'ENV_FAULT', message: 'the browser crashed', retryable: true },
    };
    writeFileSync(out, `${first}\n${JSON.stringify(errored)}\n`);
    const retry = await run(['--agent', 'scripted', '--seed', '1', '--episodes', '1', '--out', out]);
    expect(retry.code).toBe(0);
    expect(readEpisodeRecords(out).map((record) => [record.seed, record.complete])).toEqual([
      [0, true],
      [1, false],
      [1, true],
    ]);
  });

  it('leaves a file that is not an episode file alone, --overwrite or not', async () => {
    writeFileSync(out, 'my notes\n');
    for (const extra of [[], ['--overwrite']]) {
      const refused = await run(['--agent', 'scripted', '--episodes', '1', '--out', out, ...extra]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('is not a TurnGym episode file');
    }
    expect(readFileSync(out, 'utf8')).toBe('my notes\n');
  });

  it('names --overwrite without --out as the mistake it is', async () => {
    const refused = await run(['--agent', 'scripted', '--overwrite']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--overwrite empties the --out file: give --out <file.jsonl> with it.');
  });
});

describe('turngym run --seed', () => {
  it('refuses, before any episode, seeds that run past 2^53 − 1, naming both flags', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'turngym-cli-run-'));
    const out = join(dir, 'episodes.jsonl');
    try {
      const refused = await run(['--agent', 'scripted', '--seed', '9007199254740990', '--episodes', '3', '--out', out]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(
        'error: --seed 9007199254740990 --episodes 3 would play seeds up to 9007199254740992, past 2^53 − 1',
      );
      expect(refused.stdout).toBe('');
      expect(() => readFileSync(out)).toThrow(/ENOENT/);
      // The last safe seed itself is played.
      const edge = await run(['--agent', 'scripted', '--seed', '9007199254740990', '--episodes', '2', '--json']);
      expect(edge.code).toBe(0);
      expect(JSON.parse(edge.stdout)).toMatchObject({ summary: { episodes: 2 }, errored: 0 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('turngym run --remote, against a turngym serve started here', () => {
  let serving: Promise<number>;
  let url: string;
  let stopServer: () => void;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'turngym-cli-run-remote-'));
    // `turngym serve` itself, in this process; it stops on SIGINT, so its handler is the one added meanwhile.
    const before = new Set(process.listeners('SIGINT'));
    const io = captureIo();
    serving = runCli(['serve', ID, '--port', '0'], io);
    for (let tries = 0; !/ws:\/\/\S+\/ws/.test(io.output().stdout); tries++) {
      if (tries > 200) throw new Error(`turngym serve did not start: ${JSON.stringify(io.output())}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    url = /(ws:\/\/\S+)\/ws/.exec(io.output().stdout)![1]!;
    const added = process.listeners('SIGINT').filter((listener) => !before.has(listener));
    stopServer = () => added.forEach((listener) => (listener as (signal: NodeJS.Signals) => void)('SIGINT'));
  }, 30_000);

  afterAll(async () => {
    stopServer?.();
    expect(await serving).toBe(0);
    rmSync(dir, { recursive: true, force: true });
  });

  it('plays the same episodes as a local run of the same seeds and options, and records them', async () => {
    const [local, remote] = [join(dir, 'local.jsonl'), join(dir, 'remote.jsonl')];
    const common = ['--agent', 'random', '--episodes', '4', '--seed', '5', '--options', '{"chainLength": 2}'];
    expect((await run([...common, '--out', local])).code).toBe(0);
    const served = await run([...common, '--out', remote, '--remote', url, '--concurrency', '2', '--json']);
    expect(served.code).toBe(0);
    expect(JSON.parse(served.stdout)).toMatchObject({ remote: url, errored: 0, summary: { episodes: 4 } });
    // The server built the env with the options (a chain of 2 keys), and each seed played the same episode.
    const episode = (file: string) =>
      readEpisodeRecords(file)
        .map((record) => ({
          envId: record.envId,
          seed: record.seed,
          agent: record.agent,
          complete: record.complete,
          observation: record.initialObservation,
          steps: record.steps.map((step) => [step.action, step.observation, step.reward]),
        }))
        .sort((a, b) => (a.seed as number) - (b.seed as number));
    expect(episode(remote)).toEqual(episode(local));
    expect(readEpisodeRecords(remote)).toHaveLength(4);
    // The same command again is refused, as for a local run.
    const again = await run([...common, '--out', remote, '--remote', url]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('already holds every episode of this run');
  });

  it('refuses, before any episode, what cannot run remotely, naming the flag', async () => {
    const cases: Array<[string[], string]> = [
      [
        ['--agent', 'scripted', '--remote', url],
        '--remote runs --agent random or a chat-model spec (openai:<model>, local:<checkpoint>); "scripted" is a baseline',
      ],
      [['--agent', 'random', '--token', 't'], '--token is the bearer token for --remote'],
      [
        ['--agent', 'random', '--remote', 'localhost:1'],
        '--remote must be a ws:// (or http://) URL of a turngym server',
      ],
      [['--agent', 'random', '--remote', 'ws://127.0.0.1:1'], 'Is `turngym serve` running there?'],
      [['--agent', 'random', '--remote', url, '--options', '{"chainLength": 99}'], 'options.chainLength must be <= 20'],
      [['--agent', 'random', '--remote', url, '--options', '{"nope": 1}'], `--remote ${url} refused the session`],
    ];
    for (const [argv, message] of cases) {
      const refused = await run(argv);
      expect({ argv, code: refused.code, message: refused.stderr.includes(message) }).toEqual({
        argv,
        code: 2,
        message: true,
      });
      expect(refused.stdout).toBe('');
    }
    const unserved = captureIo();
    expect(await runCli(['run', 'turngym/math-thought-v1', '--agent', 'random', '--remote', url], unserved)).toBe(2);
    expect(unserved.output().stderr).toContain('No environment named "turngym/math-thought-v1"');
  });
});
