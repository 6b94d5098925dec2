import * as tf from '@tensorflow/tfjs';
import { SeededRng } from '@turngym/core';
import { makeVariable } from './decoder-parameters';
import { PROJECTIONS, projectionPath, projectionShape, type ProjectionName } from './hf-weights';
import { CheckpointError } from './lm-errors';
import type { ModelConfig } from './model-config';
import type { NamedTensors } from './named-tensors';

export interface LoraOptions {
  /** Rank r of the update B·A. */
  readonly rank: number;
  /** The update is scaled by alpha / rank (PEFT's default). */
  readonly alpha: number;
  /** Which projections get an adapter (HF module names). Default: all attention and MLP projections. */
  readonly targetModules: readonly ProjectionName[];
  /** Seed for A's initial values (B starts at zero, so a new adapter changes nothing). */
  readonly seed: number;
}

export const DEFAULT_LORA_OPTIONS: LoraOptions = { rank: 8, alpha: 16, targetModules: PROJECTIONS, seed: 0 };

export interface LoraPair {
  /** [in, rank] */
  readonly a: tf.Variable;
  /** [rank, out] */
  readonly b: tf.Variable;
}

const PEFT_PREFIX = 'base_model.model.';

async function transposedData(variable: tf.Variable): Promise<Float32Array> {
  const t = tf.transpose(variable);
  const data = (await t.data()) as Float32Array;
  t.dispose();
  return data;
}

/**
 * A LoRA adapter: for each targeted projection W, y = x·W + (alpha/rank)·(x·A)·B. Several named adapters
 * can sit on one base; the forward pass uses the one a call names, or none (the reference policy).
 * Saved in PEFT's format (adapter_config.json + adapter_model.safetensors) so the files load in `peft`.
 */
export class LoraAdapter {
  readonly scale: number;
  readonly pairs = new Map<string, LoraPair>();

  constructor(
    readonly name: string,
    readonly config: ModelConfig,
    readonly options: LoraOptions,
  ) {
    if (!Number.isInteger(options.rank) || options.rank <= 0)
      throw new RangeError(`LoRA rank must be a positive integer, got ${options.rank}.`);
    for (const module of options.targetModules) {
      if (!PROJECTIONS.includes(module))
        throw new RangeError(`LoRA target module "${module}" is not one of ${PROJECTIONS.join(', ')}.`);
    }
    this.scale = options.alpha / options.rank;
    const rng = new SeededRng(options.seed);
    for (let layer = 0; layer < config.numLayers; layer++) {
      for (const module of options.targetModules) {
        const [input, output] = projectionShape(config, module);
        // PEFT's kaiming_uniform(a=√5) on A is uniform(±1/√in).
        const bound = 1 / Math.sqrt(input);
        const a = new Float32Array(input * options.rank).map(() => (rng.next() * 2 - 1) * bound);
        this.pairs.set(`${layer}.${module}`, {
          a: makeVariable(a, [input, options.rank]),
          b: makeVariable(new Float32Array(options.rank * output), [options.rank, output]),
        });
      }
    }
  }

  pair(layer: number, module: ProjectionName): LoraPair | undefined {
    return this.pairs.get(`${layer}.${module}`);
  }

  variables(): tf.Variable[] {
    return [...this.pairs.values()].flatMap((pair) => [pair.a, pair.b]);
  }

  /** PEFT's `adapter_config.json`. */
  peftConfig(): Record<string, unknown> {
    return {
      peft_type: 'LORA',
      task_type: 'CAUSAL_LM',
      r: this.options.rank,
      lora_alpha: this.options.alpha,
      lora_dropout: 0,
      bias: 'none',
      target_modules: [...this.options.targetModules],
      fan_in_fan_out: false,
      inference_mode: false,
    };
  }

  /** PEFT's tensor names and layout: lora_A [rank, in], lora_B [out, rank]. */
  async toTensors(): Promise<NamedTensors> {
    const out: NamedTensors = new Map();
    for (const [key, pair] of this.pairs) {
      const [layer, module] = key.split('.') as [string, ProjectionName];
      const path = `${PEFT_PREFIX}${projectionPath(Number(layer), module)}`;
      const a = await transposedData(pair.a);
      const b = await transposedData(pair.b);
      out.set(`${path}.lora_A.weight`, { shape: [pair.a.shape[1] as number, pair.a.shape[0] as number], data: a });
      out.set(`${path}.lora_B.weight`, { shape: [pair.b.shape[1] as number, pair.b.shape[0] as number], data: b });
    }
    return out;
  }

  /** Loads PEFT tensors into this adapter; a missing or misshapen tensor is an error naming it. */
  setTensors(tensors: NamedTensors, source = 'adapter_model.safetensors'): void {
    for (const [key, pair] of this.pairs) {
      const [layer, module] = key.split('.') as [string, ProjectionName];
      const path = projectionPath(Number(layer), module);
      for (const [part, variable] of [
        ['lora_A', pair.a],
        ['lora_B', pair.b],
      ] as const) {
        // PEFT writes names with or without the adapter name (`lora_A.default.weight`) depending on version.
        const candidates = [
          `${PEFT_PREFIX}${path}.${part}.weight`,
          `${PEFT_PREFIX}${path}.${part}.default.weight`,
          `${path}.${part}.weight`,
        ];
        const name = candidates.find((candidate) => tensors.has(candidate));
        if (!name) throw new CheckpointError(`${source}: tensor "${candidates[0]}" is missing.`);
        const tensor = tensors.get(name)!;
        const expected = [variable.shape[1], variable.shape[0]];
        if (tensor.shape.length !== 2 || tensor.shape[0] !== expected[0] || tensor.shape[1] !== expected[1]) {
          throw new CheckpointError(
            `${source}: tensor "${name}" has shape [${tensor.shape.join(', ')}], expected [${expected.join(', ')}].`,
          );
        }
        tf.tidy(() =>
          variable.assign(tf.transpose(tf.tensor2d(tensor.data, [expected[0] as number, expected[1] as number]))),
        );
      }
    }
  }

  dispose(): void {
    for (const variable of this.variables()) variable.dispose();
  }
}

/** Reads PEFT's adapter_config.json into LoRA options. */
export function loraOptionsFromPeft(json: Record<string, unknown>, source = 'adapter_config.json'): LoraOptions {
  if (json.peft_type !== undefined && json.peft_type !== 'LORA')
    throw new CheckpointError(`${source}: peft_type "${String(json.peft_type)}" is not LORA.`);
  const rank = json.r;
  const alpha = json.lora_alpha;
  if (typeof rank !== 'number' || typeof alpha !== 'number')
    throw new CheckpointError(`${source}: fields "r" and "lora_alpha" must be numbers.`);
  const targets = json.target_modules;
  const list = typeof targets === 'string' ? [targets] : Array.isArray(targets) ? targets.map(String) : [];
  for (const module of list) {
    if (!PROJECTIONS.includes(module as ProjectionName))
      throw new CheckpointError(`${source}: target module "${module}" is not one of ${PROJECTIONS.join(', ')}.`);
  }
  return { rank, alpha, targetModules: list as ProjectionName[], seed: 0 };
}
