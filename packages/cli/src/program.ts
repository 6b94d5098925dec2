import { Command, CommanderError } from 'commander';
import { CliContext } from './cli-context';
import { EXIT_BAD_INPUT, exitCodeFor, formatError } from './cli-errors';
import { processIo, writeLine, type CliIo } from './cli-io';
import { terminalText } from './terminal-text';
import { registerBenchCommand } from './commands/bench-command';
import { registerCheckCommand } from './commands/check-command';
import { registerInfoCommand } from './commands/info-command';
import { registerLeaderboardCommand } from './commands/leaderboard-command';
import { registerListCommand } from './commands/list-command';
import { registerLmCommand } from './commands/lm-command';
import { registerNewEnvCommand } from './commands/new-env-command';
import { registerPlayCommand } from './commands/play-command';
import { registerQuickstartCommand } from './commands/quickstart-command';
import { registerReportCommand } from './commands/report-command';
import { registerTrainCommand } from './commands/train-command';
import { registerRunCommand } from './commands/run-command';
import { registerServeCommand } from './commands/serve-command';
import { registerServeModelCommand } from './commands/serve-model-command';
import { registerStdbCommand } from './commands/stdb-command';
import { collect } from './parse-arguments';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const manifest = require('../package.json') as { version: string };

/**
 * Builds the `turngym` program. Commander never exits the process itself (`exitOverride`): `runCli` turns
 * its errors, like every other error, into an exit code, so the program can run in-process in tests.
 */
export function createProgram(context: CliContext): Command {
  const program = new Command('turngym')
    .description('Gym-style environments for multi-turn LLM agents')
    .version(manifest.version)
    .option('--verbose', 'show debug logs and stack traces')
    .option('--plugin <path>', 'load an env package directory or register module (repeatable)', collect, [])
    .exitOverride()
    .configureOutput({
      writeOut: (text) => context.io.stdout.write(text),
      writeErr: (text) => context.io.stderr.write(text),
    });
  registerListCommand(program, context);
  registerInfoCommand(program, context);
  registerCheckCommand(program, context);
  registerPlayCommand(program, context);
  registerRunCommand(program, context);
  registerServeCommand(program, context);
  registerServeModelCommand(program, context);
  registerLmCommand(program, context);
  registerNewEnvCommand(program, context);
  registerBenchCommand(program, context);
  registerLeaderboardCommand(program, context);
  registerReportCommand(program, context);
  registerTrainCommand(program, context);
  registerStdbCommand(program, context);
  registerQuickstartCommand(program, context);
  return program;
}

/**
 * Runs the CLI on `argv` (without the node and script paths) and resolves to the exit code: 0 done,
 * 1 the work ran and failed (a check did not pass, an env crashed), 2 bad input (unknown id, bad options,
 * bad JSON, an action of the wrong type, step after the end, an unknown flag). Bad input is one line on
 * stderr; `--verbose` adds the stack.
 */
export async function runCli(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  const context = new CliContext(io);
  const program = createProgram(context);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return context.exitCode;
  } catch (error) {
    // Commander has already printed its message (unknown option, missing argument, --help, --version).
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : EXIT_BAD_INPUT;
    const verbose = program.opts<{ verbose?: boolean }>().verbose === true || argv.includes('--verbose');
    // An error's message may quote a model endpoint, an env or a file: escaped for the terminal.
    writeLine(io.stderr, terminalText(formatError(error, verbose), true));
    return exitCodeFor(error);
  }
}
