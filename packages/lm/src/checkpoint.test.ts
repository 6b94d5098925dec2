import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useBackend } from './backend';
import { loadCheckpoint, loadTokenizer, readCheckpointTensors, saveCheckpoint } from './checkpoint';
import { configToHf } from './model-config';
import { LanguageModel } from './language-model';
import { CheckpointError, TokenizerMismatchError, UnsupportedArchitectureError } from './lm-errors';
import { referenceForward } from './reference-forward';
import { readSafetensors, writeSafetensors } from './safetensors';
import { testConfig } from './tiny-configs';
import { maxAbsDifference, randomWeights } from './__fixtures__/random-weights';
import { smallBpeTokenizer } from './__fixtures__/small-bpe-tokenizer';
import { HfTokenizer } from './hf-tokenizer';

describe('checkpoints', () => {
  let dir: string;
  beforeAll(async () => {
    await useBackend('cpu');
  });
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'turngym-lm-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('saves and loads a checkpoint: same config, weights, tokenizer and chat template', async () => {
    const config = testConfig();
    const model = LanguageModel.fromTensors(
      config,
      randomWeights(config, 1),
      new (await import('./byte-tokenizer')).ByteTokenizer(),
    );
    await saveCheckpoint(model, dir);
    const loaded = await loadCheckpoint(dir);
    try {
      expect(loaded.config).toEqual(config);
      const tokens = loaded.tokenizer.encode(loaded.tokenizer.applyChatTemplate([{ role: 'user', content: 'hi' }]));
      expect(tokens).toEqual(
        model.tokenizer.encode(model.tokenizer.applyChatTemplate([{ role: 'user', content: 'hi' }])),
      );
      expect(loaded.tokenizer.eosTokenIds).toEqual(expect.arrayContaining([258, 256]));
      const [a, b] = await Promise.all([model.logits({ tokens }), loaded.logits({ tokens })]);
      a.forEach((row, t) => expect(maxAbsDifference(row, b[t]!)).toBe(0));
    } finally {
      model.dispose();
      loaded.dispose();
    }
  });

  it('saves over an older checkpoint: the newer weights load, and no temporary file is left behind', async () => {
    const config = testConfig();
    const { ByteTokenizer } = await import('./byte-tokenizer');
    const older = LanguageModel.fromTensors(config, randomWeights(config, 1), new ByteTokenizer());
    const newer = LanguageModel.fromTensors(config, randomWeights(config, 2), new ByteTokenizer());
    await saveCheckpoint(older, dir);
    const before = readdirSync(dir).sort();
    await saveCheckpoint(newer, dir);
    expect(readdirSync(dir).sort()).toEqual(before);
    const loaded = await loadCheckpoint(dir);
    try {
      const tokens = [72, 105, 33];
      const [a, b] = await Promise.all([newer.logits({ tokens }), loaded.logits({ tokens })]);
      a.forEach((row, t) => expect(maxAbsDifference(row, b[t]!)).toBe(0));
    } finally {
      older.dispose();
      newer.dispose();
      loaded.dispose();
    }
  });

  it('loads a hand-made HF Llama checkpoint (bf16 shards, untied head, BPE tokenizer) and matches the reference', async () => {
    const config = testConfig({
      family: 'llama',
      qkvBias: false,
      tieWordEmbeddings: false,
      bosTokenId: 260,
      eosTokenIds: [261],
    });
    const weights = randomWeights(config, 3);
    const names = [...weights.keys()];
    const half = Math.ceil(names.length / 2);
    const shards = [names.slice(0, half), names.slice(half)];
    const weightMap: Record<string, string> = {};
    shards.forEach((shard, index) => {
      const file = `model-0000${index + 1}-of-00002.safetensors`;
      writeFileSync(
        join(dir, file),
        writeSafetensors(new Map(shard.map((name) => [name, weights.get(name)!])), { dtype: 'BF16' }),
      );
      for (const name of shard) weightMap[name] = file;
    });
    writeFileSync(join(dir, 'model.safetensors.index.json'), JSON.stringify({ metadata: {}, weight_map: weightMap }));
    writeFileSync(join(dir, 'config.json'), JSON.stringify(configToHf(config)));
    const { json, config: tokenizerConfig } = smallBpeTokenizer();
    writeFileSync(join(dir, 'tokenizer.json'), JSON.stringify(json));
    writeFileSync(join(dir, 'tokenizer_config.json'), JSON.stringify(tokenizerConfig));

    const model = await loadCheckpoint(dir);
    try {
      expect(model.tokenizer.bosTokenId).toBe(260);
      const tokens = model.tokenizer.encode(
        model.tokenizer.applyChatTemplate([{ role: 'user', content: 'hello world' }]),
      );
      expect(tokens[0]).toBe(260);
      // The reference reads the same bf16-rounded weights from the files.
      const stored = new Map<string, { shape: readonly number[]; data: Float32Array }>();
      for (const file of ['model-00001-of-00002.safetensors', 'model-00002-of-00002.safetensors']) {
        for (const [name, tensor] of readSafetensors(readFileSync(join(dir, file))).tensors) stored.set(name, tensor);
      }
      const reference = referenceForward(config, stored, { tokens });
      const fast = await model.logits({ tokens });
      fast.forEach((row, t) => expect(maxAbsDifference(row, reference.logits[t]!)).toBeLessThan(1e-3));
    } finally {
      model.dispose();
    }
  });

  it('names a missing or misshapen tensor', async () => {
    const config = testConfig();
    const model = LanguageModel.create(config);
    await saveCheckpoint(model, dir);
    model.dispose();
    const tensors = readSafetensors(readFileSync(join(dir, 'model.safetensors'))).tensors;
    const missing = new Map(tensors);
    missing.delete('model.layers.1.mlp.up_proj.weight');
    writeFileSync(join(dir, 'model.safetensors'), writeSafetensors(missing));
    await expect(loadCheckpoint(dir)).rejects.toThrow(
      /tensor "model.layers.1.mlp.up_proj.weight" is missing \(expected shape \[64, 32\]\)/,
    );
    const misshapen = new Map(tensors);
    misshapen.set('model.layers.0.self_attn.k_proj.weight', { shape: [32, 32], data: new Float32Array(32 * 32) });
    writeFileSync(join(dir, 'model.safetensors'), writeSafetensors(misshapen));
    await expect(loadCheckpoint(dir)).rejects.toThrow(
      /"model.layers.0.self_attn.k_proj.weight" has shape \[32, 32\], expected \[16, 32\]/,
    );
  });

  it('refuses decoder tensors config.json has no place for, instead of dropping them', async () => {
    const config = testConfig();
    const model = LanguageModel.create(config);
    await saveCheckpoint(model, dir);
    model.dispose();
    const tensors = readSafetensors(readFileSync(join(dir, 'model.safetensors'))).tensors;
    const write = (extra: Record<string, number[]>) => {
      const all = new Map(tensors);
      for (const [name, shape] of Object.entries(extra))
        all.set(name, { shape, data: new Float32Array(shape.reduce((a, b) => a * b, 1)) });
      writeFileSync(join(dir, 'model.safetensors'), writeSafetensors(all));
    };
    // A deeper checkpoint under a config with fewer layers, and a Llama attention_bias under a Qwen2 config.
    write({ 'model.layers.2.input_layernorm.weight': [32] });
    await expect(loadCheckpoint(dir)).rejects.toThrow(
      /tensor "model.layers.2.input_layernorm.weight" is not part of the model config.json describes/,
    );
    write({ 'model.layers.0.self_attn.o_proj.bias': [32] });
    await expect(loadCheckpoint(dir)).rejects.toThrow(/"model.layers.0.self_attn.o_proj.bias" is not part/);
    // What transformers also ignores: rotary caches and tensors outside the decoder (a TRL value head).
    write({ 'model.layers.0.self_attn.rotary_emb.inv_freq': [8], 'v_head.summary.weight': [1, 32] });
    const loaded = await loadCheckpoint(dir);
    loaded.dispose();
  });

  it('refuses an unknown architecture, a missing file and a tokenizer too big for the vocabulary', async () => {
    const config = testConfig();
    const model = LanguageModel.create(config);
    await saveCheckpoint(model, dir);
    model.dispose();
    const hf = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ ...hf, architectures: ['MambaForCausalLM'] }));
    await expect(loadCheckpoint(dir)).rejects.toThrow(UnsupportedArchitectureError);
    writeFileSync(join(dir, 'config.json'), JSON.stringify(hf));
    const { json, config: tokenizerConfig } = smallBpeTokenizer(10);
    writeFileSync(join(dir, 'tokenizer.json'), JSON.stringify(json));
    writeFileSync(join(dir, 'tokenizer_config.json'), JSON.stringify(tokenizerConfig));
    await expect(loadCheckpoint(dir)).rejects.toThrow(TokenizerMismatchError);
    await expect(loadCheckpoint(dir)).rejects.toThrow(/ids up to 271 but config.json "vocab_size" is 264/);
    rmSync(join(dir, 'tokenizer.json'));
    await expect(loadCheckpoint(dir)).rejects.toThrow(/tokenizer.json not found/);
    await expect(loadCheckpoint(join(dir, 'nope'))).rejects.toThrow(CheckpointError);
    expect(new HfTokenizer(json, tokenizerConfig).vocabSize).toBe(272);
  });
});

