import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { writeFileAtomically } from '@turngym/core';
import { compileChatTemplate } from './chat-template';
import { HfTokenizer } from './hf-tokenizer';
import { LanguageModel } from './language-model';
import { CheckpointError } from './lm-errors';
import { loraOptionsFromPeft } from './lora-adapter';
import { configFromHf, configToHf } from './model-config';
import type { NamedTensors } from './named-tensors';
import { readSafetensorsFile, writeSafetensors, type SafetensorsDtype } from './safetensors';
import type { Tokenizer } from './tokenizer';

type Json = Record<string, unknown>;

function readJson(path: string, required: boolean): Json | undefined {
  if (!existsSync(path)) {
    if (required)
      throw new CheckpointError(
        `${path} not found: a checkpoint directory needs config.json, model.safetensors and tokenizer.json.`,
      );
    return undefined;
  }
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Json;
  } catch (error) {
    throw new CheckpointError(`${path} is not valid JSON: ${(error as Error).message}`, { cause: error });
  }
}

/**
 * The tensors of one checkpoint file, refused if any value is NaN or infinite. transformers loads such a file without
 * a word, and every logit that touches the value is NaN: scores came back null and generation sampled one token over
 * and over with NaN logprobs. The error names the file, tensor and first bad index.
 */
function readFiniteTensors(path: string): NamedTensors {
  const { tensors } = readSafetensorsFile(path);
  for (const [name, { shape, data }] of tensors) {
    for (let i = 0; i < data.length; i++) {
      if (!Number.isFinite(data[i])) {
        throw new CheckpointError(
          `${path}: tensor "${name}" (shape [${shape.join(', ')}]) holds ${data[i]} at index ${i}; ` +
            `weights must be finite numbers (a diverged run, or an overflow when it was saved in a smaller dtype?).`,
        );
      }
    }
  }
  return tensors;
}

/** The index's weight_map as tensor → shard file; a shard must be a file inside the checkpoint directory. */
function readWeightMap(index: Json, indexPath: string): Map<string, string> {
  const raw = index.weight_map;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new CheckpointError(`${indexPath}: "weight_map" must be an object of tensor name → shard file.`);
  const weightMap = new Map<string, string>();
  for (const [name, file] of Object.entries(raw)) {
    if (typeof file !== 'string' || file === '' || isAbsolute(file) || file.split(/[\\/]/).includes('..')) {
      throw new CheckpointError(
        `${indexPath}: weight_map "${name}" must name a shard file in the checkpoint directory, got ${JSON.stringify(file)}.`,
      );
    }
    weightMap.set(name, file);
  }
  return weightMap;
}

/**
 * Reads model.safetensors, or the shards listed in model.safetensors.index.json. Each tensor must be in exactly
 * one shard, the one the index names: otherwise which copy loads would depend on the order shards are read.
 */
export function readCheckpointTensors(dir: string): NamedTensors {
  const single = join(dir, 'model.safetensors');
  if (existsSync(single)) return readFiniteTensors(single);
  const indexPath = join(dir, 'model.safetensors.index.json');
  const index = readJson(indexPath, false);
  if (!index) throw new CheckpointError(`${dir}: neither model.safetensors nor model.safetensors.index.json exists.`);
  const weightMap = readWeightMap(index, indexPath);
  const tensors: NamedTensors = new Map();
  const shardOf = new Map<string, string>();
  // By joined path: "a.safetensors" and "./a.safetensors" are one shard, read once (twice, its tensors were "in both").
  for (const path of new Set([...weightMap.values()].map((file) => join(dir, file)))) {
    if (!existsSync(path))
      throw new CheckpointError(`${path}: shard listed in model.safetensors.index.json is missing.`);
    for (const [name, tensor] of readFiniteTensors(path)) {
      const other = shardOf.get(name);
      if (other !== undefined)
        throw new CheckpointError(`${dir}: tensor "${name}" is in both ${other} and ${path}; keep it in one shard.`);
      shardOf.set(name, path);
      tensors.set(name, tensor);
    }
  }
  for (const [name, file] of weightMap) {
    if (shardOf.get(name) !== join(dir, file)) {
      throw new CheckpointError(
        `${indexPath} lists tensor "${name}" in ${file}, which does not hold it` +
          `${shardOf.has(name) ? ` (it is in ${shardOf.get(name)})` : ''}.`,
      );
    }
  }
  return tensors;
}

/**
 * generation_config.json's `eos_token_id`: an id or a list of ids. Anything else is refused rather than filtered:
 * transformers warns that such a value (negative, fractional) means generation "will not stop until the maximum
 * length is reached", and fails on one that is not a number at all.
 */
function generationEosIds(generation: Json, path: string): number[] {
  const value = generation.eos_token_id;
  if (value === undefined || value === null) return [];
  const ids: unknown[] = Array.isArray(value) ? value : [value];
  if (!ids.every((id) => Number.isInteger(id) && (id as number) >= 0)) {
    throw new CheckpointError(
      `${path}: "eos_token_id" must be a token id or a list of token ids (integers >= 0), got ${JSON.stringify(value)}.`,
    );
  }
  return ids as number[];
}

