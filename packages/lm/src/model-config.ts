import { CheckpointError, UnsupportedArchitectureError } from './lm-errors';

/** RoPE frequency scaling, as HF's `rope_scaling` (only the kinds below; others are refused by name). */
export type RopeScaling =
  | { readonly type: 'linear'; readonly factor: number }
  | {
      readonly type: 'llama3';
      readonly factor: number;
      readonly lowFreqFactor: number;
      readonly highFreqFactor: number;
      readonly originalMaxPositions: number;
    };

/** The model families this package runs: all are the same decoder up to biases and defaults. */
export type ModelFamily = 'llama' | 'qwen2' | 'mistral';

/**
 * A Llama/Qwen2-family decoder, in our words. `configFromHf` reads HF's `config.json` into this and
 * `configToHf` writes it back, so a checkpoint saved here loads in `transformers` too.
 */
export interface ModelConfig {
  readonly family: ModelFamily;
  readonly vocabSize: number;
  readonly hiddenSize: number;
  readonly intermediateSize: number;
  readonly numLayers: number;
  readonly numHeads: number;
  /** Grouped-query attention: each key/value head serves numHeads / numKvHeads query heads. */
  readonly numKvHeads: number;
  readonly headDim: number;
  /** The context limit: max_position_embeddings, or a sliding window when one is set (it is not applied). */
  readonly maxPositions: number;
  readonly ropeTheta: number;
  readonly ropeScaling: RopeScaling | null;
  readonly rmsNormEps: number;
  readonly tieWordEmbeddings: boolean;
  /** Biases on q/k/v projections (Qwen2 always; Llama when attention_bias). */
  readonly qkvBias: boolean;
  /** A bias on the output projection (Llama's attention_bias only). */
  readonly outputBias: boolean;
  readonly bosTokenId: number | null;
  readonly eosTokenIds: readonly number[];
}

const ARCHITECTURES: Record<string, ModelFamily> = {
  LlamaForCausalLM: 'llama',
  Qwen2ForCausalLM: 'qwen2',
  MistralForCausalLM: 'mistral',
};
const MODEL_TYPES: Record<string, ModelFamily> = { llama: 'llama', qwen2: 'qwen2', mistral: 'mistral' };

type Json = Record<string, unknown>;

function field(json: Json, name: string, source: string, fallback?: number): number {
  const value = json[name];
  if (value === undefined || value === null) {
    if (fallback !== undefined) return fallback;
    throw new CheckpointError(`${source}: required field "${name}" is missing.`);
  }
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new CheckpointError(`${source}: field "${name}" must be a number, got ${JSON.stringify(value)}.`);
  }
  return value;
}

function positiveNumber(json: Json, name: string, source: string, fallback?: number): number {
  const value = field(json, name, source, fallback);
  if (value <= 0) throw new CheckpointError(`${source}: field "${name}" must be a positive number, got ${value}.`);
  return value;
}

function positiveInteger(json: Json, name: string, source: string, fallback?: number): number {
  const value = field(json, name, source, fallback);
  if (!Number.isInteger(value) || value <= 0) {
    throw new CheckpointError(`${source}: field "${name}" must be a positive integer, got ${value}.`);
  }
  return value;
}

function tokenIds(value: unknown): number[] {
  if (typeof value === 'number') return [value];
  if (Array.isArray(value)) return value.filter((each): each is number => typeof each === 'number');
  return [];
}

/**
 * RoPE's base and scaling. transformers 5 writes both into `rope_parameters` ({rope_type, rope_theta, factor, …});
 * earlier versions write `rope_theta` and `rope_scaling` ({rope_type or type, factor, …}) at the top level.
 */
