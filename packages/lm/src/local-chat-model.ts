import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { TurnGymError } from '@turngym/core';
import { LLMCallError, type ChatModel, type ChatRequest, type ChatResponse, type ChatTokenLogprob } from '@turngym/llm';
import type { BackendName } from './backend';
import { generateInTurns } from './generate-in-turns';
import type { Generation } from './generation';
import type { GenerationQueue } from './generation-queue';
import type { LanguageModel } from './language-model';
import { CheckpointError, ContextLengthError } from './lm-errors';
import { loadModel } from './load-model';
import { chatLogprobs, contentTokenCount, settledTokenCount } from './local-chat-model-logprobs';
import { refuseUnfittablePrompt } from './prompt-size-bound';
import { StreamedText } from './streamed-text';
import { TooManyMessagesError } from './too-many-messages-error';

export interface LocalChatModelOptions {
  readonly backend?: BackendName;
  /** Generate with this LoRA adapter (loaded from the checkpoint's adapters/). */
  readonly adapter?: string;
  /** Used when a request sets no maxTokens. */
  readonly maxTokens?: number;
  /** Generations wait here for a free slot (a server shares one between its endpoints); full, `complete` is a 429. */
  readonly queue?: GenerationQueue;
  /**
   * Tokenizes the rendered prompt (default: the model's tokenizer, in place). A server passes its
   * ServeModelTokenizer, which tokenizes a long prompt off the event loop.
   */
  readonly encode?: (text: string) => Promise<number[]>;
}

/**
 * A request whose caller streams the reply (`serveChatModel` with `stream: true`): `onDelta` receives the text as it
 * is decoded, never a broken character or the start of a stop sequence, and the deltas add up to the reply's content.
 * With `logprobs`, each delta comes with the entries of the tokens whose text it completes (possibly none, and a
 * last call with empty text for tokens held back to the end): they add up to the reply's `logprobs`.
 */
export interface StreamingChatRequest extends ChatRequest {
  readonly onDelta?: (text: string, logprobs?: readonly ChatTokenLogprob[]) => void;
}

/**
 * The tfjs LM as a ChatModel (`local:<checkpoint>`): renders the messages with the checkpoint's chat
 * template, samples with the request's temperature / top-p / stop / seed, and answers with plain content
 * (tool calls are left in the text for the env's parser). Weights load on the first `complete()`.
 * Requests without a seed use seed 0, so the same request gets the same answer. Generation yields to the event loop
 * between decoder passes and stops when the request's `signal` aborts or the model is closed (`generateInTurns`);
 * with a `queue` it first waits for a free generation there, and a request with `onDelta` gets its text as decoded.
 */
export class LocalChatModel implements ChatModel {
  readonly id: string;
  /** The drawn tokens' logprobs and the likeliest alternatives come from the generation itself. */
  readonly supportsLogprobs = true;
  /** The sampler applies vLLM's top_k, min_p and repetition_penalty: `serveChatModel` passes them on. */
  readonly supportsExtendedSampling = true;
  /**
   * What decides the answers besides `id` (a path) and the request: the checkpoint's files as they are now (name,
   * size, modification time), the adapter and the default maxTokens. A response cache keys on it, so a checkpoint
   * retrained in place, or another adapter, is never answered from the earlier one's cached replies.
   */
  readonly cacheIdentity: string;
  private loading: Promise<LanguageModel> | undefined;
  private closed = false;
  /** One controller per `complete` in flight, aborted by `close`. */
  private readonly generating = new Set<AbortController>();

