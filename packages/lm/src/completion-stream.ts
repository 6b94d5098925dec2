import type { ServerResponse } from 'node:http';
import type { RowProgress } from './generate-in-turns';
import { completionLogprobs, textOffsets } from './completion-logprobs';
import { StreamedText } from './streamed-text';
import type { Tokenizer } from './tokenizer';

export interface CompletionStreamOptions {
  /** `id`, `object`, `created`, `model`: the same in every chunk. */
  readonly base: Readonly<Record<string, unknown>>;
  /** The completions (prompts × n); choice `index` i is row i. */
  readonly rows: number;
  readonly stops: readonly string[];
  readonly tokenizer: Tokenizer;
  /** Send each chunk's tokens and their log-probabilities. */
  readonly logprobs: boolean;
  /** With `logprobs`: the likeliest alternatives sent at each token (`top_logprobs`); 0 sends `top_logprobs: null`. */
  readonly topLogprobs: number;
  /** Every chunk carries `usage: null`, and a chunk with `choices: []` and the usage ends the stream. */
  readonly includeUsage: boolean;
  /** Text sent before row i's completion (its prompt, with `echo`). */
  readonly echo: (row: number) => string;
}

interface RowState {
  readonly text: StreamedText;
  /** Tokens whose log-probabilities were sent. */
  tokensSent: number;
  started: boolean;
  /** The length of the echo sent before the row's text, once sent. */
  echoLength?: number;
}

/**
 * One streamed `/v1/completions` answer, as OpenAI sends it: `text_completion` chunks, each with one choice (its
 * `index` the row's), text as it is decoded (`StreamedText` holds back broken characters and what may start a
 * stop sequence), the row's last chunk with its `finish_reason`, then the usage chunk (`include_usage`) and `[DONE]`.
 * The headers go out with the first chunk, so a request refused before any text still gets its error status.
 */
export class CompletionStream {
  private readonly states: RowState[];

  constructor(
    private readonly response: ServerResponse,
    private readonly options: CompletionStreamOptions,
  ) {
    this.states = Array.from({ length: options.rows }, () => ({
      text: new StreamedText(options.stops),
      tokensSent: 0,
      started: false,
    }));
  }

  /** A row's tokens after a pass: sends the text that has settled, or all of it and the finish once it has ended. */
  progress(row: number, { tokens, logprobs, topLogprobs, generation }: RowProgress): void {
    const state = this.states[row]!;
    const text = generation
      ? state.text.finish(generation.text)
      : state.text.next(this.options.tokenizer.decode(tokens));
    if (text === '' && !generation) return;
    const echo = state.started ? '' : this.options.echo(row);
    state.started = true;
    // Offsets count from the choice's whole text, its echo included, as in the plain answer.
    state.echoLength ??= echo.length;
    const from = state.tokensSent;
    const chunkLogprobs = this.options.logprobs
      ? completionLogprobs(
          this.options.tokenizer,
          {
            tokens: tokens.slice(from),
            logprobs: logprobs.slice(from, tokens.length),
            alternatives: topLogprobs?.slice(from, tokens.length),
            offsets: textOffsets(
              this.options.tokenizer,
              tokens,
              from,
              tokens.length,
              state.echoLength,
              generation ? state.echoLength + generation.text.length : Infinity,
            ),
          },
          this.options.topLogprobs,
        )
      : null;
    state.tokensSent = tokens.length;
    this.send({
      ...this.options.base,
      choices: [
        { index: row, text: echo + text, logprobs: chunkLogprobs, finish_reason: generation?.finishReason ?? null },
      ],
      ...(this.options.includeUsage ? { usage: null } : {}),
    });
  }

  /** Ends the stream, after every row has finished. */
  end(usage: { prompt_tokens: number; completion_tokens: number }): void {
    if (this.options.includeUsage) {
      this.send({
        ...this.options.base,
        choices: [],
        usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
      });
    }
    this.open();
    if (!this.response.destroyed) this.response.end('data: [DONE]\n\n');
  }

  private open(): void {
    if (this.response.headersSent) return;
    this.response.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
  }

  private send(payload: unknown): void {
    // A client that hung up: its generation stops at the next pass; nothing is left to write to.
    if (this.response.destroyed) return;
    this.open();
    this.response.write(`data: ${JSON.stringify(payload)}\n\n`);
  }
}
