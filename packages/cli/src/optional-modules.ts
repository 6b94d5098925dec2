import type * as Lm from '@turngym/lm';
import type * as Mcp from '@turngym/mcp';
import type * as Report from '@turngym/report';
import type * as Server from '@turngym/server';
import { installCommand } from './cli-installation';
import { UsageError } from './cli-errors';

/**
 * @turngym/server and @turngym/lm are loaded only by the commands that need them (`serve`, `check --remote`,
 * `run --remote`, `lm`, `serve-model`), so `turngym list` does not pay for `ws` or tfjs at start-up (chat-model agents load
 * @turngym/llm through the leaderboard's resolver, also on demand). The types are the packages' own.
 * @turngym/report (`report`) is loaded the same way: it reads trajectories through @turngym/rl (tfjs).
 *
 * @turngym/lm, @turngym/mcp, @turngym/report and the trainers are optional peer dependencies in package.json,
 * not dependencies: tfjs alone is ~290 MB, and `npm i @turngym/cli` for `list`/`run`/`serve`/`bench` would
 * otherwise download it. A command that needs one says which package to install and how.
 */
export type ServerModule = typeof Server;
/** @turngym/mcp (`serve --mcp`) loads the MCP SDK: only that command pays for it. */
export type McpModule = typeof Mcp;
export type LmModule = typeof Lm;
export type ReportModule = typeof Report;

function load<T>(name: string, purpose: string): T {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require(name) as T;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // Only the package itself missing: a dependency missing inside an installed package is its own error.
    if (code === 'MODULE_NOT_FOUND' && (error as Error).message.includes(`'${name}'`)) {
      throw new UsageError(`${purpose} needs ${name}, which is not installed: ${installCommand(name)}`);
    }
    throw error;
  }
}

export function loadServer(): ServerModule {
  return load<ServerModule>('@turngym/server', 'This command');
}

export function loadMcp(): McpModule {
  return load<McpModule>('@turngym/mcp', 'turngym serve --mcp');
}

export function loadLm(): LmModule {
  return load<LmModule>('@turngym/lm', 'This command');
}

export function loadReport(): ReportModule {
  return load<ReportModule>('@turngym/report', 'turngym report');
}

/** The reference trainers (`turngym train`), each its own package, loaded only by `train`. */
export interface TrainerModules {
  sft: typeof import('@turngym/trainer-sft');
  grpo: typeof import('@turngym/trainer-grpo');
  'tree-grpo': typeof import('@turngym/trainer-tree-grpo');
  alphazero: typeof import('@turngym/trainer-alphazero');
  'plan-act': typeof import('@turngym/trainer-plan-act');
  ccapo: typeof import('@turngym/trainer-ccapo');
  gigpo: typeof import('@turngym/trainer-gigpo');
  'self-ac': typeof import('@turngym/trainer-self-ac');
}
export type TrainerName = keyof TrainerModules;

const TRAINER_PACKAGES: Record<TrainerName, string> = {
  sft: '@turngym/trainer-sft',
  grpo: '@turngym/trainer-grpo',
  'tree-grpo': '@turngym/trainer-tree-grpo',
  alphazero: '@turngym/trainer-alphazero',
  'plan-act': '@turngym/trainer-plan-act',
  ccapo: '@turngym/trainer-ccapo',
  gigpo: '@turngym/trainer-gigpo',
  'self-ac': '@turngym/trainer-self-ac',
};

/** `purpose` names the command in the message: `stdb` loads the ccapo trainer too. */
export function loadTrainer<N extends TrainerName>(name: N, purpose = 'This command'): TrainerModules[N] {
  return load<TrainerModules[N]>(TRAINER_PACKAGES[name], purpose);
}
