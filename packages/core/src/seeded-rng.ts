import type { RandomGenerator } from 'pure-rand/types/RandomGenerator';
import { xoroshiro128plusFromState } from 'pure-rand/generator/xoroshiro128plus';
import { randomInt } from 'node:crypto';

/**
 * The only source of randomness in TurnGym (`Math.random()` is banned outside tests): xoroshiro128+ from
 * pure-rand, with a state that can be copied, so a forked env continues the same random stream.
 */
export class SeededRng {
  private generator: RandomGenerator;

  constructor(seed: number) {
    if (!Number.isFinite(seed)) throw new RangeError(`seed must be a finite number, got ${seed}`);
    // xoroshiro128+ seeded directly with a small integer starts from a nearly all-zero state, so seeds 0, 1,
    // 2 … would share their first draws. splitmix32 spreads the seed over all 128 bits of state first.
    const whole = Math.trunc(seed);
    let mixer = whole | 0;
    const next = (): number => {
      mixer = (mixer + 0x9e3779b9) | 0;
      let z = mixer;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) | 0;
    };
    const state: number[] = [next(), next(), next(), next()];
    if (whole !== (whole | 0)) {
      // A seed outside int32 (2^32 + k, a uint32 above 2^31 − 1, a 53-bit seed from another language): its low
      // 32 bits alone would give the stream of another seed (2^32 and 0 were one episode). Its high bits are
      // mixed in too; int32 seeds, the ones TurnGym draws, keep their streams.
      mixer = Math.floor(whole / 0x100000000) ^ 0x5bd1e995;
      for (let i = 0; i < state.length; i++) state[i] = ((state[i] as number) ^ next()) | 0;
    }
    if (!state.some((word) => word !== 0)) state[0] = 1; // the one state xoroshiro cannot leave
    this.generator = xoroshiro128plusFromState(state);
  }

  static fromState(state: readonly number[]): SeededRng {
    const rng = Object.create(SeededRng.prototype) as SeededRng;
    rng.generator = xoroshiro128plusFromState(state);
    return rng;
  }

  /** A copy that continues exactly where this one is. */
  clone(): SeededRng {
    return SeededRng.fromState(this.generator.getState());
  }

  state(): readonly number[] {
    return this.generator.getState();
  }

  /** 32 random bits as an unsigned integer. */
  uint32(): number {
    return this.generator.next() >>> 0;
  }

  /** A float in [0, 1) with 53 random bits. */
  next(): number {
    const high = this.uint32() >>> 5; // 27 bits
    const low = this.uint32() >>> 6; // 26 bits
    return (high * 67108864 + low) / 9007199254740992;
  }

  /** An integer in [min, max], both inclusive. */
  int(min: number, max: number): number {
    if (!Number.isInteger(min) || !Number.isInteger(max) || max < min) {
      throw new RangeError(`int(min, max) needs integers with min <= max, got ${min}, ${max}`);
    }
    return min + Math.floor(this.next() * (max - min + 1));
  }

  bool(probability = 0.5): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('pick() from an empty list');
    return items[Math.floor(this.next() * items.length)] as T;
  }

  /** Index drawn with probability proportional to `weights`. */
  weighted(weights: readonly number[]): number {
    const total = weights.reduce((sum, w) => sum + Math.max(0, w), 0);
    if (!(total > 0)) throw new RangeError('weighted() needs at least one positive weight');
    let threshold = this.next() * total;
    for (let i = 0; i < weights.length; i++) {
      threshold -= Math.max(0, weights[i] as number);
      if (threshold < 0) return i;
    }
    return weights.length - 1;
  }

  /** A new shuffled array (Fisher–Yates); the input is untouched. */
  shuffle<T>(items: readonly T[]): T[] {
    const out = items.slice();
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [out[i], out[j]] = [out[j] as T, out[i] as T];
    }
    return out;
  }

  /** A standard normal sample (Box–Muller). */
  normal(): number {
    const u = 1 - this.next();
    const v = this.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  /**
   * A Gamma(shape, 1) sample (Marsaglia & Tsang 2000, "A simple method for generating gamma variables"), the
   * building block of Dirichlet noise (AlphaZero's root exploration). Shapes below 1 use the boost
   * Gamma(a) = Gamma(a + 1) · U^(1/a), since the squeeze needs a ≥ 1.
   */
  gamma(shape: number): number {
    if (!(shape > 0) || !Number.isFinite(shape)) throw new RangeError(`gamma(shape) needs a shape > 0, got ${shape}`);
    if (shape < 1) return this.gamma(shape + 1) * Math.pow(1 - this.next(), 1 / shape);
    const d = shape - 1 / 3;
    const c = 1 / Math.sqrt(9 * d);
    for (;;) {
      const x = this.normal();
      const v = (1 + c * x) ** 3;
      if (v <= 0) continue;
      const u = 1 - this.next(); // in (0, 1]: log(u) stays finite
      if (u < 1 - 0.0331 * x ** 4) return d * v;
      if (Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v;
    }
  }

  /** A seed for an independent sub-stream, drawn from this stream. */
  deriveSeed(): number {
    return this.uint32() | 0;
  }
}

/**
 * A 32-bit seed from OS entropy: the one unseeded draw TurnGym makes, where no seed was ever given (an env's
 * first seedless reset, as Gymnasium does). Whatever it seeds must report the seed so the run can be replayed.
 */
export function entropySeed(): number {
  return randomInt(-0x80000000, 0x80000000);
}

/** Mixes several numbers into one 32-bit seed (FNV-1a over their decimal text), for seed = f(task, episode). */
export function mixSeed(...parts: readonly (number | string)[]): number {
  let hash = 0x811c9dc5;
  for (const part of parts) {
    const text = `${String(part)}\u0000`;
    for (let i = 0; i < text.length; i++) {
      hash ^= text.charCodeAt(i);
      hash = Math.imul(hash, 0x01000193);
    }
  }
  return hash | 0;
}
