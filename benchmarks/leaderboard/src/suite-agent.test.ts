import { existsSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import {
  ScriptedChatModel,
  serveChatModel,
  type ChatModelServer,
  type ChatRequest,
  type ScriptedReply,
} from '@turngym/llm';
import { temporaryDirectory, testRegistry, tinySuite } from './__fixtures__/test-envs';
import { runSuite } from './run-suite';
import { resolveSuiteAgent } from './suite-agent';

/** A model that solves the example env through function calls, reading only the conversation. */
function solve(request: ChatRequest): ScriptedReply {
  const last = request.messages[request.messages.length - 1];
  const text = last?.content ?? '';
  const start = /Start with key (\S+?)\.?$/m.exec(text);
  if (last?.role === 'user' && start) return { name: 'LOOKUP', arguments: { key: start[1] } };
  const found = /^LOOKUP \S+ = (.+)$/m.exec(text);
  const value = (found?.[1] ?? '').trim();
  const pointer = /^see (\S+)$/.exec(value);
  return pointer
    ? { name: 'LOOKUP', arguments: { key: pointer[1] } }
    : { name: 'SUBMIT', arguments: { answer: value } };
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('chat-model agents on a suite', () => {
  let out: string;
  let server: ChatModelServer | undefined;
  const suite = tinySuite([{ envId: 'turngym/example-v1', seeds: { start: 0, count: 6 } }]);
  beforeEach(() => (out = temporaryDirectory()));
  afterEach(async () => {
    await server?.close();
    server = undefined;
    rmSync(out, { recursive: true, force: true });
  });

  it('fails the preflight in one line when the endpoint is unreachable or does not serve the model', async () => {
    const port = await closedPort();
    const unreachable = resolveSuiteAgent('openai:my-model', { baseURL: `http://127.0.0.1:${port}/v1` });
    await expect(runSuite({ suite, agent: unreachable, registry: testRegistry(), outDir: out })).rejects.toThrow(
      `openai:my-model: cannot reach http://127.0.0.1:${port}/v1 (ECONNREFUSED); is an OpenAI-compatible server running there? Set --base-url or TURNGYM_OPENAI_BASE_URL.`,
    );
    server = await serveChatModel(new ScriptedChatModel(solve), { modelName: 'served-model' });
    const misnamed = resolveSuiteAgent('openai:other-model', { baseURL: server.baseURL });
    await expect(runSuite({ suite, agent: misnamed, registry: testRegistry(), outDir: out })).rejects.toThrow(
      `openai:other-model: ${server.baseURL} does not serve a model named "other-model"; it serves: served-model.`,
    );
    expect(server.requestCount).toBe(0); // no chat completion was bought
    expect(existsSync(join(out, 'runs'))).toBe(false);
  });

  it('plays every env through function calls, counts its tokens, and records failed calls as errored', async () => {
    // The first two completions fail with 503 (retryable); retries are off, so two episodes error.
    server = await serveChatModel(new ScriptedChatModel(solve), {
      modelName: 'served-model',
      faults: { failFirst: 2, failStatus: 503 },
    });
    const agent = () => resolveSuiteAgent('openai:served-model', { baseURL: server?.baseURL as string, maxRetries: 0 });
    const first = await runSuite({ suite, agent: agent(), registry: testRegistry(), outDir: out, resamples: 200 });
    expect(first.result.agent).toEqual({
      spec: 'openai:served-model',
      name: 'chat:openai:served-model',
      kind: 'chat-model',
      baseURL: server.baseURL,
    });
    const env = first.result.envs[0];
    expect(env).toMatchObject({ episodes: 6, scored: 4, errored: 2 });
    expect(env?.errors.map((error) => [error.code, error.retryable])).toEqual([
      ['LLM_CALL', true],
      ['LLM_CALL', true],
    ]);
    expect(env?.metrics?.success.mean).toBe(1);
    expect(env?.metrics?.toolCalls.mean).toBe(4);
    expect(env?.metrics?.tokens.mean).toBeGreaterThan(0);
    expect(first.result.overall.tokens.agentPrompt).toBeGreaterThan(first.result.overall.tokens.agentCompletion);

    const resumed = await runSuite({ suite, agent: agent(), registry: testRegistry(), outDir: out, resamples: 200 });
    expect(resumed.resumed).toBe(4);
    expect(resumed.result.envs[0]).toMatchObject({ scored: 6, errored: 0 });
  });
  it("leaves the env's instructions out of the system prompt with instructions: false, as a trained policy saw it", async () => {
    const model = new ScriptedChatModel(solve);
    server = await serveChatModel(model, { modelName: 'served-model' });
    const one = tinySuite([{ envId: 'turngym/example-v1', seeds: { start: 0, count: 1 } }]);
    const systemOf = async (instructions: boolean | undefined): Promise<string | undefined> => {
      model.requests.length = 0;
      const agent = resolveSuiteAgent('openai:served-model', {
        baseURL: server?.baseURL as string,
        maxRetries: 0,
        ...(instructions === undefined ? {} : { instructions }),
      });
      const run = await runSuite({
        suite: one,
        agent,
        registry: testRegistry(),
        outDir: out,
        resamples: 100,
        fresh: true,
      });
      expect(run.result.envs[0]).toMatchObject({ scored: 1, errored: 0 });
      const first = model.requests.find((request) => request.role !== 'preflight');
      return first?.messages.find((message) => message.role === 'system')?.content;
    };
    expect(await systemOf(undefined)).toContain('secret code in a key-value store');
    expect(await systemOf(false)).toBeUndefined();
  });
});
