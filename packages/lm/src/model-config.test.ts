import { CheckpointError, UnsupportedArchitectureError } from './lm-errors';
import { configFromHf, configToHf, parameterCount } from './model-config';
import { TINY_CONFIGS } from './tiny-configs';

const qwen2 = {
  architectures: ['Qwen2ForCausalLM'],
  model_type: 'qwen2',
  vocab_size: 151936,
  hidden_size: 896,
  intermediate_size: 4864,
  num_hidden_layers: 24,
  num_attention_heads: 14,
  num_key_value_heads: 2,
  max_position_embeddings: 32768,
  rope_theta: 1000000,
  rms_norm_eps: 1e-6,
  tie_word_embeddings: true,
  hidden_act: 'silu',
  sliding_window: 32768,
  use_sliding_window: false,
  bos_token_id: 151643,
  eos_token_id: 151645,
};

describe('configFromHf', () => {
  it('reads a Qwen2 config (Qwen2.5-0.5B) with q/k/v biases and GQA', () => {
    const config = configFromHf(qwen2);
    expect(config).toMatchObject({
      family: 'qwen2',
      headDim: 64,
      numKvHeads: 2,
      qkvBias: true,
      outputBias: false,
      tieWordEmbeddings: true,
      eosTokenIds: [151645],
    });
    expect(parameterCount(config)).toBeGreaterThan(490e6);
    expect(parameterCount(config)).toBeLessThan(500e6);
  });

  it('reads a Llama 3 config with rope scaling and several eos ids', () => {
    const config = configFromHf({
      architectures: ['LlamaForCausalLM'],
      vocab_size: 128256,
      hidden_size: 2048,
      intermediate_size: 8192,
      num_hidden_layers: 16,
      num_attention_heads: 32,
      num_key_value_heads: 8,
      max_position_embeddings: 131072,
      rope_scaling: {
        factor: 32,
        high_freq_factor: 4,
        low_freq_factor: 1,
        original_max_position_embeddings: 8192,
        rope_type: 'llama3',
      },
      eos_token_id: [128001, 128008, 128009],
      tie_word_embeddings: true,
    });
    expect(config.family).toBe('llama');
    expect(config.qkvBias).toBe(false);
    expect(config.ropeScaling).toEqual({
      type: 'llama3',
      factor: 32,
      lowFreqFactor: 1,
      highFreqFactor: 4,
      originalMaxPositions: 8192,
    });
    expect(config.eosTokenIds).toEqual([128001, 128008, 128009]);
  });

  it('round-trips through configToHf', () => {
    for (const config of Object.values(TINY_CONFIGS)) expect(configFromHf(configToHf(config))).toEqual(config);
  });

  it('names an unknown architecture and the supported ones', () => {
    expect(() => configFromHf({ ...qwen2, architectures: ['GPT2LMHeadModel'] })).toThrow(UnsupportedArchitectureError);
    expect(() => configFromHf({ ...qwen2, architectures: ['GPT2LMHeadModel'] })).toThrow(
      /GPT2LMHeadModel.*Supported: LlamaForCausalLM/,
    );
    expect(() => configFromHf({ ...qwen2, architectures: undefined, model_type: 'gemma' })).toThrow(/"gemma"/);
  });

  it('names a missing or invalid field', () => {
    const { hidden_size: _, ...missing } = qwen2;
    expect(() => configFromHf(missing)).toThrow(CheckpointError);
    expect(() => configFromHf(missing)).toThrow(/"hidden_size" is missing/);
    expect(() => configFromHf({ ...qwen2, num_key_value_heads: 3 })).toThrow(/multiple of num_key_value_heads/);
    expect(() => configFromHf({ ...qwen2, hidden_act: 'gelu' })).toThrow(/hidden_act "gelu"/);
    expect(() => configFromHf({ ...qwen2, rope_scaling: { rope_type: 'yarn', factor: 4 } })).toThrow(
      /rope_scaling type "yarn"/,
    );
  });

  it('reads rope_parameters, where transformers 5 writes rope_theta and the scaling', () => {
    const { rope_theta: _, ...legacy } = qwen2;
    const v5 = configFromHf({ ...legacy, rope_parameters: { rope_type: 'default', rope_theta: 1000000 } });
    expect(v5.ropeTheta).toBe(1000000);
    expect(v5.ropeScaling).toBeNull();
    const llama3 = configFromHf({
      ...legacy,
      rope_parameters: {
        rope_type: 'llama3',
        rope_theta: 500000,
        factor: 32,
        low_freq_factor: 1,
        high_freq_factor: 4,
        original_max_position_embeddings: 8192,
      },
    });
    expect(llama3.ropeTheta).toBe(500000);
    expect(llama3.ropeScaling).toMatchObject({ type: 'llama3', factor: 32 });
    expect(() =>
      configFromHf({ ...legacy, rope_parameters: { rope_type: 'yarn', rope_theta: 1e6, factor: 4 } }),
    ).toThrow(/rope_parameters type "yarn" is not supported/);
    expect(() => configFromHf({ ...qwen2, rope_parameters: { rope_type: 'default', rope_theta: 10000 } })).toThrow(
      /"rope_theta" is 1000000 but rope_parameters.rope_theta is 10000/,
    );
  });

  it('refuses values that would run but compute nonsense', () => {
    expect(() => configFromHf({ ...qwen2, rope_theta: 0 })).toThrow(/field "rope_theta" must be a positive number/);
    expect(() => configFromHf({ ...qwen2, rms_norm_eps: -1e-6 })).toThrow(
      /field "rms_norm_eps" must be a positive number/,
    );
    expect(() => configFromHf({ ...qwen2, rope_scaling: { rope_type: 'linear', factor: 0 } })).toThrow(
      /rope_scaling: field "factor" must be a positive number/,
    );
    expect(() => configFromHf({ ...qwen2, hidden_size: 900 })).toThrow(
      /hidden_size \(900\) must be a multiple of num_attention_heads \(14\) when "head_dim" is not given/,
    );
    expect(configFromHf({ ...qwen2, hidden_size: 900, head_dim: 64 }).headDim).toBe(64);
    expect(() => configFromHf({ ...qwen2, quantization_config: { quant_method: 'awq', bits: 4 } })).toThrow(
      /config.json: quantization_config \(awq\) is not supported/,
    );
  });

  it('takes a used sliding window as the context limit', () => {
    expect(configFromHf({ ...qwen2, use_sliding_window: true, sliding_window: 4096 }).maxPositions).toBe(4096);
    expect(configFromHf(qwen2).maxPositions).toBe(32768);
  });
});

describe('TINY_CONFIGS', () => {
  it('are about 1M, 8M, 30M and 100M parameters', () => {
    const millions = Object.values(TINY_CONFIGS).map((config) => parameterCount(config) / 1e6);
    expect(millions[0]).toBeCloseTo(1, 0);
    expect(Math.abs(millions[1]! - 8)).toBeLessThan(0.5);
    expect(Math.abs(millions[2]! - 30)).toBeLessThan(1);
    expect(Math.abs(millions[3]! - 104)).toBeLessThan(1);
  });
});
