import { createInterface } from 'node:readline';
import type { Action, Env, Info, Space, StepResult } from '@turngym/spec';
import type { Command } from 'commander';
import type { CliContext, GlobalOptions } from '../cli-context';
import type { CliIo } from '../cli-io';
import { writeLine } from '../cli-io';
import { terminalText } from '../terminal-text';
import { describeSpace } from '../format-spec';
import { parseInteger, parseJsonObject } from '../parse-arguments';
import { parsePlayedAction } from '../parse-played-action';

interface PlayOptions {
  seed: number;
  options?: Record<string, unknown>;
}

function show(value: unknown): string {
  if (value === '') return '(empty observation)';
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}

/** How to type an action in this space; for discrete spaces, which options the mask allows right now. */
function actionHelp(space: Space, info: Info): string {
  switch (space.type) {
    case 'discrete': {
      const options = space.labels.map((label, index) =>
        info.actionMask?.[index] === false ? `(${index} ${label}: not allowed)` : `${index} ${label}`,
      );
      return `Options: ${options.join(', ')} (type the index or the label)`;
    }
    case 'tools':
      return `Actions: ${describeSpace(space)} (text syntax like ${space.examples?.[0] ?? `${space.tools[0]?.name ?? 'TOOL'}(…)`}, or JSON {"name": …, "arguments": {…}})`;
    case 'text':
      return 'Type your reply (one line).';
  }
}

function stepReport(result: StepResult<unknown>, turn: number, maxTurns: number): string {
  const lines = [
    `reward ${result.reward} · turn ${turn}/${maxTurns}${result.info.invalidAction ? ' · invalid action' : ''}`,
  ];
  if (typeof result.info.feedback === 'string' && result.info.feedback.length > 0)
    lines.push(`feedback: ${result.info.feedback}`);
  lines.push(indent(show(result.observation)));
  return lines.join('\n');
}

async function play(
  context: CliContext,
  io: CliIo,
  id: string,
  options: PlayOptions,
  global: GlobalOptions,
): Promise<void> {
  const { registry } = context.loadEnvironments(global);
  const interactive = io.stdin.isTTY === true;
  const input = createInterface({
    input: io.stdin,
    ...(interactive ? { output: io.stdout, terminal: true } : { terminal: false }),
  });
  // Created before the first await: lines that arrive while the env resets must not be lost.
  const lines = input[Symbol.asyncIterator]();
  let env: Env<unknown, Action> | undefined;
  try {
    env = await registry.make(id, options.options ? { options: options.options } : {});
    const space = env.spec.actionSpace;
    const { observation, info } = await env.reset({ seed: options.seed });
    // Everything shown holds what the env (and through it a program, a page or a model) wrote: escaped for the terminal.
    const say = (text: string): void => writeLine(io.stdout, terminalText(text, true));
    say(`${env.spec.id} · seed ${options.seed} · up to ${env.spec.maxTurns} turns`);
    if (info.instructions) say(`\nInstructions:\n${indent(info.instructions)}`);
    say(`\nObservation:\n${indent(show(observation))}`);
    say(`\n${actionHelp(space, info)}`);
    let totalReward = 0;
    let turn = 0;
    for (;;) {
      if (interactive) {
        input.setPrompt('> ');
        input.prompt();
      }
      const next = await lines.next();
      if (next.done) {
        say(`\nEnd of input after ${turn} turns: the episode was not finished (total reward ${totalReward}).`);
        return;
      }
      if (next.value.trim() === '') continue;
      const result = await env.step(parsePlayedAction(next.value, space));
      turn += 1;
      totalReward += result.reward;
      say(`\n${stepReport(result, turn, env.spec.maxTurns)}`);
      if (result.terminated || result.truncated) {
        const how = result.truncated
          ? `truncated${result.info.truncatedBy ? ` (${result.info.truncatedBy})` : ''}`
          : 'terminated';
        say(
          `\nEpisode over (${how}): ${result.info.success ? 'success' : 'no success'} · total reward ${totalReward} · ${turn} turns`,
        );
        return;
      }
      if (space.type === 'discrete') say(actionHelp(space, result.info));
    }
  } finally {
    input.close();
    await env?.close();
  }
}

export function registerPlayCommand(program: Command, context: CliContext): void {
  program
    .command('play')
    .description('play an episode yourself: one action per line on stdin, until the episode ends or the input does')
    .argument('<id>', 'environment id, e.g. turngym/example-v1')
    .option('--seed <n>', 'episode seed', parseInteger, 0)
    .option('--options <json>', 'env options (a JSON object)', parseJsonObject)
    .action(async (id: string, options: PlayOptions, command: Command) => {
      await play(context, context.io, id, options, command.optsWithGlobals<GlobalOptions>());
    });
}
