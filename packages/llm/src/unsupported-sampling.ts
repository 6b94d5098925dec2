/** An OpenAI or vLLM request field no TurnGym model server applies, refused unless it holds its off value. */
export interface UnsupportedSamplingField {
  /** What a client may send instead (its off value), as a 400 says it. */
  readonly off: string;
  /** Only OpenAI's legacy `/v1/completions` has the field (`best_of`, `suffix`); the chat server lets it pass. */
  readonly completionsOnly: boolean;
  /** Whether a value (never null or undefined: those are off) asks for nothing, so the request is served. */
  isOff(value: unknown): boolean;
}

const isEmptyObject = (value: unknown): boolean =>
  typeof value === 'object' && value !== null && Object.keys(value).length === 0;

const field = (off: string, isOff: (value: unknown) => boolean, completionsOnly = false): UnsupportedSamplingField => ({
  off,
  isOff,
  completionsOnly,
});

/**
 * Request fields that change what a server answers but that no ChatModel and not the LM's sampler apply: OpenAI's
 * penalties and `logit_bias` (and on `/v1/completions` `best_of` and `suffix`), and the vLLM extensions its clients
 * send in `extra_body` (guided decoding, `min_tokens`, `ignore_eos`, `stop_token_ids`, beam search). Ignored, the
 * client would read other text than it asked for (unconstrained text as JSON, a reply that stopped where it was told
 * not to) with no word why; so each is refused, naming the field, unless it holds its off value. One table for both
 * OpenAI-compatible servers (`serveChatModel` here, the LM's `/v1/completions`), as `EXTENDED_SAMPLING_FIELDS` is,
 * so that what they refuse and how they say it cannot drift apart.
 */
export const UNSUPPORTED_SAMPLING_FIELDS: Readonly<Record<string, UnsupportedSamplingField>> = {
  presence_penalty: field('0', (value) => value === 0),
  frequency_penalty: field('0', (value) => value === 0),
  logit_bias: field('{}', isEmptyObject),
  best_of: field('1', (value) => value === 1, true),
  suffix: field('""', (value) => value === '', true),
  guided_json: field('null', () => false),
  guided_regex: field('null', () => false),
  guided_choice: field('null', () => false),
  guided_grammar: field('null', () => false),
  structured_outputs: field('null', () => false),
  min_tokens: field('0', (value) => value === 0),
  ignore_eos: field('false', (value) => value === false),
  stop_token_ids: field('[]', (value) => Array.isArray(value) && value.length === 0),
  use_beam_search: field('false', (value) => value === false),
};

/** A request field set to something this server does not apply: its name, and the 400's message. */
export interface UnsupportedSamplingProblem {
  readonly field: string;
  readonly message: string;
}

/**
 * The first field of `body` in `UNSUPPORTED_SAMPLING_FIELDS` set to anything but off, for the `chat` or `completions`
 * API; undefined when there is none. Both servers answer it as a 400 `unsupported_parameter` with this message.
 */
export function unsupportedSamplingField(
  body: Readonly<Record<string, unknown>>,
  api: 'chat' | 'completions',
): UnsupportedSamplingProblem | undefined {
  for (const [name, { off, completionsOnly, isOff }] of Object.entries(UNSUPPORTED_SAMPLING_FIELDS)) {
    if (completionsOnly && api !== 'completions') continue;
    const value = body[name];
    if (value === undefined || value === null || isOff(value)) continue;
    const shown = JSON.stringify(value);
    return {
      field: name,
      message:
        `"${name}" is not supported by this server (got ${shown.length > 200 ? `${shown.slice(0, 200)}…` : shown}); ` +
        `leave it out (or send ${off}).`,
    };
  }
  return undefined;
}
