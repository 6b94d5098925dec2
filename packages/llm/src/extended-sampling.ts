/** One of vLLM's sampling fields beyond OpenAI's, as vLLM reads it. */
export interface ExtendedSamplingField {
  /** The request field of a generation (`LocalChatModel`, the LM's generator) it becomes. */
  readonly field: 'topK' | 'minP' | 'repetitionPenalty';
  /** The value that means off, and what an absent field is. */
  readonly off: number;
  /** What a value must be, as a 400 says it. */
  readonly expected: string;
  valid(value: number): boolean;
  /** Off values are left out of the request, so such a request samples what it always did. */
  isOff(value: number): boolean;
}

/**
 * vLLM's sampling fields beyond OpenAI's (sent by lm-evaluation-harness, vLLM clients, the openai client's
 * `extra_body`), by wire name: `top_k` (-1 or 0: off), `min_p` (0 to 1) and `repetition_penalty` (above 0; 1: off).
 * One table for both OpenAI-compatible servers (`serveChatModel` here, the LM's `/v1/completions`), so their ranges
 * and messages cannot drift apart.
 */
export const EXTENDED_SAMPLING_FIELDS: Readonly<
  Record<'top_k' | 'min_p' | 'repetition_penalty', ExtendedSamplingField>
> = {
  top_k: {
    field: 'topK',
    off: 0,
    expected: 'an integer: -1 or 0 (off) or the likeliest tokens kept',
    valid: (value) => Number.isInteger(value) && value >= -1,
    isOff: (value) => value === 0 || value === -1,
  },
  min_p: {
    field: 'minP',
    off: 0,
    expected: 'from 0 to 1',
    valid: (value) => value >= 0 && value <= 1,
    isOff: (value) => value === 0,
  },
  repetition_penalty: {
    field: 'repetitionPenalty',
    off: 1,
    expected: 'above 0 (1: off)',
    valid: (value) => value > 0,
    isOff: (value) => value === 1,
  },
};
