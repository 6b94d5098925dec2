import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readEpisodeRecords, runEpisode } from '@turngym/core';
import { ExampleEnv, ExampleSolver } from '@turngym/env-example';
import { ScriptedChatModel, serveChatModel, type ChatRequest, type ScriptedReply } from '@turngym/llm';
import { ByteTokenizer, LanguageModel, saveCheckpoint, testConfig } from '@turngym/lm';
import type { Action } from '@turngym/spec';
import { runBuiltCli } from './helpers/run-built-cli';

const ID = 'turngym/example-v1';

/** The actions the scripted solver takes on `seed`, played in-process: what a person would type. */
async function solution(seed: number): Promise<string[]> {
  const env = new ExampleEnv();
  const solver = new ExampleSolver();
  const actions: Action[] = [];
  const recording = {
    ...solver,
    name: solver.name,
    start: solver.start.bind(solver),
    act: async (observation: string) => {
      const action = await solver.act(observation);
      actions.push(action);
      return action;
    },
  };
  const outcome = await runEpisode(env, recording, seed);
  await env.close();
  expect(outcome.success).toBe(true);
  return actions.map(String);
}

describe('turngym list / info / check', () => {
  it('list shows the example env with its one-line summary', async () => {
    const result = await runBuiltCli(['list']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/turngym\/example-v1\s+Follow a chain of keys to a secret code and submit it\./);
  });

  it("info prints the env's documented sections, spaces and tools with their JSON Schemas", async () => {
    const result = await runBuiltCli(['info', ID]);
    expect(result.code).toBe(0);
    for (const heading of [
      'Description',
      'Action Space',
      'Observation Space',
      'Rewards',
      'Starting State',
      'Episode End',
      'Arguments',
      'Version History',
    ]) {
      expect(result.stdout).toMatch(new RegExp(`^${heading}$`, 'm'));
    }
    expect(result.stdout).toContain('action        tools: LOOKUP, SUBMIT');
    expect(result.stdout).toContain('LOOKUP — Read the value stored under a key.');
    expect(result.stdout).toContain('"properties": { "key": { "type": "string", "minLength": 1, "maxLength": 64 } }');
    expect(result.stdout).toMatch(/chainLength\s+integer\s+default 3\s+1–20/);
    const json = await runBuiltCli(['info', ID, '--json', '--options', '{"maxTurns": 4}']);
    const parsed = JSON.parse(json.stdout) as {
      spec: { maxTurns: number; tools: { name: string }[] };
      agents: string[];
    };
    expect(parsed.spec.maxTurns).toBe(4);
    expect(parsed.spec.tools.map((tool) => tool.name)).toEqual(['LOOKUP', 'SUBMIT']);
    expect(parsed.agents).toEqual(['random', 'scripted']);
  });

  it('check passes on the example env (exit 0) and reports every check', async () => {
    const result = await runBuiltCli(['check', ID, '--seed', '3']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('✓ fork equivalence');
    expect(result.stdout).toMatch(/turngym\/example-v1: all \d+ checks passed/);
  });
  // The checker replays the env's scripted agent: a bug on a path the expert never takes passed every check.
  it('check --agent random finds what the scripted agent never steps on; an agent the env lacks is named', async () => {
    const fixture = join(__dirname, 'fixtures', 'off-path-env');
    const scripted = await runBuiltCli(['--plugin', fixture, 'check', 'fixture/off-path-v1']);
    expect(scripted.code).toBe(0);
    const random = await runBuiltCli(['--plugin', fixture, 'check', 'fixture/off-path-v1', '--agent', 'random']);
    expect(random.code).toBe(1);
    expect(random.stdout).toMatch(
      /^✗ seed determinism — two fresh envs reset with seed 7 and given the same actions differ/m,
    );
    const unknown = await runBuiltCli(['--plugin', fixture, 'check', 'fixture/off-path-v1', '--agent', 'expert']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(
      'error: fixture/off-path-v1 has no agent "expert": --agent takes scripted, random.',
    );
  });
  it('check exits 1 and names the failures when an env fails a check', async () => {
    const fixture = join(__dirname, 'fixtures', 'ended-session-env');
    const result = await runBuiltCli(['--plugin', fixture, 'check', 'fixture/ended-session-v1']);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^✗ malformed actions are ordinary steps — threw RESET_NEEDED: /m);
    expect(result.stdout).toMatch(/fixture\/ended-session-v1: \d+ of \d+ checks failed/);
  });
});

describe('turngym run', () => {
  let directory: string;
  beforeAll(() => {
    directory = mkdtempSync(join(tmpdir(), 'turngym-cli-run-'));
  });
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  it('--json prints the summary: the scripted agent solves every episode, random almost none', async () => {
    const scripted = await runBuiltCli(['run', ID, '--agent', 'scripted', '--episodes', '12', '--seed', '5', '--json']);
    expect(scripted.code).toBe(0);
    const report = JSON.parse(scripted.stdout) as {
      envId: string;
      agent: string;
      summary: {
        episodes: number;
        successRate: number;
        meanReward: number;
        successInterval: { low: number; high: number };
      };
    };
    expect(report).toMatchObject({
      envId: ID,
      agent: 'scripted',
      summary: { episodes: 12, successRate: 1, meanReward: 1 },
    });
    expect(report.summary.successInterval.high).toBe(1);
    expect(report.summary.successInterval.low).toBeLessThan(1);
    const random = JSON.parse(
      (await runBuiltCli(['run', ID, '--agent', 'random', '--episodes', '12', '--json'])).stdout,
    ) as { summary: { successRate: number } };
    expect(random.summary.successRate).toBeLessThan(0.5);
  });

  it('prints success rate and mean reward with 95% intervals for people', async () => {
    const result = await runBuiltCli(['run', ID, '--agent', 'scripted', '--episodes', '3']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/success rate\s+1\.000 \[0\.\d{3}, 1\.000\]/);
    expect(result.stdout).toMatch(/mean reward\s+1\.000 \[1\.000, 1\.000\]/);
  });

  it('--out records every episode (seeds S..S+N-1), also with --concurrency', async () => {
    const out = join(directory, 'nested', 'records.jsonl');
    const result = await runBuiltCli([
      'run',
      ID,
      '--agent',
      'scripted',
      '--episodes',
      '6',
      '--seed',
      '40',
      '--concurrency',
      '3',
      '--out',
      out,
      '--options',
      '{"chainLength": 2}',
    ]);
    expect(result.code).toBe(0);
    const records = readEpisodeRecords(out);
    expect(records.map((record) => record.seed).sort((a, b) => (a as number) - (b as number))).toEqual([
      40, 41, 42, 43, 44, 45,
    ]);
    for (const record of records) {
      expect(record).toMatchObject({
        envId: ID,
        agent: 'scripted',
        complete: true,
        success: true,
        totalReward: 1,
        turns: 3,
      });
    }
  });

  it('runs a chat-model agent (openai:<model>) against an OpenAI-compatible server', async () => {
    // A scripted "model" that solves the task through function calls, served over HTTP like vLLM would.
    const reply = (request: ChatRequest): ScriptedReply => {
      const last = request.messages[request.messages.length - 1]?.content ?? '';
      const found = /^LOOKUP \S+ = (.+)$/.exec(last)?.[1]?.trim();
      if (found !== undefined) {
        const pointer = /^see (\S+)$/.exec(found)?.[1];
        return pointer
          ? { name: 'LOOKUP', arguments: { key: pointer } }
          : { name: 'SUBMIT', arguments: { answer: found } };
      }
      return { name: 'LOOKUP', arguments: { key: /Start with key (\S+?)\.?$/.exec(last)?.[1] ?? '?' } };
    };
    const server = await serveChatModel(new ScriptedChatModel(reply, { id: 'solver' }), { modelName: 'solver' });
    try {
      const result = await runBuiltCli([
        'run',
        ID,
        '--agent',
        'openai:solver',
        '--base-url',
        server.baseURL,
        '--api-key',
        'test',
        '--episodes',
        '3',
        '--json',
      ]);
      expect(result.code).toBe(0);
      const report = JSON.parse(result.stdout) as { agent: string; summary: { successRate: number } };
      expect(report.agent).toBe('chat:openai:solver');
      expect(report.summary.successRate).toBe(1);
      expect(server.requestCount).toBe(12);
    } finally {
      await server.close();
    }
  });
});

describe('turngym play', () => {
  it('a person typing the solution on stdin solves the episode', async () => {
    const actions = await solution(3);
    const result = await runBuiltCli(['play', ID, '--seed', '3'], { input: `${actions.join('\n')}\n` });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Instructions:');
    expect(result.stdout).toContain('Start with key');
    expect(result.stdout).toContain('Actions: tools: LOOKUP, SUBMIT');
    expect(result.stdout).toContain('Correct: that is the code.');
    expect(result.stdout).toMatch(/Episode over \(terminated\): success · total reward 1 · 4 turns/);
  });

  it('takes JSON function calls, shows feedback, and stops at the end of the input', async () => {
    const result = await runBuiltCli(['play', ID], {
      input: '{"name": "LOOKUP", "arguments": {"key": "nowhere"}}\nFETCH(x)\n',
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('LOOKUP nowhere: no such key.');
    expect(result.stdout).toMatch(/invalid action\nfeedback: .*Unknown tool "FETCH"/);
    expect(result.stdout).toContain('End of input after 2 turns: the episode was not finished');
  });
});

describe('turngym quickstart', () => {
  it('runs the quick suite with both baselines, writes the leaderboard, and reuses finished runs', async () => {
    const out = mkdtempSync(join(tmpdir(), 'turngym-quickstart-'));
    try {
      const result = await runBuiltCli(['quickstart', '--out', out, '--json']);
      const parsed = JSON.parse(result.stdout) as {
        suite: string;
        results: {
          result: { agent: { spec: string }; envs: { envId: string; metrics: { success: { mean: number } } }[] };
        }[];
      };
      expect(parsed.suite).toBe('quick-v1');
      expect(parsed.results.map((run) => run.result.agent.spec)).toEqual(['random', 'scripted']);
      const scripted = parsed.results[1]?.result.envs.find((env) => env.envId === 'turngym/math-thought-v1');
      expect(scripted?.metrics.success.mean).toBe(1);
      expect(existsSync(join(out, 'index.html'))).toBe(true);
      expect(existsSync(join(out, 'leaderboard.md'))).toBe(true);
      // Each finished episode is logged with the time it finished: a run done again would log new times.
      const episodeLogs = (): string[] =>
        ['random', 'scripted'].map((agent) =>
          readFileSync(join(out, 'runs', `quick-v1--${agent}`, 'episodes.jsonl'), 'utf8'),
        );
      const logged = episodeLogs();
      expect(logged.map((log) => log.match(/"finishedAt":/g)?.length)).toEqual([160, 160]);
      const table = await runBuiltCli(['quickstart', '--out', out]);
      expect(table.stdout).toMatch(/^turngym\/math-thought-v1\s+0% \[0–0\]\s+100% \[100–100\]$/m);
      expect(table.stderr).toContain('reusing quick-v1--random: all 160 episodes are done');
      expect(table.stderr).toContain('reusing quick-v1--scripted: all 160 episodes are done');
      expect(episodeLogs()).toEqual(logged);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});

// `--options '{"judge":"local:…"}'` was refused with "call registerLocalChatModelProvider() … (the turngym CLI
// does)": the CLI registered the tfjs provider only for `--agent local:…`, not for the models an env builds.
describe('turngym run with an env role on a local: checkpoint', () => {
  let root: string;
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'turngym-cli-local-role-'));
    const model = LanguageModel.create(testConfig({ maxPositions: 8192 }), { seed: 4, tokenizer: new ByteTokenizer() });
    await saveCheckpoint(model, join(root, 'tiny-chat'));
    model.dispose();
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('builds the role from the checkpoint and asks it (an untrained model: its answer is unusable)', async () => {
    const judge = `local:${join(root, 'tiny-chat')}`;
    const result = await runBuiltCli(
      [
        'run',
        'turngym/seller-commander-v1',
        '--agent',
        'scripted',
        '--episodes',
        '1',
        '--json',
        '--options',
        JSON.stringify({ judge, rounds: 2, llm: { maxTokens: 8 } }),
      ],
      { env: { TURNGYM_LM_BACKEND: 'wasm' } },
    );
    expect(result.stderr).not.toMatch(/registerLocalChatModelProvider/);
    const parsed = JSON.parse(result.stdout) as { errors: { code: string; message: string }[] };
    // The judge ran: it answered, and its answer was judged unusable, which only a built model can do.
    expect(parsed.errors).toEqual([
      expect.objectContaining({
        code: 'ROLE_UNUSABLE',
        message: expect.stringContaining(`the judge role (${judge}) gave no usable answer`),
      }),
    ]);
  }, 120_000);
});
