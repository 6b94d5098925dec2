import type { ServerResponse } from 'node:http';
import { runEpisode, TurnGymError } from '@turngym/core';
import { ExampleEnv } from '@turngym/env-example';
import { ChatModelAgent } from './chat-model-agent';
import type { ChatModel } from './chat-model';
import { LLMCallError } from './llm-call-error';
import { OpenAIChatModel } from './openai-chat-model';
import { ScriptedChatModel } from './scripted-chat-model';
import { serveChatModel } from './serve-chat-model';
import { ask, closeLoopbackServers, loopbackEndpoint } from './__fixtures__/loopback-endpoint';

/**
 * A prompt past the model's context, as each server says it: told apart from other failures (`context-length`),
 * never retried, and marked `agentStop` so core's runEpisode scores the episode as the agent's failure.
 */

afterEach(closeLoopbackServers);

const json = (response: ServerResponse, status: number, body: unknown) => {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
};

// The bodies as the servers send them (their issue trackers quote them; see internal/context-overflow.ts).
const OVERFLOWS: [string, number, unknown][] = [
  [
    'OpenAI',
    400,
    {
      error: {
        message:
          "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens. Please reduce the length of the messages.",
        type: 'invalid_request_error',
        param: 'messages',
        code: 'context_length_exceeded',
      },
    },
  ],
  [
    'TurnGym serve-model',
    400,
    {
      error: {
        message: "The prompt has 1144 tokens, more than the model's context limit max_position_embeddings = 1024.",
        type: 'invalid_request_error',
        param: 'prompt',
        code: 'context_length_exceeded',
      },
    },
  ],
  [
    'vLLM',
    400,
    {
      object: 'error',
      message:
        "This model's maximum context length is 4096 tokens. However, you requested 4472 tokens (376 in the messages, 4096 in the completion). Please reduce the length of the messages or completion.",
      type: 'BadRequestError',
      param: null,
      code: 400,
    },
  ],
  [
    'SGLang',
    400,
    {
      object: 'error',
      message: "The input (61709 tokens) is longer than the model's context length (40960 tokens).",
      type: 'BadRequestError',
      param: null,
      code: 400,
    },
  ],
  [
    'llama.cpp',
    400,
    {
      error: {
        code: 400,
        message: 'request (4390 tokens) exceeds the available context size (4096 tokens), try increasing it',
        type: 'exceed_context_size_error',
        n_prompt_tokens: 4390,
        n_ctx: 4096,
      },
    },
  ],
  [
    'llama.cpp (as a 500, its type still says so)',
    500,
    {
      error: {
        code: 500,
        message:
          'the request exceeds the available context size. try increasing the context size or enable context shift',
        type: 'exceed_context_size_error',
        n_prompt_tokens: 1407,
        n_ctx: 256,
      },
    },
  ],
  [
    'TGI',
    422,
    {
      error:
        'Input validation error: `inputs` tokens + `max_new_tokens` must be <= 2048. Given: 3474 `inputs` tokens and 60 `max_new_tokens`',
      error_type: 'validation',
    },
  ],
  ['Ollama', 400, { error: { message: 'input exceeds context length', type: 'api_error' } }],
];

describe('OpenAIChatModel and a prompt past the context', () => {
  it.each(OVERFLOWS)(
    'tells a context overflow from other failures (%s), and does not retry it',
    async (_name, status, body) => {
      const { baseURL, seen } = await loopbackEndpoint((_request, response) => json(response, status, body));
      const error = (await ask(baseURL)) as LLMCallError;
      expect(error).toBeInstanceOf(LLMCallError);
      expect(error).toMatchObject({
        failure: 'context-length',
        agentStop: 'context-length',
        status,
        isRetryable: false,
      });
      expect(seen).toHaveLength(1);
    },
  );

  it("tells vLLM's error event in a stream by its words", async () => {
    const said = "This model's maximum context length is 2048 tokens. However, you requested 4000 tokens.";
    const { baseURL } = await loopbackEndpoint((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end(
        `data: ${JSON.stringify({ object: 'error', message: said, type: 'BadRequestError', code: 400 })}\n\n`,
      );
    });
    expect(await ask(baseURL, { stream: true })).toMatchObject({ failure: 'context-length', isRetryable: false });
  });

  // Guard tests (they passed before the change too): other failures keep their classification.
  it('keeps any other 400, and a 5xx that mentions the context, as http failures that do not stop the agent', async () => {
    const { baseURL: badRequest } = await loopbackEndpoint((_request, response) =>
      json(response, 400, { error: { message: 'temperature must be <= 2', type: 'invalid_request_error' } }),
    );
    const other = (await ask(badRequest)) as LLMCallError;
    expect(other).toMatchObject({ failure: 'http', status: 400, isRetryable: false });
    expect(other.agentStop).toBeUndefined();
    const { baseURL: busy, seen } = await loopbackEndpoint((_request, response) =>
      json(response, 503, {
        error: { message: 'the request exceeds the available context size of the busy KV cache, retry later' },
      }),
    );
    const fault = (await ask(busy)) as LLMCallError;
    expect(fault).toMatchObject({ failure: 'http', status: 503, isRetryable: true });
    expect(fault.agentStop).toBeUndefined();
    expect(seen).toHaveLength(3);
  });

  it("reads a local model's refusal (an http 400 caused by CONTEXT_LENGTH_EXCEEDED) as a context overflow", () => {
    const tooLong = new TurnGymError(
      'CONTEXT_LENGTH_EXCEEDED',
      'The prompt has 1080 tokens, more than the limit 1024.',
    );
    const error = new LLMCallError(`local:tiny-1m: ${tooLong.message}`, {
      failure: 'http',
      status: 400,
      cause: tooLong,
    });
    expect(error).toMatchObject({ failure: 'context-length', agentStop: 'context-length', isRetryable: false });
    expect(error.withAttempts(1)).toMatchObject({ failure: 'context-length', agentStop: 'context-length' });
  });
});

describe('an agent whose context fills up mid-episode', () => {
  it('ends the episode as a scored failure through serveChatModel, not an error that drops the episode', async () => {
    let calls = 0;
    const lookup = new ScriptedChatModel([[{ name: 'LOOKUP', arguments: { key: 'nowhere' } }]], { id: 'tiny' });
    // As @turngym/lm's local model does once the conversation outgrows its 1024 positions.
    const tiny: ChatModel = {
      id: 'tiny',
      complete: (request) => {
        calls += 1;
        if (calls === 1) return lookup.complete(request);
        return Promise.reject(
          new TurnGymError(
            'CONTEXT_LENGTH_EXCEEDED',
            "The prompt has 1144 tokens, more than the model's context limit 1024.",
          ),
        );
      },
    };
    const server = await serveChatModel(tiny, { modelName: 'tiny' });
    const env = new ExampleEnv();
    try {
      const agent = new ChatModelAgent(
        new OpenAIChatModel({ model: 'tiny', baseURL: server.baseURL, maxRetries: 2 }, {}),
      );
      const outcome = await runEpisode(env, agent, 3);
      expect(outcome).toMatchObject({
        turns: 1,
        success: false,
        truncated: true,
        agentStop: { reason: 'context-length', code: 'LLM_CALL', message: expect.stringMatching(/1144 tokens/) },
      });
      expect(calls).toBe(2);
    } finally {
      await env.close();
      await server.close();
    }
  });
});
