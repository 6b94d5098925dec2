import type { Command } from 'commander';
import type { CliContext } from '../cli-context';
import { writeLine } from '../cli-io';
import { loadLm } from '../optional-modules';
import { parseNonNegativeInteger, parsePort, parsePositiveInteger } from '../parse-arguments';
import { untilSignal } from '../until-signal';

interface ServeModelCommandOptions {
  checkpoint: string;
  port: number;
  host: string;
  backend?: string;
  modelName?: string;
  adapter?: string;
  maxRowsPerRequest?: number;
  maxConcurrentRequests?: number;
  maxQueuedRequests?: number;
}

/** `turngym serve-model`: a local checkpoint behind an OpenAI-compatible API, until SIGINT/SIGTERM. */
export function registerServeModelCommand(program: Command, context: CliContext): void {
  program
    .command('serve-model')
    .description(
      'serve a tfjs LM checkpoint as an OpenAI-compatible API (/v1/chat/completions, /v1/completions, /v1/models)',
    )
    .requiredOption('--checkpoint <dir>', 'checkpoint directory or tiny-1m|tiny-8m|tiny-30m')
    .option('--port <port>', 'TCP port (0: any free port)', parsePort, 8000)
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('--backend <name>', 'auto | tensorflow | webgpu | wasm | cpu')
    .option('--model-name <name>', 'the name clients send as `model`')
    .option('--adapter <name>', 'LoRA adapter from the checkpoint')
    .option(
      '--max-rows-per-request <n>',
      'most sequences one /v1/completions request may ask for (prompts × n; default 256)',
      parsePositiveInteger,
    )
    .option(
      '--max-concurrent-requests <n>',
      'generations decoding at once, chat and completions together; each holds its own batch (default 4)',
      parsePositiveInteger,
    )
    .option(
      '--max-queued-requests <n>',
      'requests waiting for a free generation; past it the answer is 429 with Retry-After (default 64)',
      parseNonNegativeInteger,
    )
    .action(async (options: ServeModelCommandOptions) => {
      const signal = untilSignal();
      const server = await loadLm().serveModel({
        checkpoint: options.checkpoint,
        port: options.port,
        host: options.host,
        ...(options.backend ? { backend: options.backend as never } : {}),
        ...(options.modelName ? { modelName: options.modelName } : {}),
        ...(options.adapter ? { adapter: options.adapter } : {}),
        ...(options.maxRowsPerRequest !== undefined ? { maxRowsPerRequest: options.maxRowsPerRequest } : {}),
        ...(options.maxConcurrentRequests !== undefined
          ? { maxConcurrentRequests: options.maxConcurrentRequests }
          : {}),
        ...(options.maxQueuedRequests !== undefined ? { maxQueuedRequests: options.maxQueuedRequests } : {}),
      });
      writeLine(context.io.stdout, `serving ${options.checkpoint} at ${server.baseURL} (OpenAI-compatible)`);
      const received = await signal;
      context.io.stderr.write(`${received}: closing the model server\n`);
      await server.close();
    });
}
