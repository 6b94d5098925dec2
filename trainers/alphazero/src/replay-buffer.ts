import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SeededRng } from '@turngym/core';
import { readSafetensors, writeSafetensors } from '@turngym/lm';
import type { CheckpointStore } from '@turngym/rl';
import { AlphaZeroError } from './alphazero-error';

/** One searched state of self-play. */
export interface ReplaySample {
  readonly features: Float32Array;
  /** 0/1 per action. */
  readonly legal: readonly number[];
  /** π_MCTS: the root's visit fractions over every action. */
  readonly policy: readonly number[];
  /** z: the undiscounted return from this state to the end of its episode. */
  readonly return: number;
  /** MCTS-DPO's pair (−1 when the root's children tie): best and worst mean return among visited children. */
  readonly chosen: number;
  readonly rejected: number;
  /** log π of `chosen` and `rejected` under the network that ran the search (DPO's reference). */
  readonly referenceChosenLogp: number;
  readonly referenceRejectedLogp: number;
}

const FILES = { tensors: 'replay.safetensors', json: 'replay.json' } as const;

/**
 * AlphaZero's replay buffer: the last `capacity` searched states, overwritten oldest first, sampled uniformly
 * with the caller's seeded stream. A `CheckpointStore`: its snapshot is written into each checkpoint with the
 * network, so a resume trains on exactly the samples an uninterrupted run would have.
 */
export class ReplayBuffer implements CheckpointStore {
  private samples: ReplaySample[] = [];
  /** Where the next sample goes once the buffer is full. */
  private next = 0;
  /** Samples ever added. */
  private added = 0;

  constructor(readonly capacity: number) {}

  get size(): number {
    return this.samples.length;
  }

  get totalAdded(): number {
    return this.added;
  }

  add(sample: ReplaySample): void {
    if (this.samples.length < this.capacity) this.samples.push(sample);
    else {
      this.samples[this.next] = sample;
      this.next = (this.next + 1) % this.capacity;
    }
    this.added += 1;
  }

  /** `count` samples drawn uniformly with replacement. */
  sample(count: number, rng: SeededRng): ReplaySample[] {
    return Array.from({ length: count }, () => this.samples[rng.int(0, this.samples.length - 1)] as ReplaySample);
  }

  /** Every sample with a preference pair. */
  pairs(): ReplaySample[] {
    return this.samples.filter((sample) => sample.chosen >= 0);
  }

  async save(dir: string): Promise<void> {
    const rows = this.samples.length;
    const width = rows > 0 ? (this.samples[0] as ReplaySample).features.length : 0;
    const features = new Float32Array(rows * width);
    this.samples.forEach((sample, index) => features.set(sample.features, index * width));
    await writeFile(
      join(dir, FILES.tensors),
      writeSafetensors(new Map([['features', { shape: [rows, width], data: features }]])),
    );
    const rest = this.samples.map(({ features: _features, ...others }) => others);
    await writeFile(
      join(dir, FILES.json),
      `${JSON.stringify({ capacity: this.capacity, next: this.next, added: this.added, samples: rest })}\n`,
    );
  }

  async load(dir: string): Promise<void> {
    try {
      const saved = JSON.parse(await readFile(join(dir, FILES.json), 'utf8')) as {
        capacity: number;
        next: number;
        added: number;
        samples: Omit<ReplaySample, 'features'>[];
      };
      const tensor = readSafetensors(await readFile(join(dir, FILES.tensors)), FILES.tensors).tensors.get('features');
      if (!tensor || tensor.shape[0] !== saved.samples.length) throw new Error('features do not match the samples');
      const width = tensor.shape[1] as number;
      this.samples = saved.samples.map((sample, index) => ({
        ...sample,
        features: tensor.data.slice(index * width, (index + 1) * width),
      }));
      this.next = saved.next;
      this.added = saved.added;
    } catch (error) {
      throw new AlphaZeroError(
        'ALPHAZERO_CHECKPOINT',
        `the replay buffer in ${dir} cannot be read: ${(error as Error).message}`,
        {
          cause: error,
        },
      );
    }
  }

  async reset(): Promise<void> {
    this.samples = [];
    this.next = 0;
    this.added = 0;
  }
}
