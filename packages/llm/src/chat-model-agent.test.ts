import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { runEpisode } from '@turngym/core';
import { ExampleEnv } from '@turngym/env-example';
import type { ChatMessage, EnvSpec } from '@turngym/spec';
import { CachedChatModel } from './cached-chat-model';
import { ChatModelAgent, parseDiscreteReply } from './chat-model-agent';
import type { ChatRequest } from './chat-model';
import { LLMCallError } from './llm-call-error';
import { OpenAIChatModel } from './openai-chat-model';
import { ScriptedChatModel, type ScriptedReply } from './scripted-chat-model';
import { serveChatModel, type ChatModelServer } from './serve-chat-model';

/**
 * What a good model would do in turngym/example-v1, read only from the conversation it is sent: follow
 * each "see <key>" pointer with a LOOKUP call and SUBMIT the first value that is not a pointer.
 */
function solverScript(request: ChatRequest): ScriptedReply {
  const last = request.messages.at(-1) as ChatMessage;
  const start = /Start with key (\S+?)\.?$/.exec(last.content);
  if (start) return { name: 'LOOKUP', arguments: { key: start[1] } };
  const found = /^LOOKUP \S+ = (.+)$/.exec(last.content);
  const value = (found?.[1] ?? '').trim();
  const pointer = /^see (\S+)$/.exec(value);
  if (pointer) return { name: 'LOOKUP', arguments: { key: pointer[1] } };
  return { name: 'SUBMIT', arguments: { answer: value } };
}

