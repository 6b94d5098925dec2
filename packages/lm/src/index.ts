/** @turngym/lm — a Llama/Qwen2-family decoder LM on tfjs. */
export * as tf from '@tensorflow/tfjs';
export * from './lm-errors';
export {
  configFromHf,
  configToHf,
  parameterCount,
  type ModelConfig,
  type ModelFamily,
  type RopeScaling,
} from './model-config';
export { TINY_CONFIGS, testConfig, type TinyConfigName } from './tiny-configs';
export type { Tokenizer, ChatTemplateOptions } from './tokenizer';
export { ByteTokenizer, BYTE_SPECIAL_TOKENS, BYTE_VOCAB_SIZE } from './byte-tokenizer';
export { HfTokenizer } from './hf-tokenizer';
export { renderChatTemplate, CHATML_TEMPLATE } from './chat-template';
export { elementCount, type NamedTensor, type NamedTensors } from './named-tensors';
export {
  readSafetensors,
  readSafetensorsFile,
  writeSafetensors,
  type SafetensorsDtype,
  type SafetensorsFile,
} from './safetensors';
export { expectedTensorShapes, checkTensors, initializeWeights, PROJECTIONS, type ProjectionName } from './hf-weights';
export { referenceForward, type ReferenceInput, type ReferenceOutput } from './reference-forward';
export {
  useBackend,
  currentBackend,
  backendInfo,
  isBackendAvailable,
  webGpuAdapter,
  BACKEND_NAMES,
  backendOptionsSchema,
  type BackendName,
  type BackendOptions,
  type BackendInfo,
  type WebGpuAdapterInfo,
  type WebGpuPoolInfo,
} from './backend';
export { vulkanDriverFiles } from './internal/webgpu-device';
export { useFusedDecoder } from './internal/fused-decoder';
export {
  causalAttention,
  packedAttention,
  attentionFromFunction,
  attentionFromMatrix,
  type AttentionPattern,
} from './attention-mask';
export type { TokenRow } from './token-batch';
export { LanguageModel, type ForwardOptions, type ForwardOutputs } from './language-model';
export { LoraAdapter, DEFAULT_LORA_OPTIONS, type LoraOptions } from './lora-adapter';
export { ValueHead } from './value-head';
export {
  loadCheckpoint,
  saveCheckpoint,
  loadTokenizer,
  readCheckpointTensors,
  saveAdapter,
  loadAdapter,
  saveValueHead,
  loadValueHead,
  type LoadCheckpointOptions,
  type SaveCheckpointOptions,
} from './checkpoint';
export { KvCache } from './kv-cache';
export { eventLoopYielder } from './event-loop-yield';
export {
  generate,
  generateYielding,
  prefill,
  generationOptionsSchema,
  type Generation,
  type GenerationOptions,
  type GenerationRequest,
} from './generation';
export { GenerationBatch, type FinishedRow, type RowInFlight } from './generation-batch';
export { sampleToken, logSumExp, type SamplingSettings } from './sampling';
export { topLogprobs, type TokenLogprob } from './top-logprobs';
export {
  Trainer,
  trainerOptionsSchema,
  tokenCrossEntropyLoss,
  TRAINER_STATE_FORMAT,
  TRAINER_STATE_FILES,
  type TrainerState,
  type TrainerStateJson,
  type TrainerOptions,
  type LossFunction,
  type TrainStepResult,
} from './trainer';
export { loadModel, type LoadModelOptions } from './load-model';
export { LocalChatModel, type LocalChatModelOptions } from './local-chat-model';
// Shared by LocalChatModels (and serve-model's endpoints) so that at most N generations decode at once.
export { GenerationQueue } from './generation-queue';
// A ContextLengthError raised before tokenizing (prompt-size-bound.ts): exported so callers can tell it apart.
export { PromptTooLongError } from './prompt-size-bound';
// The same for a chat of more messages than the context holds, refused before its template is rendered.
export { TooManyMessagesError } from './too-many-messages-error';
export { registerLocalChatModelProvider } from './local-provider';
export { serveModel, serveModelOptionsSchema, type ServeModelOptions, type ModelServer } from './serve-model';
export {
  lmScore,
  lmGenerate,
  lmScoreOptionsSchema,
  lmGenerateOptionsSchema,
  type LmScoreOptions,
  type LmScoreResult,
  type ScoredSequence,
  type LmGenerateOptions,
  type LmGenerateResult,
} from './lm-commands';