describe('chat_template.jinja', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'turngym-lm-template-'));
    const { json, config } = smallBpeTokenizer();
    writeFileSync(join(dir, 'tokenizer.json'), JSON.stringify(json));
    writeFileSync(join(dir, 'tokenizer_config.json'), JSON.stringify({ ...config, chat_template: 'CONFIG' }));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("takes the template from chat_template.jinja over tokenizer_config.json's, as transformers does", () => {
    // transformers 4.47+ saves the template there and not in the config; such a checkpoint had no template here.
    writeFileSync(
      join(dir, 'chat_template.jinja'),
      '{% for m in messages %}<|begin|>{{ m.role }}: {{ m.content }}<|end|>{% endfor %}',
    );
    const tokenizer = loadTokenizer(dir);
    expect(tokenizer.applyChatTemplate([{ role: 'user', content: 'hello' }])).toBe('<|begin|>user: hello<|end|>');
    expect(tokenizer.toHfFiles().tokenizerConfig.chat_template).toBe(tokenizer.chatTemplate);
  });

  it('names chat_template.jinja when it does not parse', () => {
    writeFileSync(join(dir, 'chat_template.jinja'), '{% for m in messages %}');
    expect(() => loadTokenizer(dir)).toThrow(CheckpointError);
    expect(() => loadTokenizer(dir)).toThrow(/chat_template\.jinja is not a valid Jinja template/);
  });
});

