import type * as Llm from '@turngym/llm';
import type * as Server from '@turngym/server';
import { UsageError } from './cli-errors';

/**
 * @turngym/server and @turngym/llm are loaded only by the commands that need them (`serve`, `check --remote`,
 * a chat-model agent), so `turngym list` does not pay for `ws` and `openai` at start-up. The types are the
 * packages' own.
 */
export type ServerModule = typeof Server;
export type LlmModule = typeof Llm;

function load<T>(name: string, purpose: string): T {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require(name) as T;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'MODULE_NOT_FOUND' && (error as Error).message.includes(name)) {
      throw new UsageError(`${purpose} needs ${name}, which is not installed (npm i ${name}).`);
    }
    throw error;
  }
}

export function loadServer(): ServerModule {
  return load<ServerModule>('@turngym/server', 'This command');
}

export function loadLlm(): LlmModule {
  return load<LlmModule>('@turngym/llm', 'A chat-model agent');
}