  constructor(
    readonly checkpoint: string | LanguageModel,
    private readonly options: LocalChatModelOptions = {},
  ) {
    this.id = typeof checkpoint === 'string' ? `local:${checkpoint}` : 'local:model';
    this.cacheIdentity = JSON.stringify({
      files: typeof checkpoint === 'string' ? checkpointFiles(checkpoint) : null,
      adapter: options.adapter ?? null,
      maxTokens: options.maxTokens ?? null,
    });
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

  async complete(request: StreamingChatRequest): Promise<ChatResponse> {
    const model = await this.model();
    request.signal?.throwIfAborted();
    // Refused before it waits in a server's queue for a generation that would refuse it, as an OpenAI server's 400
    // context_length_exceeded would be: a context overflow (not retried), which ends an agent's episode as a scored
    // failure (core's runEpisode); the ContextLengthError is its cause (serve-model answers context_length_exceeded).
    const refuse = (tooLong: ContextLengthError): LLMCallError =>
      new LLMCallError(`${this.id}: ${tooLong.message}`, {
        failure: 'context-length',
        status: 400,
        modelId: this.id,
        cause: tooLong,
      });
    // Before rendering, which blocks the event loop for as long as the chat is long (see TooManyMessagesError).
    if (request.messages.length > model.config.maxPositions)
      throw refuse(new TooManyMessagesError(request.messages.length, model.config.maxPositions));
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
    // A prompt too big to fit whatever it tokenizes to is refused before tokenizing, which blocks the event loop.
    try {
      refuseUnfittablePrompt(model.tokenizer, prompt, model.config.maxPositions);
    } catch (error) {
      if (error instanceof ContextLengthError) throw refuse(error);
      throw error;
    }
    const tokens = this.options.encode ? await this.options.encode(prompt) : model.tokenizer.encode(prompt);
    request.signal?.throwIfAborted();
    if (tokens.length > model.config.maxPositions)
      throw refuse(new ContextLengthError(tokens.length, model.config.maxPositions));
    const stop =
      request.stop === undefined ? undefined : typeof request.stop === 'string' ? [request.stop] : [...request.stop];
    // Closing mid-generation stops at the next pass, before the weights it decodes with are freed.
    const stopped = new AbortController();
    this.generating.add(stopped);
    const signal = request.signal ? AbortSignal.any([request.signal, stopped.signal]) : stopped.signal;
    const { onDelta } = request;
    const streamed = onDelta ? new StreamedText(stop) : undefined;
    const wantLogprobs = request.logprobs === true;
    const topCount = wantLogprobs ? (request.topLogprobs ?? 0) : 0;
    /** Logprob entries handed to `onDelta` so far: once the stream has ended, the reply's. */
    const entriesSent: ChatTokenLogprob[] = [];
    let result: Generation | undefined;
    // OpenAI's top_p runs from 0: at 0 only the likeliest token is left, which is greedy decoding. The sampler takes
    // top-p above 0 only, and a request passed on with 0 failed as a server error (a 500 that clients retry).
    const greedy = request.topP === 0;
    try {
      [result] = await generateInTurns(
        model,
        [{ tokens }],
        {
          maxTokens: request.maxTokens ?? this.options.maxTokens ?? 256,
          temperature: greedy ? 0 : (request.temperature ?? 1),
          topP: greedy ? 1 : (request.topP ?? 1),
          seed: request.seed ?? 0,
          ...(request.topK ? { topK: request.topK } : {}),
          ...(request.minP ? { minP: request.minP } : {}),
          ...(request.repetitionPenalty !== undefined && request.repetitionPenalty !== 1
            ? { repetitionPenalty: request.repetitionPenalty }
            : {}),
          ...(stop && stop.length > 0 ? { stop } : {}),
          ...(this.options.adapter ? { adapter: this.options.adapter } : {}),
          ...(topCount > 0 ? { topLogprobs: topCount } : {}),
        },
        {
          signal,
          ...(this.options.queue ? { queue: this.options.queue } : {}),
          ...(streamed
            ? {
                onProgress: (_row, progress) => {
                  const { tokens, generation } = progress;
                  const delta = generation
                    ? streamed.finish(generation.text)
                    : streamed.next(model.tokenizer.decode(tokens));
                  if (!wantLogprobs) {
                    if (delta !== '') onDelta!(delta);
                    return;
                  }
                  // The entries of the tokens whose text has now been sent; at the end, those of the whole content.
                  const sent = entriesSent.length;
                  const settled = generation
                    ? Math.max(sent, contentTokenCount(model.tokenizer, tokens, generation.text))
                    : delta === ''
                      ? sent
                      : settledTokenCount(model.tokenizer, tokens, streamed.text, sent);
                  const entries = chatLogprobs(model.tokenizer, progress, sent, settled);
                  entriesSent.push(...entries);
                  if (delta !== '' || entries.length > 0) onDelta!(delta, entries);
                },
              }
            : {}),
        },
      );
    } catch (error) {
      // Sampling settings the generator refuses (a temperature past its range) are the request's fault: a 400 that
      // is not retried, not a server error.
      if (!signal.aborted && TurnGymError.isInstance(error) && error.code === 'INVALID_OPTIONS') {
        throw new LLMCallError(`${this.id}: ${error.message}`, {
          failure: 'http',
          status: 400,
          modelId: this.id,
          cause: error,
        });
      }
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
    // The entries of the tokens that wrote the content: a stream's last delta sent the last of them, so the reply's
    // are the ones sent (not built a second time); otherwise built here.
    const logprobs = !wantLogprobs
      ? undefined
      : streamed
        ? entriesSent
        : chatLogprobs(model.tokenizer, result!, 0, contentTokenCount(model.tokenizer, result!.tokens, result!.text));
    return {
      message: { role: 'assistant', content: result!.text },
      usage: { promptTokens: tokens.length, completionTokens: result!.tokens.length },
      finishReason: result!.finishReason,
      ...(logprobs ? { logprobs } : {}),
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

/**
 * The files under a checkpoint directory as `path size mtime` lines, sorted; none for a name that is not a directory
 * (`tiny-1m`, generated the same every time). Sizes and times, not contents: reading gigabytes of weights to key a
 * cache would cost more than the answers it saves, and a copied checkpoint (new times) only misses, never mixes up.
 */
function checkpointFiles(dir: string): string[] | null {
  let entries: string[];
  try {
    if (!statSync(dir).isDirectory()) return null;
    entries = readdirSync(dir, { recursive: true, encoding: 'utf8' });
  } catch {
    return null;
  }
  const files: string[] = [];
  for (const entry of entries.sort()) {
    try {
      const stat = statSync(join(dir, entry));
      if (stat.isFile()) files.push(`${entry} ${stat.size} ${stat.mtimeMs}`);
    } catch {
      // Gone since the listing: not part of the checkpoint as it will load.
    }
  }
  return files;
}