describe('sharded checkpoints (model.safetensors.index.json)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'turngym-lm-shards-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const one = (value: number) => ({ shape: [1], data: Float32Array.from([value]) });
  function shards(files: Record<string, Record<string, number>>, weightMap: unknown): void {
    for (const [file, tensors] of Object.entries(files)) {
      const named = new Map(Object.entries(tensors).map(([name, value]) => [name, one(value)]));
      writeFileSync(join(dir, file), writeSafetensors(named));
    }
    writeFileSync(join(dir, 'model.safetensors.index.json'), JSON.stringify({ metadata: {}, weight_map: weightMap }));
  }

  it('reads every shard the index lists', () => {
    shards({ 'a.safetensors': { x: 1 }, 'b.safetensors': { y: 2 } }, { x: 'a.safetensors', y: 'b.safetensors' });
    const tensors = readCheckpointTensors(dir);
    expect([...tensors.keys()].sort()).toEqual(['x', 'y']);
    expect(tensors.get('y')!.data[0]).toBe(2);
  });

  it('reads a shard the index names in two spellings once', () => {
    shards({ 'a.safetensors': { x: 1, y: 2 } }, { x: 'a.safetensors', y: './a.safetensors' });
    expect([...readCheckpointTensors(dir).keys()].sort()).toEqual(['x', 'y']);
  });

  it('refuses a tensor held by two shards instead of keeping whichever was read last', () => {
    shards({ 'a.safetensors': { x: 1 }, 'b.safetensors': { x: 2, y: 3 } }, { x: 'a.safetensors', y: 'b.safetensors' });
    expect(() => readCheckpointTensors(dir)).toThrow(/tensor "x" is in both .*a.safetensors and .*b.safetensors/);
  });

  it('refuses a tensor the index puts in a shard that does not hold it', () => {
    shards({ 'a.safetensors': { x: 1 }, 'b.safetensors': { y: 2 } }, { x: 'a.safetensors', y: 'a.safetensors' });
    expect(() => readCheckpointTensors(dir)).toThrow(
      /index.json lists tensor "y" in a.safetensors, which does not hold it/,
    );
  });

  it('refuses NaN and infinite weights, naming the shard, tensor and index', () => {
    // Loaded as they were, every logit they touch is NaN: scores came back null, generation NaN logprobs.
    shards(
      { 'a.safetensors': { x: 1 }, 'b.safetensors': { y: Number.NaN } },
      { x: 'a.safetensors', y: 'b.safetensors' },
    );
    expect(() => readCheckpointTensors(dir)).toThrow(/b\.safetensors: tensor "y" \(shape \[1\]\) holds NaN at index 0/);
    rmSync(join(dir, 'model.safetensors.index.json'));
    // 1e6 overflows float16: the file holds +Infinity.
    const overflow = new Map([['w', { shape: [2], data: Float32Array.from([1, 1e6]) }]]);
    writeFileSync(join(dir, 'model.safetensors'), writeSafetensors(overflow, { dtype: 'F16' }));
    expect(() => readCheckpointTensors(dir)).toThrow(/model\.safetensors: tensor "w" .*holds Infinity at index 1/);
  });

  it('refuses a malformed weight_map and shard paths outside the checkpoint', () => {
    shards({ 'a.safetensors': { x: 1 } }, ['a.safetensors']);
    expect(() => readCheckpointTensors(dir)).toThrow(/"weight_map" must be an object/);
    shards({ 'a.safetensors': { x: 1 } }, { x: 7 });
    expect(() => readCheckpointTensors(dir)).toThrow(/weight_map "x" must name a shard file/);
    shards({ 'a.safetensors': { x: 1 } }, { x: '../a.safetensors' });
    expect(() => readCheckpointTensors(dir)).toThrow(/weight_map "x" must name a shard file/);
    shards({ 'a.safetensors': { x: 1 } }, { x: 'missing.safetensors' });
    expect(() => readCheckpointTensors(dir)).toThrow(
      /missing.safetensors: shard listed in model.safetensors.index.json is missing/,
    );
  });
});