function readRope(json: Json, source: string): { ropeTheta: number; ropeScaling: RopeScaling | null } {
  const parameters = json.rope_parameters;
  if (parameters !== undefined && parameters !== null) {
    if (typeof parameters !== 'object' || Array.isArray(parameters))
      throw new CheckpointError(`${source}: "rope_parameters" must be an object.`);
    const ropeTheta = positiveNumber(parameters as Json, 'rope_theta', `${source} rope_parameters`, 10000);
    const legacyTheta = json.rope_theta;
    if (typeof legacyTheta === 'number' && legacyTheta !== ropeTheta) {
      throw new CheckpointError(
        `${source}: "rope_theta" is ${legacyTheta} but rope_parameters.rope_theta is ${ropeTheta}; keep one.`,
      );
    }
    return { ropeTheta, ropeScaling: readRopeScaling(parameters as Json, `${source} rope_parameters`) };
  }
  const scaling = json.rope_scaling;
  if (scaling !== undefined && scaling !== null && (typeof scaling !== 'object' || Array.isArray(scaling)))
    throw new CheckpointError(`${source}: "rope_scaling" must be an object or null.`);
  return {
    ropeTheta: positiveNumber(json, 'rope_theta', source, 10000),
    ropeScaling: scaling ? readRopeScaling(scaling as Json, `${source} rope_scaling`) : null,
  };
}

/** `where` names the object read: `config.json rope_scaling` or `config.json rope_parameters`. */
function readRopeScaling(raw: Json, where: string): RopeScaling | null {
  const type = String(raw.rope_type ?? raw.type ?? 'default');
  if (type === 'default') return null;
  if (type === 'linear') return { type: 'linear', factor: positiveNumber(raw, 'factor', where) };
  if (type === 'llama3') {
    return {
      type: 'llama3',
      factor: positiveNumber(raw, 'factor', where),
      lowFreqFactor: positiveNumber(raw, 'low_freq_factor', where),
      highFreqFactor: positiveNumber(raw, 'high_freq_factor', where),
      originalMaxPositions: positiveNumber(raw, 'original_max_position_embeddings', where),
    };
  }
  throw new CheckpointError(`${where} type "${type}" is not supported (supported: default, linear, llama3).`);
}

/** Reads HF's `config.json` (Llama, Qwen2, Mistral); `source` names the file in error messages. */
export function configFromHf(json: unknown, source = 'config.json'): ModelConfig {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new CheckpointError(`${source}: expected a JSON object.`);
  }
  const config = json as Json;
  const supported = [...Object.keys(ARCHITECTURES), ...Object.keys(MODEL_TYPES).map((type) => `model_type ${type}`)];
  const architectures = Array.isArray(config.architectures) ? (config.architectures as unknown[]).map(String) : [];
  let family: ModelFamily | undefined;
  for (const name of architectures) family ??= ARCHITECTURES[name];
  if (family === undefined) {
    if (architectures.length > 0) throw new UnsupportedArchitectureError(architectures.join(', '), supported);
    const modelType = config.model_type === undefined ? undefined : String(config.model_type);
    family = modelType === undefined ? undefined : MODEL_TYPES[modelType];
    if (family === undefined) throw new UnsupportedArchitectureError(modelType ?? '(none given)', supported);
  }
  const activation = String(config.hidden_act ?? 'silu');
  if (activation !== 'silu')
    throw new CheckpointError(`${source}: hidden_act "${activation}" is not supported (only silu).`);
  if (config.mlp_bias === true) throw new CheckpointError(`${source}: mlp_bias true is not supported.`);
  const quantization = config.quantization_config as Json | null | undefined;
  if (quantization !== undefined && quantization !== null) {
    // Said here, by name, rather than later as an integer dtype in the safetensors file.
    throw new CheckpointError(
      `${source}: quantization_config (${String(quantization.quant_method ?? 'unknown method')}) is not supported; ` +
        'load the unquantized checkpoint (F32, F16 or BF16 weights).',
    );
  }

  const hiddenSize = positiveInteger(config, 'hidden_size', source);
  const numHeads = positiveInteger(config, 'num_attention_heads', source);
  const numKvHeads = positiveInteger(config, 'num_key_value_heads', source, numHeads);
  if (numHeads % numKvHeads !== 0) {
    throw new CheckpointError(
      `${source}: num_attention_heads (${numHeads}) must be a multiple of num_key_value_heads (${numKvHeads}).`,
    );
  }
  if ((config.head_dim === undefined || config.head_dim === null) && hiddenSize % numHeads !== 0) {
    throw new CheckpointError(
      `${source}: hidden_size (${hiddenSize}) must be a multiple of num_attention_heads (${numHeads}) when "head_dim" is not given.`,
    );
  }
  const headDim = positiveInteger(config, 'head_dim', source, hiddenSize / numHeads);
  if (headDim % 2 !== 0)
    throw new CheckpointError(`${source}: head_dim (${headDim}) must be even for rotary embeddings.`);
  let maxPositions = positiveInteger(config, 'max_position_embeddings', source, 2048);
  // A sliding window is not applied here; refusing longer inputs keeps the results exact.
  const slidingWindow = config.sliding_window;
  const windowUsed = family === 'mistral' || (family === 'qwen2' && config.use_sliding_window === true);
  if (windowUsed && typeof slidingWindow === 'number' && slidingWindow > 0)
    maxPositions = Math.min(maxPositions, slidingWindow);
  const attentionBias = config.attention_bias === true;

  return {
    family,
    vocabSize: positiveInteger(config, 'vocab_size', source),
    hiddenSize,
    intermediateSize: positiveInteger(config, 'intermediate_size', source),
    numLayers: positiveInteger(config, 'num_hidden_layers', source),
    numHeads,
    numKvHeads,
    headDim,
    maxPositions,
    ...readRope(config, source),
    rmsNormEps: positiveNumber(config, 'rms_norm_eps', source, 1e-6),
    tieWordEmbeddings: config.tie_word_embeddings === true,
    qkvBias: family === 'qwen2' || attentionBias,
    outputBias: family !== 'qwen2' && attentionBias,
    bosTokenId: typeof config.bos_token_id === 'number' ? config.bos_token_id : null,
    eosTokenIds: tokenIds(config.eos_token_id),
  };
}

