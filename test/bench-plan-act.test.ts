import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ByteTokenizer, LanguageModel, saveCheckpoint, serveModel, testConfig, type ModelServer } from '@turngym/lm';
import { errorLines, runBuiltCli } from './helpers/run-built-cli';

// A Plan/Act pair of two different chat-model specs on the leaderboard: the planner over the OpenAI API of
// `turngym serve-model` (serveModel, what the command runs), the actor a local: checkpoint in the bench
// process itself. Untrained weights: this checks the plumbing, not the score.
describe('turngym bench --agent plan-act:planner=<spec>,actor=<spec>', () => {
  let root: string;
  let server: ModelServer;
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'turngym-bench-plan-act-'));
    const checkpoint = join(root, 'tiny-chat');
    const model = LanguageModel.create(testConfig({ maxPositions: 2048 }), { seed: 4, tokenizer: new ByteTokenizer() });
    await saveCheckpoint(model, checkpoint);
    model.dispose();
    server = await serveModel({ checkpoint, port: 0, backend: 'wasm', modelName: 'planner-model' });
    writeFileSync(
      join(root, 'suite.json'),
      JSON.stringify({
        id: 'plan-act-smoke-v1',
        description: 'Two math episodes for the Plan/Act agent test.',
        entries: [
          {
            envId: 'turngym/math-thought-v1',
            package: '@turngym/env-math-thought',
            options: { split: 'test' },
            maxTurns: 2,
            seeds: { start: 1000, count: 2 },
          },
        ],
      }),
    );
  });
  afterAll(async () => {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('plays every episode with the planner from one model and the actor from another', async () => {
    const spec = `plan-act:planner=openai:planner-model,actor=local:${join(root, 'tiny-chat')}`;
    const result = await runBuiltCli(
      [
        'bench',
        join(root, 'suite.json'),
        '--agent',
        spec,
        '--base-url',
        server.baseURL,
        '--max-tokens',
        '6',
        '--concurrency',
        '1',
        '--out',
        join(root, 'out'),
        '--json',
      ],
      { env: { TURNGYM_LM_BACKEND: 'wasm' } },
    );
    expect(errorLines(result.stderr)).toEqual([]);
    expect(result.code).toBe(0);
    const text = JSON.stringify(JSON.parse(result.stdout));
    expect(text).toContain('plan-act:planner=');
    const runs = readdirSync(join(root, 'out', 'runs'));
    expect(runs).toHaveLength(1);
    const journal = readFileSync(join(root, 'out', 'runs', runs[0]!, 'episodes.jsonl'), 'utf8')
      .trim()
      .split('\n');
    expect(journal).toHaveLength(2);
    for (const line of journal) expect(JSON.parse(line)).toMatchObject({ status: 'ok' });
    // Each episode record names both roles' models: the served one and the local checkpoint.
    const records = readFileSync(join(root, 'out', 'runs', runs[0]!, 'records.jsonl'), 'utf8');
    expect(records).toContain('planner=openai:planner-model,actor=local:');
  }, 120_000);
});
