import { describeError } from '@turngym/core';
import { toErrorData } from '@turngym/server';
import type { ResetResult, StepResult } from '@turngym/spec';

/** A `tools/call` result as the SDK's CallToolResult has it (text for the model, structured for programs). */
export interface ToolResult {
  [key: string]: unknown;
  content: Array<{ type: 'text'; text: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

function textOf(observation: unknown): string {
  return typeof observation === 'string' ? observation : JSON.stringify(observation, null, 2);
}

/** The reset as a tool result: the instructions and the task for the model, everything for a program. */
export function resetResult(
  result: ResetResult<unknown>,
  envId: string,
  episodeId: string,
  seed: number | null,
): ToolResult {
  const info = result.info ?? {};
  const instructions = typeof info.instructions === 'string' ? `${info.instructions}\n\n` : '';
  return {
    content: [{ type: 'text', text: `${instructions}${textOf(result.observation)}` }],
    structuredContent: { observation: result.observation, info, env_id: envId, episode_id: episodeId, seed },
  };
}

/** A step as a tool result: the observation and one status line for the model, the full step for a program. */
export function stepResult(result: StepResult<unknown>): ToolResult {
  const done = result.terminated || result.truncated;
  const status = done
    ? `[reward ${result.reward}; episode over (${result.terminated ? 'terminated' : 'truncated'}${
        result.info.success === undefined ? '' : result.info.success ? ', solved' : ', not solved'
      }): call reset to play again]`
    : `[reward ${result.reward}]`;
  return {
    content: [{ type: 'text', text: `${textOf(result.observation)}\n\n${status}` }],
    structuredContent: {
      observation: result.observation,
      reward: result.reward,
      terminated: result.terminated,
      truncated: result.truncated,
      done,
      info: result.info ?? {},
    },
  };
}

/**
 * An exception while serving a call (step before reset or after the end, an option the server does not allow,
 * an env fault) as an error result the model can read, with the protocol code the WebSocket server would send.
 * MCP reports tool failures in the result (`isError`), not as JSON-RPC errors, so that the model sees them.
 */
export function errorResult(error: unknown): ToolResult {
  const data = toErrorData(error);
  const { retryable } = describeError(error);
  const code = (data as { turngym_code?: string }).turngym_code ?? data.code;
  return {
    content: [{ type: 'text', text: `${code}: ${data.message}${retryable ? ' (retryable)' : ''}` }],
    isError: true,
  };
}
