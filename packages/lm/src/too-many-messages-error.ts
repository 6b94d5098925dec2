import { ContextLengthError } from './lm-errors';

/**
 * A chat with more messages than the model's context has positions, refused before its template is rendered: every
 * message renders to at least one token (its role's markers, if nothing else), so it cannot fit whatever it says.
 * Rendering is what it saves: @huggingface/jinja's interpreter spends ~15 µs a message on the event loop (more with
 * a real model's template), and a request of 200,000 one-letter messages held a server, and every other client of it,
 * for 2–6 s before the prompt's length could be checked. A ContextLengthError (code CONTEXT_LENGTH_EXCEEDED), so a
 * server answers it as 400 `context_length_exceeded`.
 */
export class TooManyMessagesError extends ContextLengthError {
  constructor(
    readonly messages: number,
    limit: number,
  ) {
    super(messages, limit, 'chat');
    this.message =
      `The chat has ${messages} messages, more than the model's context limit max_position_embeddings = ${limit} ` +
      `can hold: every message renders to at least one token, so send at most ${limit} messages.`;
  }
}