describe('ChatModelAgent', () => {
  let server: ChatModelServer;
  let backend: ScriptedChatModel;

  beforeEach(async () => {
    backend = new ScriptedChatModel(solverScript, { id: 'solver' });
    server = await serveChatModel(backend);
  });
  afterEach(async () => {
    await server.close();
  });

  it('solves turngym/example-v1 over the real path: agent → openai client → HTTP → server → model', async () => {
    const env = new ExampleEnv({ chainLength: 3 });
    const agent = new ChatModelAgent(
      new OpenAIChatModel({ model: 'solver', baseURL: server.baseURL, maxRetries: 0 }, {}),
    );
    expect(agent.name).toBe('chat:openai:solver');
    for (const seed of [1, 2, 3]) {
      const outcome = await runEpisode(env, agent, seed);
      expect(outcome).toMatchObject({ success: true, totalReward: 1, turns: 4, toolCalls: 4 });
      // runEpisode takes the agent's own usage after every act() and reports it with the outcome.
      expect(outcome.agentPromptTokens).toBeGreaterThan(0);
      expect(outcome.agentCompletionTokens).toBeGreaterThan(0);
    }
    expect(agent.takeUsage()).toEqual({ promptTokens: 0, completionTokens: 0 });

    // What the model saw: the env's instructions as the system prompt, its tools as schemas, tool results by id.
    const lastRequest = backend.requests.at(-1) as ChatRequest;
    expect(lastRequest.messages[0]).toEqual({
      role: 'system',
      content: expect.stringContaining('secret code in a key-value store'),
    });
    expect(lastRequest.messages[1]).toEqual({
      role: 'user',
      content: expect.stringMatching(/^Find the code\. Start with key /),
    });
    expect(lastRequest.tools?.map((tool) => tool.name)).toEqual(['LOOKUP', 'SUBMIT']);
    expect(lastRequest.temperature).toBe(0);
    expect(lastRequest.seed).toBe(3);
    const assistant = lastRequest.messages[2] as ChatMessage;
    expect(lastRequest.messages[3]).toMatchObject({
      role: 'tool',
      toolCallId: assistant.toolCalls?.[0]?.id,
      content: expect.stringMatching(/^LOOKUP /),
    });
    expect(agent.messages).toHaveLength(1 + 1 + 4 * 2 - 1);
    await env.close();
  });

  it('replays an episode from the response cache without calling the server again', async () => {
    const env = new ExampleEnv();
    const model = new CachedChatModel(
      new OpenAIChatModel({ model: 'solver', baseURL: server.baseURL, maxRetries: 0 }, {}),
    );
    const first = await runEpisode(env, new ChatModelAgent(model), 11);
    const requestsAfterFirst = server.requestCount;
    const again = await runEpisode(env, new ChatModelAgent(model), 11);
    expect(server.requestCount).toBe(requestsAfterFirst);
    expect({ ...again, wallMs: 0 }).toEqual({ ...first, wallMs: 0 });
    expect(model.stats).toMatchObject({ hits: first.turns, misses: first.turns });
  });

  it('answers every call of a multi-call turn, so the history stays valid for a strict server', async () => {
    let turn = 0;
    const twoCalls = new ScriptedChatModel(
      (request) => {
        turn += 1;
        if (turn === 1) {
          return [
            { name: 'LOOKUP', arguments: { key: 'nowhere' } },
            { name: 'LOOKUP', arguments: { key: 'elsewhere' } },
          ];
        }
        return solverScript({
          ...request,
          messages: request.messages.filter((message) => !message.content.startsWith('Not executed')),
        });
      },
      { id: 'two-calls' },
    );
    const twoCallServer = await serveChatModel(twoCalls);
    try {
      const env = new ExampleEnv();
      const agent = new ChatModelAgent(
        new OpenAIChatModel({ model: 'two-calls', baseURL: twoCallServer.baseURL, maxRetries: 0 }, {}),
      );
      await runEpisode(env, agent, 5);
      const toolMessages = agent.messages.slice(0, 5).filter((message) => message.role === 'tool');
      expect(toolMessages).toEqual([
        { role: 'tool', toolCallId: 'call_0_0', content: 'LOOKUP nowhere: no such key.' },
        {
          role: 'tool',
          toolCallId: 'call_0_1',
          content: expect.stringMatching(/^Not executed: this environment runs one tool call per turn/),
        },
      ]);
    } finally {
      await twoCallServer.close();
    }
  });

  it('returns the text when the model writes a call as text, and sends no schemas in text mode', async () => {
    const env = new ExampleEnv();
    const reset = await env.reset({ seed: 4 });
    const start = /Start with key (\S+?)\.?$/.exec(reset.observation)?.[1] as string;
    const model = new ScriptedChatModel([`LOOKUP(${start})`]);
    const agent = new ChatModelAgent(model, { toolMode: 'text' });
    await agent.start({ seed: 4, spec: env.spec, observation: reset.observation, info: reset.info });
    const action = await agent.act(reset.observation, reset.info);
    expect(action).toBe(`LOOKUP(${start})`);
    expect(model.requests[0]?.tools).toBeUndefined();
    expect((await env.step(action)).observation).toMatch(new RegExp(`^LOOKUP ${start} = `));
  });

  it("sends no system prompt from the env's instructions with instructions: false, and keeps its own", async () => {
    const env = new ExampleEnv();
    const reset = await env.reset({ seed: 4 });
    const model = new ScriptedChatModel(['SUBMIT(x)', 'SUBMIT(x)']);
    const bare = new ChatModelAgent(model, { instructions: false, toolMode: 'text' });
    await bare.start({ seed: 4, spec: env.spec, observation: reset.observation, info: reset.info });
    await bare.act(reset.observation, reset.info);
    expect(model.requests[0]?.messages[0]).toEqual({ role: 'user', content: reset.observation });
    expect(model.requests[0]?.messages.some((message) => message.role === 'system')).toBe(false);
    const own = new ChatModelAgent(model, { instructions: false, systemPrompt: 'Be brief.', toolMode: 'text' });
    await own.start({ seed: 4, spec: env.spec, observation: reset.observation, info: reset.info });
    await own.act(reset.observation, reset.info);
    expect(model.requests[1]?.messages[0]).toEqual({ role: 'system', content: 'Be brief.' });
  });

  it('hands arguments that are not JSON to the env as text, so the env explains the mistake', async () => {
    const env = new ExampleEnv();
    const reset = await env.reset({ seed: 4 });
    const model = new ScriptedChatModel([
      { toolCalls: [{ name: 'LOOKUP', arguments: {}, rawArguments: '{key: amber}' }] },
    ]);
    const agent = new ChatModelAgent(model);
    await agent.start({ seed: 4, spec: env.spec, observation: reset.observation, info: reset.info });
    const action = await agent.act(reset.observation, reset.info);
    expect(action).toBe('LOOKUP({key: amber})');
    const step = await env.step(action);
    expect(step.info).toMatchObject({ invalidAction: true, feedback: 'LOOKUP: the arguments are not valid JSON.' });
  });

  it('lists discrete options and reads the reply as an index, showing what is allowed now', async () => {
    const spec: EnvSpec = {
      specificationVersion: 'v1',
      id: 'test/choose-v1',
      summary: 'Pick a door.',
      observationSpace: { type: 'text' },
      actionSpace: { type: 'discrete', n: 3, labels: ['left door', 'right door', 'wait'] },
      maxTurns: 5,
      rewardRange: [0, 1],
    };
    const model = new ScriptedChatModel(['I choose the right door.', '2', 'banana']);
    const agent = new ChatModelAgent(model, { systemPrompt: 'Think briefly.' });
    await agent.start({ seed: 0, spec, observation: 'Two doors.', info: { instructions: 'Escape the room.' } });
    expect(await agent.act('Two doors.', { actionMask: [true, true, false] })).toBe(1);
    expect(await agent.act('A wall.', {})).toBe(2);
    expect(await agent.act('Hm.', {})).toBe('banana');
    const [system, user] = model.requests[0]?.messages ?? [];
    expect(system?.content).toBe(
      'Escape the room.\n\nThink briefly.\n\nOptions:\n0: left door\n1: right door\n2: wait\nAnswer with the number of one option.',
    );
    expect(user?.content).toBe('Two doors.\n\nAllowed options now:\n0: left door\n1: right door');
  });

  it('parses discrete replies by label, number or mention', () => {
    const labels = ['up', 'down', 'pick up'];
    expect(parseDiscreteReply('Down', labels)).toBe(1);
    expect(parseDiscreteReply('"2".', labels)).toBe(2);
    expect(parseDiscreteReply('Option #0', labels)).toBe(0);
    expect(parseDiscreteReply('I will pick up the key', labels)).toBe(2);
    expect(parseDiscreteReply('go 1 step', labels)).toBe(1);
    expect(parseDiscreteReply('7', labels)).toBe('7');
    expect(parseDiscreteReply('sideways', labels)).toBe('sideways');
    expect(parseDiscreteReply('**"Down"**!', labels)).toBe(1);
    // Its trim was a regex whose unanchored branch was retried along a run of dots: 100,000 took 16 s. The bound
    // is a hang guard, ~100× what the parse takes.
    const started = performance.now();
    expect(parseDiscreteReply(`a${'.'.repeat(100_000)}b`, labels)).toBe(`a${'.'.repeat(100_000)}b`);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('validates its options', () => {
    expect(() => new ChatModelAgent(new ScriptedChatModel(), { toolMode: 'json' as never })).toThrow(
      /options\.toolMode must be one of: "auto", "text"/,
    );
  });
});

describe('ChatModelAgent against an endpoint that gives no answer', () => {
  const open: Server[] = [];
  afterEach(async () => {
    for (const server of open.splice(0)) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  /** A real endpoint on loopback: `respond` answers each request once its body has arrived. */
  async function endpoint(respond: (request: IncomingMessage, response: ServerResponse) => void): Promise<string> {
    const server = createServer((request, response) => {
      request.resume();
      request.on('end', () => respond(request, response));
    });
    open.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    return `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`;
  }

  const textSpec: EnvSpec = {
    specificationVersion: 'v1',
    id: 'test/say-v1',
    summary: 'Say the answer.',
    observationSpace: { type: 'text' },
    actionSpace: { type: 'text' },
    maxTurns: 3,
    rewardRange: [0, 1],
  };

  const completion = (message: Record<string, unknown>, finishReason: string) =>
    JSON.stringify({
      id: 'c',
      object: 'chat.completion',
      choices: [{ index: 0, message, finish_reason: finishReason }],
    });

  it.each([
    [
      'cut at maxTokens while still reasoning',
      { role: 'assistant', content: null, reasoning_content: 'Let me think. 2 + 2 is' },
      'length',
      /no answer to act on at turn 1: the reply was cut at the token limit \(maxTokens 64\) before any answer \(22 characters of reasoning, no answer after it\): raise maxTokens/,
    ],
    [
      'only reasoning, then a stop',
      { role: 'assistant', content: '', reasoning_content: 'The answer is 4' },
      'stop',
      /the reply held only reasoning \(15 characters\), no answer after it/,
    ],
    ['cut at maxTokens with nothing at all', { role: 'assistant', content: '' }, 'length', /cut at the token limit/],
    [
      'cut at maxTokens just after reasoning',
      { role: 'assistant', content: '\n\n', reasoning: 'Four.' },
      'length',
      /\(5 characters of reasoning, no answer after it\)/,
    ],
  ])('fails the turn, naming why, for a reply %s', async (_case, message, finishReason, why) => {
    const baseURL = await endpoint((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(completion(message, finishReason));
    });
    const agent = new ChatModelAgent(new OpenAIChatModel({ model: 'm', baseURL, maxRetries: 0 }, {}), {
      maxTokens: 64,
    });
    await agent.start({ seed: 0, spec: textSpec, observation: '2+2?', info: {} });
    const error = await agent.act('2+2?', {}).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(LLMCallError);
    expect(error).toMatchObject({ failure: 'no-answer', isRetryable: false, modelId: 'openai:m' });
    expect((error as Error).message).toMatch(why);
  });

  it.each([
    ['an empty reply that simply stopped', '', 'stop'],
    ['blanks up to the token limit (an untrained model)', '\n\n\n\n', 'length'],
  ])('keeps %s as the move: that is what the model wrote', async (_case, content, finishReason) => {
    const baseURL = await endpoint((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(completion({ role: 'assistant', content }, finishReason));
    });
    const agent = new ChatModelAgent(new OpenAIChatModel({ model: 'm', baseURL, maxRetries: 0 }, {}));
    await agent.start({ seed: 0, spec: textSpec, observation: '2+2?', info: {} });
    await expect(agent.act('2+2?', {})).resolves.toBe(content);
  });

  it.each([
    ['text', '<think>4 is too easy? No, it is 4.</think>\n\nAnswer: 4', 'Answer: 4'],
    ['text', '[THINK]maybe 5[/THINK]Answer: 4', 'Answer: 4'],
    ['discrete', '<think>5 would threaten them, no.</think> 2', 2],
    ['discrete', '<think>Option 0 is rude</think>\nI pick option 1', 1],
  ])('acts on the answer after reasoning written into the content (%s space): %j', async (kind, content, expected) => {
    const baseURL = await endpoint((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(completion({ role: 'assistant', content }, 'stop'));
    });
    const spec: EnvSpec =
      kind === 'text'
        ? textSpec
        : { ...textSpec, actionSpace: { type: 'discrete', n: 6, labels: ['a', 'b', 'c', 'd', 'e', 'f'] } };
    const agent = new ChatModelAgent(new OpenAIChatModel({ model: 'm', baseURL, maxRetries: 0 }, {}));
    await agent.start({ seed: 0, spec, observation: '2+2?', info: {} });
    await expect(agent.act('2+2?', {})).resolves.toBe(expected);
  });

  it('fails the turn for a reply cut while still reasoning inside <think>', async () => {
    const baseURL = await endpoint((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(completion({ role: 'assistant', content: '<think>Let me think. 2 + 2 is' }, 'length'));
    });
    const agent = new ChatModelAgent(new OpenAIChatModel({ model: 'm', baseURL, maxRetries: 0 }, {}));
    await agent.start({ seed: 0, spec: textSpec, observation: '2+2?', info: {} });
    const error = await agent.act('2+2?', {}).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ failure: 'no-answer' });
    expect((error as Error).message).toMatch(/cut at the token limit before any answer \(29 characters of reasoning/);
  });

  it('cancels the model call in flight when it is closed, instead of waiting out the timeout', async () => {
    let arrived!: () => void;
    const requestArrived = new Promise<void>((resolve) => (arrived = resolve));
    let hungUp!: () => void;
    const connectionClosed = new Promise<void>((resolve) => (hungUp = resolve));
    const baseURL = await endpoint((request) => {
      request.socket.on('close', () => hungUp());
      arrived(); // and never answers
    });
    const model = new OpenAIChatModel({ model: 'm', baseURL, timeoutMs: 60_000, maxRetries: 3 }, {});
    const agent = new ChatModelAgent(model);
    await agent.start({ seed: 0, spec: textSpec, observation: '2+2?', info: {} });
    const turn = agent.act('2+2?', {}).catch((caught: unknown) => caught);
    await requestArrived;
    await agent.close();
    expect(await turn).toMatchObject({ failure: 'aborted', isRetryable: false });
    await connectionClosed; // the socket is let go, not held for the minute the timeout allows
  });
});
