import { LLMCallError, type ChatModel, type ChatRequest, type ChatResponse } from '@turngym/llm';
import type { BackendName } from './backend';
import { generateInTurns } from './generate-in-turns';
import type { Generation } from './generation';
import type { LanguageModel } from './language-model';
import { CheckpointError } from './lm-errors';
import { loadModel } from './load-model';

export interface LocalChatModelOptions {
  readonly backend?: BackendName;
  /** Generate with this LoRA adapter (loaded from the checkpoint's adapters/). */
  readonly adapter?: string;
  /** Used when a request sets no maxTokens. */
  readonly maxTokens?: number;
}

/**
 * The tfjs LM as a ChatModel (`local:<checkpoint>`): renders the messages with the checkpoint's chat
 * template, samples with the request's temperature / top-p / stop / seed, and answers with plain content
 * (tool calls are left in the text for the env's parser). Weights load on the first `complete()`.
 * Requests without a seed use seed 0, so the same request gets the same answer. Generation yields to the event loop
 * between decoder passes and stops when the request's `signal` aborts or the model is closed (`generateInTurns`).
 */
export class LocalChatModel implements ChatModel {
  readonly id: string;
  private loading: Promise<LanguageModel> | undefined;
  private closed = false;
  /** One controller per `complete` in flight, aborted by `close`. */
  private readonly generating = new Set<AbortController>();

  constructor(
    readonly checkpoint: string | LanguageModel,
    private readonly options: LocalChatModelOptions = {},
  ) {
    this.id = typeof checkpoint === 'string' ? `local:${checkpoint}` : 'local:model';
    if (typeof checkpoint !== 'string') this.loading = Promise.resolve(checkpoint);
  }

  model(): Promise<LanguageModel> {
    if (this.closed) return Promise.reject(new Error(`${this.id} is closed.`));
    this.loading ??= loadModel(
      this.checkpoint as string,
      this.options.backend ? { backend: this.options.backend } : {},
    );
    return this.loading;
  }

  async complete(request: ChatRequest): Promise<ChatResponse> {
    const model = await this.model();
    request.signal?.throwIfAborted();
    let prompt: string;
    try {
      prompt = model.tokenizer.applyChatTemplate(request.messages, {
        addGenerationPrompt: true,
        ...(request.tools ? { tools: request.tools } : {}),
      });
    } catch (error) {
      // A tokenizer with no template is the server's fault: that stays a 500.
      if (error instanceof CheckpointError) throw error;
      // Templates refuse messages they cannot render (raise_exception: roles that do not alternate, a system
      // message the model has no slot for): the client's request to change, as a 400 that is not retried.
      throw new LLMCallError(`The chat template refused the messages: ${(error as Error).message}`, {
        failure: 'http',
        status: 400,
        modelId: this.id,
        cause: error,
      });
    }
    const tokens = model.tokenizer.encode(prompt);
    const stop =
      request.stop === undefined ? undefined : typeof request.stop === 'string' ? [request.stop] : [...request.stop];
    // Closing mid-generation stops at the next pass, before the weights it decodes with are freed.
    const stopped = new AbortController();
    this.generating.add(stopped);
    const signal = request.signal ? AbortSignal.any([request.signal, stopped.signal]) : stopped.signal;
    let result: Generation | undefined;
    try {
      [result] = await generateInTurns(
        model,
        [{ tokens }],
        {
          maxTokens: request.maxTokens ?? this.options.maxTokens ?? 256,
          temperature: request.temperature ?? 1,
          topP: request.topP ?? 1,
          seed: request.seed ?? 0,
          ...(stop && stop.length > 0 ? { stop } : {}),
          ...(this.options.adapter ? { adapter: this.options.adapter } : {}),
        },
        signal,
      );
    } catch (error) {
      if (!signal.aborted) throw error;
      throw new LLMCallError(
        `${this.id}: generation stopped: ${String((signal.reason as Error)?.message ?? signal.reason)}`,
        {
          failure: 'aborted',
          modelId: this.id,
          cause: signal.reason,
        },
      );
    } finally {
      this.generating.delete(stopped);
    }
    return {
      message: { role: 'assistant', content: result!.text },
      usage: { promptTokens: tokens.length, completionTokens: result!.tokens.length },
      finishReason: result!.finishReason,
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const stopped of this.generating) stopped.abort(new Error(`${this.id} is closed.`));
    const loading = this.loading;
    this.loading = undefined;
    if (loading && typeof this.checkpoint === 'string') (await loading.catch(() => undefined))?.dispose();
  }
}