/** Writes the config as HF's `config.json`. */
export function configToHf(config: ModelConfig): Record<string, unknown> {
  const architecture = { llama: 'LlamaForCausalLM', qwen2: 'Qwen2ForCausalLM', mistral: 'MistralForCausalLM' }[
    config.family
  ];
  const scaling = config.ropeScaling;
  return {
    architectures: [architecture],
    model_type: config.family,
    vocab_size: config.vocabSize,
    hidden_size: config.hiddenSize,
    intermediate_size: config.intermediateSize,
    num_hidden_layers: config.numLayers,
    num_attention_heads: config.numHeads,
    num_key_value_heads: config.numKvHeads,
    head_dim: config.headDim,
    max_position_embeddings: config.maxPositions,
    rope_theta: config.ropeTheta,
    rope_scaling:
      scaling === null
        ? null
        : scaling.type === 'linear'
          ? { rope_type: 'linear', factor: scaling.factor }
          : {
              rope_type: 'llama3',
              factor: scaling.factor,
              low_freq_factor: scaling.lowFreqFactor,
              high_freq_factor: scaling.highFreqFactor,
              original_max_position_embeddings: scaling.originalMaxPositions,
            },
    rms_norm_eps: config.rmsNormEps,
    tie_word_embeddings: config.tieWordEmbeddings,
    hidden_act: 'silu',
    ...(config.family === 'qwen2' ? {} : { attention_bias: config.qkvBias }),
    bos_token_id: config.bosTokenId,
    eos_token_id: config.eosTokenIds.length === 1 ? config.eosTokenIds[0] : [...config.eosTokenIds],
    torch_dtype: 'float32',
  };
}

/** Parameters in the model (tied embeddings counted once). */
export function parameterCount(config: ModelConfig): number {
  const { hiddenSize: d, intermediateSize: ff, headDim, numHeads, numKvHeads, vocabSize } = config;
  const attention =
    d * numHeads * headDim * 2 +
    d * numKvHeads * headDim * 2 +
    (config.qkvBias ? (numHeads + 2 * numKvHeads) * headDim : 0) +
    (config.outputBias ? d : 0);
  const layer = attention + 3 * d * ff + 2 * d;
  return vocabSize * d * (config.tieWordEmbeddings ? 1 : 2) + config.numLayers * layer + d;
}
