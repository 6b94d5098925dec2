import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ByteTokenizer, LanguageModel, saveCheckpoint, testConfig } from '@turngym/lm';
import { errorLines, REPO_ROOT, runBuiltCli, withBuiltServer } from './helpers/run-built-cli';

// MCP through the built CLI: `turngym serve --mcp http` with a token, and the MCP-backed env
// (turngym/mcp-tools-v1) in `turngym bench` (from a suite file) and `turngym train` like any other env.
describe('turngym and MCP', () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'turngym-cli-mcp-'));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('serve --mcp http: an MCP client with the token plays; without it, 401; SIGTERM closes the server', async () => {
    const { code, stderr } = await withBuiltServer(
      'turngym/example-v1',
      ['--mcp', 'http', '--max-sessions', '2'],
      async (url) => {
        expect(url).toMatch(/\/mcp$/);
        const refused = new Client({ name: 'cli-test', version: '1.0.0' });
        await expect(refused.connect(new StreamableHTTPClientTransport(new URL(url)))).rejects.toThrow(/401|token/i);
        const client = new Client({ name: 'cli-test', version: '1.0.0' });
        const headers = { authorization: 'Bearer sesame' };
        await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
        const reset = await client.callTool({ name: 'reset', arguments: { seed: 1 } });
        expect(reset.structuredContent).toMatchObject({ env_id: 'turngym/example-v1', seed: 1 });
        const step = await client.callTool({ name: 'LOOKUP', arguments: { key: 'nowhere' } });
        expect(step.structuredContent).toMatchObject({ observation: 'LOOKUP nowhere: no such key.', done: false });
        await client.close();
      },
      { TURNGYM_SERVER_TOKEN: 'sesame' },
    );
    expect(code).toBe(0);
    expect(stderr).toContain('SIGTERM: closing the MCP server');
  });

  it('serve --mcp refuses WebSocket-only flags', async () => {
    const result = await runBuiltCli(['serve', 'turngym/example-v1', '--mcp', '--heartbeat', '5']);
    expect(result.code).toBe(2);
    expect(errorLines(result.stderr)).toEqual(['error: --heartbeat apply to the WebSocket server, not to --mcp.']);
  });

  it('bench runs the MCP env from a suite file: the scripted baseline solves every task', async () => {
    const suite = join(REPO_ROOT, 'environments', 'mcp-tools', 'suites', 'mcp-demo-v1.json');
    const result = await runBuiltCli(['bench', suite, '--agent', 'scripted', '--out', join(root, 'bench'), '--json']);
    expect(errorLines(result.stderr)).toEqual([]);
    expect(result.code).toBe(0);
    const parsed = JSON.parse(result.stdout) as {
      results: {
        result: { suite: { id: string }; envs: { envId: string; metrics: { success: { mean: number } } }[] };
      }[];
    };
    const env = parsed.results[0]?.result.envs[0];
    expect(env?.envId).toBe('turngym/mcp-tools-v1');
    expect(env?.metrics.success.mean).toBe(1);
  });

  it('train grpo runs on the MCP env', async () => {
    const checkpoint = join(root, 'base');
    const model = LanguageModel.create(testConfig({ maxPositions: 256 }), { seed: 2, tokenizer: new ByteTokenizer() });
    await saveCheckpoint(model, checkpoint);
    model.dispose();
    const trained = await runBuiltCli([
      'train',
      'grpo',
      '--env',
      'turngym/mcp-tools-v1',
      '--options',
      '{"maxTurns":2}',
      '--checkpoint',
      checkpoint,
      '--run-dir',
      join(root, 'grpo'),
      '--iterations',
      '1',
      '--backend',
      'wasm',
      '--set',
      'promptsPerIteration=2',
      '--set',
      'maxActionTokens=6',
      '--set',
      'evalEpisodes=2',
      '--quiet',
      '--json',
    ]);
    expect(errorLines(trained.stderr).filter((line) => !/TensorFlow|tfjs-node|=====/.test(line))).toEqual([]);
    expect(trained.code).toBe(0);
    expect(JSON.parse(trained.stdout)).toMatchObject({ iterations: 1 });
  });
});
