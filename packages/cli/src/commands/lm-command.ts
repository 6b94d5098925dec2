import type { Command } from 'commander';
import type { CliContext } from '../cli-context';
import { writeLine } from '../cli-io';
import { loadLm } from '../optional-modules';
import { collect, parsePositiveInteger } from '../parse-arguments';

interface LmCommonOptions {
  checkpoint: string;
  backend?: string;
  adapter?: string;
}

const parseNumber = (value: string): number => {
  const number = Number(value);
  if (!Number.isFinite(number)) throw new Error(`expected a number, got "${value}"`);
  return number;
};

const parseInteger = (value: string): number => {
  const number = Number(value);
  if (!Number.isInteger(number)) throw new Error(`expected an integer, got "${value}"`);
  return number;
};

/** `turngym lm score | generate`: the tfjs decoder LM from the command line; both print JSON on stdout. */
export function registerLmCommand(program: Command, context: CliContext): void {
  const lm = program.command('lm').description('score or sample with a tfjs decoder LM checkpoint (@turngym/lm)');
  lm.command('score')
    .description(
      'per-token logprobs of a text file or a JSONL of {text} | {tokens} | {messages} | {prompt, completion}',
    )
    .requiredOption(
      '--checkpoint <dir>',
      'checkpoint directory (config.json, model.safetensors, tokenizer.json) or tiny-1m|tiny-8m|tiny-30m',
    )
    .requiredOption('--input <file>', 'text or .jsonl file to score')
    .option('--backend <name>', 'auto | tensorflow | webgpu | wasm | cpu')
    .option('--adapter <name>', 'LoRA adapter from the checkpoint')
    .action(async (options: LmCommonOptions & { input: string }) => {
      const result = await loadLm().lmScore({
        checkpoint: options.checkpoint,
        input: options.input,
        ...(options.backend ? { backend: options.backend as never } : {}),
        ...(options.adapter ? { adapter: options.adapter } : {}),
      });
      writeLine(context.io.stdout, JSON.stringify(result));
    });
  lm.command('generate')
    .description('sample completions for a prompt (seeded)')
    .requiredOption('--checkpoint <dir>', 'checkpoint directory or tiny-1m|tiny-8m|tiny-30m')
    .option('--prompt <text>', 'plain-text prompt')
    .option('--message <role:content>', 'a chat message, rendered with the chat template (repeatable)', collect, [])
    .option('--n <n>', 'samples', parsePositiveInteger)
    .option('--max-tokens <n>', 'most new tokens per sample', parseInteger)
    .option('--temperature <t>', 'sampling temperature (0: greedy)', parseNumber)
    .option('--top-p <p>', 'nucleus sampling', parseNumber)
    .option('--stop <text>', 'stop sequence (repeatable)', collect, [])
    .option('--seed <seed>', 'sampling seed', parseInteger)
    .option('--backend <name>', 'auto | tensorflow | webgpu | wasm | cpu')
    .option('--adapter <name>', 'LoRA adapter from the checkpoint')
    .action(
      async (
        options: LmCommonOptions & {
          prompt?: string;
          message: string[];
          n?: number;
          maxTokens?: number;
          temperature?: number;
          topP?: number;
          stop: string[];
          seed?: number;
        },
      ) => {
        const messages = options.message.map((message) => {
          const split = message.indexOf(':');
          return { role: message.slice(0, split) as 'user', content: message.slice(split + 1) };
        });
        const result = await loadLm().lmGenerate({
          checkpoint: options.checkpoint,
          ...(options.prompt !== undefined ? { prompt: options.prompt } : {}),
          ...(messages.length > 0 ? { messages } : {}),
          ...(options.n !== undefined ? { n: options.n } : {}),
          ...(options.maxTokens !== undefined ? { maxTokens: options.maxTokens } : {}),
          ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
          ...(options.topP !== undefined ? { topP: options.topP } : {}),
          ...(options.stop.length > 0 ? { stop: options.stop } : {}),
          ...(options.seed !== undefined ? { seed: options.seed } : {}),
          ...(options.backend ? { backend: options.backend as never } : {}),
          ...(options.adapter ? { adapter: options.adapter } : {}),
        });
        writeLine(context.io.stdout, JSON.stringify(result));
      },
    );
}
