import { SeededRng } from '@turngym/core';
import type { Action, Env } from '@turngym/spec';

/** One task to play a sequence on: reset options and the seed of the episode. */
export interface SequenceTask {
  readonly seed: number;
  readonly options?: Record<string, unknown>;
}

export interface SequenceScore {
  readonly sequence: readonly number[];
  readonly successRate: number;
  readonly meanReturn: number;
}

/**
 * Plays one fixed sequence of discrete actions (open loop: the same actions whatever the buyer says) on each
 * task, each episode until it ends or the sequence runs out (a sequence as long as the round limit always
 * ends). Success: the last step's `info.success`.
 */
export async function scoreSequence(
  env: Env<unknown, Action>,
  sequence: readonly number[],
  tasks: readonly SequenceTask[],
): Promise<SequenceScore> {
  let successes = 0;
  let returns = 0;
  for (const task of tasks) {
    await env.reset({ seed: task.seed, ...(task.options ? { options: task.options } : {}) });
    for (const action of sequence) {
      const result = await env.step(action);
      returns += result.reward;
      if (result.terminated || result.truncated) {
        if (result.info.success === true) successes += 1;
        break;
      }
    }
  }
  return { sequence, successRate: successes / tasks.length, meanReturn: returns / tasks.length };
}

export interface FixedSequenceSearchOptions {
  /** Sequence length: the env's round limit. */
  readonly length: number;
  /** Number of discrete actions. */
  readonly actions: number;
  /** Random starting sequences, besides `starts`. */
  readonly restarts: number;
  /** Full passes over the positions per start. */
  readonly sweeps: number;
  readonly seed: number;
  /** Hand-written starting points (e.g. the expert's most common line). */
  readonly starts?: readonly (readonly number[])[];
  /** Called after each improvement (progress reports). */
  readonly onImprove?: (best: SequenceScore) => void;
}

/**
 * The best open-loop policy we can find: coordinate ascent over all `actions^length` sequences — from each
 * start, try every action at every position, keep any change that raises the mean return on `tasks`, until a
 * sweep changes nothing — with random restarts. Exhaustive search is out of reach (9^8 ≈ 43M sequences), so
 * this is a lower bound on the best fixed sequence; in practice restarts agree on it.
 */
export async function searchFixedSequence(
  env: Env<unknown, Action>,
  tasks: readonly SequenceTask[],
  options: FixedSequenceSearchOptions,
): Promise<SequenceScore> {
  const rng = new SeededRng(options.seed);
  const starts: number[][] = (options.starts ?? []).map((start) => start.slice(0, options.length));
  for (let i = 0; i < options.restarts; i++)
    starts.push(Array.from({ length: options.length }, () => rng.int(0, options.actions - 1)));
  const seen = new Map<string, SequenceScore>();
  const score = async (sequence: number[]): Promise<SequenceScore> => {
    const key = sequence.join(',');
    let known = seen.get(key);
    if (!known) {
      known = await scoreSequence(env, sequence.slice(), tasks);
      seen.set(key, known);
    }
    return known;
  };
  let best: SequenceScore | undefined;
  for (const start of starts) {
    let current = await score(start);
    for (let sweep = 0; sweep < options.sweeps; sweep++) {
      let improved = false;
      for (let position = 0; position < options.length; position++) {
        for (let action = 0; action < options.actions; action++) {
          if (current.sequence[position] === action) continue;
          const candidate = current.sequence.slice();
          candidate[position] = action;
          const scored = await score(candidate);
          if (scored.meanReturn > current.meanReturn + 1e-12) {
            current = scored;
            improved = true;
          }
        }
      }
      if (!improved) break;
    }
    if (!best || current.meanReturn > best.meanReturn) {
      best = current;
      options.onImprove?.(best);
    }
  }
  return best as SequenceScore;
}
