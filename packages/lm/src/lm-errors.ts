import { TurnGymError } from '@turngym/core';

/**
 * Errors of the LM package. Each names the file, tensor, field or limit at fault, so a user can fix the
 * checkpoint or the call without reading this code.
 *
 * | code                     | class                      | meaning                                               |
 * |--------------------------|----------------------------|-------------------------------------------------------|
 * | INVALID_CHECKPOINT       | CheckpointError            | missing/misshapen tensor, bad config field, bad file  |
 * | UNSUPPORTED_ARCHITECTURE | UnsupportedArchitectureError | config.json names a model family this package lacks |
 * | TOKENIZER_MISMATCH       | TokenizerMismatchError     | token ids (tokenizer's or given) past the vocabulary  |
 * | CONTEXT_LENGTH_EXCEEDED  | ContextLengthError         | a prompt longer than the model's context              |
 * | CONTEXT_LENGTH_EXCEEDED  | PromptTooLongError         | a ContextLengthError told from the bytes alone        |
 * | BACKEND_UNAVAILABLE      | BackendUnavailableError    | a tfjs backend that is not installed or fails to load |
 * | ADAPTER_NOT_FOUND        | AdapterNotFoundError       | a LoRA adapter name the model does not have           |
 * | GPU_COMMAND_FAILED       | GpuCommandError            | the GPU rejected a command: tensors since are invalid |
 */
export class CheckpointError extends TurnGymError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super('INVALID_CHECKPOINT', message, options);
  }
}

export class UnsupportedArchitectureError extends TurnGymError {
  constructor(
    readonly architecture: string,
    readonly supported: readonly string[],
  ) {
    super(
      'UNSUPPORTED_ARCHITECTURE',
      `config.json "architectures"/"model_type" names "${architecture}", which @turngym/lm cannot run. Supported: ${supported.join(', ')}.`,
    );
  }
}

export class TokenizerMismatchError extends TurnGymError {
  constructor(message: string) {
    super('TOKENIZER_MISMATCH', message);
  }
}

export class ContextLengthError extends TurnGymError {
  constructor(
    readonly length: number,
    readonly limit: number,
    what = 'prompt',
  ) {
    super(
      'CONTEXT_LENGTH_EXCEEDED',
      `The ${what} has ${length} tokens, more than the model's context limit max_position_embeddings = ${limit}.`,
    );
  }
}

/** The GPU rejected a command (webgpu-device-errors.ts); `detail` is the device's whole message. */
export class GpuCommandError extends TurnGymError {
  constructor(
    message: string,
    readonly detail: string,
  ) {
    super('GPU_COMMAND_FAILED', message);
  }
}

export class BackendUnavailableError extends TurnGymError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super('BACKEND_UNAVAILABLE', message, options);
  }
}

export class AdapterNotFoundError extends TurnGymError {
  constructor(
    readonly adapter: string,
    readonly available: readonly string[],
  ) {
    super(
      'ADAPTER_NOT_FOUND',
      `No LoRA adapter named "${adapter}". ${available.length > 0 ? `This model has: ${available.join(', ')}.` : 'This model has none; add one with addAdapter().'}`,
    );
  }
}