/**
 * tokenizer_config.json with special_tokens_map.json's entries over it, as transformers' `_from_pretrained` merges
 * them: only when the config has no "added_tokens_decoder" (one saved before transformers 4.34; a newer config holds
 * every special token and transformers ignores the map), and then each entry of the map wins over the config's, the
 * additional_special_tokens lists joined. Unread, an `eos_token` listed only in the map rendered as '' in a template
 * and was no stop id: generation ran on to max_tokens.
 */
function withSpecialTokensMap(config: Json, dir: string): Json {
  const path = join(dir, 'special_tokens_map.json');
  if (Object.hasOwn(config, 'added_tokens_decoder')) return config;
  const map = readJson(path, false);
  if (map === undefined) return config;
  if (typeof map !== 'object' || map === null || Array.isArray(map))
    throw new CheckpointError(`${path}: must be an object of special token name → token.`);
  const merged: Json = { ...config };
  for (const [key, value] of Object.entries(map)) {
    if (key === 'additional_special_tokens' && Array.isArray(value)) {
      const joined: unknown[] = Array.isArray(config.additional_special_tokens)
        ? [...config.additional_special_tokens]
        : [];
      for (const token of value) {
        if (!joined.some((known) => JSON.stringify(known) === JSON.stringify(token))) joined.push(token);
      }
      merged[key] = joined;
    } else {
      merged[key] = value;
    }
  }
  return merged;
}

/** An eos id the tokenizer has no token for can never be generated: generation would only stop at max_tokens. */
function checkEosIdsInVocabulary(ids: readonly number[], tokenizer: Tokenizer, where: string): void {
  for (const id of ids) {
    if (id >= tokenizer.vocabSize) {
      throw new CheckpointError(
        `${where} lists ${id}, outside tokenizer.json's vocabulary of ${tokenizer.vocabSize} ids: generation could never stop at it.`,
      );
    }
  }
}

/**
 * The tokenizer of a checkpoint directory: tokenizer.json + tokenizer_config.json (+ special_tokens_map.json and
 * chat_template.jinja, read as transformers reads them; + generation_config.json's eos ids). `eosTokenIds`:
 * config.json's `eos_token_id`, also stop ids. An eos id outside the vocabulary, or an `eos_token` / `bos_token` the
 * vocabulary lacks, is a CheckpointError naming the file and field.
 */
export function loadTokenizer(dir: string, eosTokenIds: readonly number[] = []): Tokenizer {
  const tokenizerJson = readJson(join(dir, 'tokenizer.json'), false);
  if (!tokenizerJson)
    throw new CheckpointError(`${join(dir, 'tokenizer.json')} not found: the checkpoint needs its tokenizer.`);
  let tokenizerConfig = withSpecialTokensMap(readJson(join(dir, 'tokenizer_config.json'), false) ?? {}, dir);
  // transformers (4.47 on) saves the template in chat_template.jinja, not in tokenizer_config.json, and on loading
  // lets that file override the config's: such a checkpoint had no chat template here.
  const templatePath = join(dir, 'chat_template.jinja');
  if (existsSync(templatePath)) {
    const template = readFileSync(templatePath, 'utf8');
    try {
      compileChatTemplate(template);
    } catch (error) {
      throw new CheckpointError(`${templatePath} is not a valid Jinja template: ${(error as Error).message}`, {
        cause: error,
      });
    }
    tokenizerConfig = { ...tokenizerConfig, chat_template: template };
  }
  const generationPath = join(dir, 'generation_config.json');
  const generationEos = generationEosIds(readJson(generationPath, false) ?? {}, generationPath);
  const tokenizer = new HfTokenizer(tokenizerJson, tokenizerConfig, [...eosTokenIds, ...generationEos]);
  checkEosIdsInVocabulary(eosTokenIds, tokenizer, `${join(dir, 'config.json')}: "eos_token_id"`);
  checkEosIdsInVocabulary(generationEos, tokenizer, `${generationPath}: "eos_token_id"`);
  return tokenizer;
}

export interface LoadCheckpointOptions {
  /** Whether base weights are trainable variables (default true; false saves gradient bookkeeping). */
  readonly trainable?: boolean;
  /** Use this tokenizer instead of the directory's tokenizer.json. */
  readonly tokenizer?: Tokenizer;
  /** Also load every adapter under `adapters/` and `value_head.safetensors` (default true). */
  readonly extras?: boolean;
}

/**
 * Loads an HF checkpoint directory (config.json, model.safetensors or shards, tokenizer.json,
 * tokenizer_config.json with the chat template) into a LanguageModel on the current backend. Adapters
 * saved with `saveAdapter` under `adapters/<name>/` and a value head are loaded too.
 */