describe('special_tokens_map.json', () => {
  let dir: string;
  const write = (name: string, value: unknown): void => writeFileSync(join(dir, name), JSON.stringify(value));
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'turngym-lm-special-'));
    const { json, config } = smallBpeTokenizer();
    write('tokenizer.json', json);
    // A config saved before transformers 4.34: no added_tokens_decoder, and eos_token only in special_tokens_map.json.
    write('tokenizer_config.json', { ...config, eos_token: undefined });
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const endId = (): number => loadTokenizer(dir).encode('<|end|>')[0] as number;

  it('takes an eos_token listed only there, as stop id and template variable, as transformers does', () => {
    write('special_tokens_map.json', { eos_token: { content: '<|end|>', lstrip: false }, pad_token: '<|end|>' });
    const tokenizer = loadTokenizer(dir);
    expect(tokenizer.eosTokenIds).toEqual([endId()]);
    expect(tokenizer.padTokenId).toBe(endId());
    expect(tokenizer.applyChatTemplate([{ role: 'user', content: 'hi' }])).toBe('<|begin|><user>hi<|end|><assistant>');
  });

  it("lets the map's entries win over the config's, and joins additional_special_tokens", () => {
    write('tokenizer_config.json', { ...smallBpeTokenizer().config, additional_special_tokens: ['<|begin|>'] });
    write('special_tokens_map.json', { bos_token: '<|end|>', additional_special_tokens: ['<|begin|>', '<|end|>'] });
    const tokenizer = loadTokenizer(dir);
    expect(tokenizer.bosTokenId).toBe(endId());
    expect(tokenizer.toHfFiles().tokenizerConfig.additional_special_tokens).toEqual(['<|begin|>', '<|end|>']);
  });

  it('is ignored for a config with added_tokens_decoder, which transformers (4.34 on) reads alone', () => {
    write('tokenizer_config.json', { ...smallBpeTokenizer().config, added_tokens_decoder: {} });
    write('special_tokens_map.json', { eos_token: '<|begin|>' });
    expect(loadTokenizer(dir).eosTokenIds).toEqual([endId()]);
  });

  it('refuses a map that is not an object, naming the file', () => {
    write('special_tokens_map.json', ['<|end|>']);
    expect(() => loadTokenizer(dir)).toThrow(CheckpointError);
    expect(() => loadTokenizer(dir)).toThrow(/special_tokens_map\.json: must be an object/);
  });
});
