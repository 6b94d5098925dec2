/**
 * Action and observation spaces. Text is the native currency of an LLM agent; the other spaces describe
 * what structure the text (or a function call) must have so that agents, checkers and trainers can
 * sample, mask and validate without knowing the env.
 */

/** A JSON Schema object, as ajv reads it. Kept structural so that `spec` needs no runtime dependency. */
export type JsonSchema = { [key: string]: unknown };

/** Free text. `examples` are well-formed actions a generic random agent or the checker may send. */
export interface TextSpace {
  readonly type: 'text';
  /** Longest text the env reads without truncating (characters). */
  readonly maxLength?: number;
  /** Well-formed sample actions (used by random baselines and the env checker). */
  readonly examples?: readonly string[];
}

/**
 * A choice among `n` labelled options. An action is the index (number) or the label (string).
 * Which options are legal right now is `info.actionMask` (true = allowed).
 */
export interface DiscreteSpace {
  readonly type: 'discrete';
  readonly n: number;
  readonly labels: readonly string[];
}

/**
 * Function calling: the agent calls one of `tools`, either as an OpenAI-style tool call
 * (`{ name, arguments }`) or in the env's documented text syntax. Arguments are validated with ajv
 * against the tool's JSON Schema.
 */
export interface ToolSpace {
  readonly type: 'tools';
  readonly tools: readonly ToolSpec[];
  /** Well-formed sample actions in text syntax. */
  readonly examples?: readonly string[];
}

export type Space = TextSpace | DiscreteSpace | ToolSpace;

/** One tool an agent may call. `parameters` is a JSON Schema of the arguments object. */
export interface ToolSpec {
  readonly name: string;
  readonly description: string;
  readonly parameters: JsonSchema;
}