export async function loadCheckpoint(dir: string, options: LoadCheckpointOptions = {}): Promise<LanguageModel> {
  if (!existsSync(dir)) throw new CheckpointError(`Checkpoint directory ${dir} does not exist.`);
  const configPath = join(dir, 'config.json');
  const config = configFromHf(readJson(configPath, true), configPath);
  const tokenizer = options.tokenizer ?? loadTokenizer(dir, config.eosTokenIds);
  const tensors = readCheckpointTensors(dir);
  const model = LanguageModel.fromTensors(config, tensors, tokenizer, {
    trainable: options.trainable ?? true,
    source: existsSync(join(dir, 'model.safetensors'))
      ? join(dir, 'model.safetensors')
      : join(dir, 'model.safetensors.index.json'),
  });
  if (options.extras ?? true) {
    try {
      const adaptersDir = join(dir, 'adapters');
      if (existsSync(adaptersDir)) {
        for (const name of readdirSync(adaptersDir)) {
          if (existsSync(join(adaptersDir, name, 'adapter_config.json')))
            loadAdapter(model, join(adaptersDir, name), name);
        }
      }
      if (existsSync(join(dir, 'value_head.safetensors'))) loadValueHead(model, dir);
    } catch (error) {
      model.dispose();
      throw error;
    }
  }
  return model;
}

export interface SaveCheckpointOptions {
  /** Stored dtype of the weights (default F32). */
  readonly dtype?: Exclude<SafetensorsDtype, 'F64'>;
  /** Also save every adapter under `adapters/<name>/` and the value head (default true). */
  readonly extras?: boolean;
}

/**
 * Writes an HF checkpoint directory that `loadCheckpoint` and `transformers` both read. Each file is replaced
 * whole (written aside, then renamed), so a process killed while saving over an older checkpoint leaves every
 * file either old or new, never torn.
 */
export async function saveCheckpoint(
  model: LanguageModel,
  dir: string,
  options: SaveCheckpointOptions = {},
): Promise<void> {
  mkdirSync(dir, { recursive: true });
  await writeFileAtomically(join(dir, 'config.json'), `${JSON.stringify(configToHf(model.config), null, 2)}\n`);
  await writeFileAtomically(
    join(dir, 'model.safetensors'),
    writeSafetensors(await model.toTensors(), { dtype: options.dtype ?? 'F32', metadata: { format: 'pt' } }),
  );
  const { tokenizerJson, tokenizerConfig } = model.tokenizer.toHfFiles();
  await writeFileAtomically(join(dir, 'tokenizer.json'), JSON.stringify(tokenizerJson));
  await writeFileAtomically(join(dir, 'tokenizer_config.json'), `${JSON.stringify(tokenizerConfig, null, 2)}\n`);
  await writeFileAtomically(
    join(dir, 'generation_config.json'),
    `${JSON.stringify({ eos_token_id: [...model.tokenizer.eosTokenIds], pad_token_id: model.tokenizer.padTokenId }, null, 2)}\n`,
  );
  if (options.extras ?? true) {
    for (const name of model.adapterNames()) await saveAdapter(model, name, join(dir, 'adapters', name));
    if (model.valueHead) await saveValueHead(model, dir);
  }
}

/** Saves one adapter apart from the base, in PEFT's format. */
export async function saveAdapter(model: LanguageModel, name: string, dir: string): Promise<void> {
  const adapter = model.adapter(name);
  mkdirSync(dir, { recursive: true });
  await writeFileAtomically(join(dir, 'adapter_config.json'), `${JSON.stringify(adapter.peftConfig(), null, 2)}\n`);
  await writeFileAtomically(join(dir, 'adapter_model.safetensors'), writeSafetensors(await adapter.toTensors()));
}

/** Loads a PEFT adapter directory into the model under `name` (default: the directory's name). */
export function loadAdapter(model: LanguageModel, dir: string, name?: string): void {
  const configPath = join(dir, 'adapter_config.json');
  const options = loraOptionsFromPeft(readJson(configPath, true) as Json, configPath);
  const weightsPath = join(dir, 'adapter_model.safetensors');
  if (!existsSync(weightsPath)) throw new CheckpointError(`${weightsPath} not found.`);
  const tensors = readFiniteTensors(weightsPath);
  const adapterName = name ?? dir.split(/[\\/]/).filter(Boolean).pop() ?? 'adapter';
  const adapter = model.addAdapter(adapterName, options);
  try {
    adapter.setTensors(tensors, weightsPath);
  } catch (error) {
    model.removeAdapter(adapterName);
    throw error;
  }
}

export async function saveValueHead(model: LanguageModel, dir: string): Promise<void> {
  if (!model.valueHead) throw new RangeError('saveValueHead: the model has no value head.');
  mkdirSync(dir, { recursive: true });
  await writeFileAtomically(join(dir, 'value_head.safetensors'), writeSafetensors(await model.valueHead.toTensors()));
}

export function loadValueHead(model: LanguageModel, dir: string): void {
  const path = join(dir, 'value_head.safetensors');
  if (!existsSync(path)) throw new CheckpointError(`${path} not found.`);
  const head = model.addValueHead();
  head.setTensors(readFiniteTensors(path), path);
}
