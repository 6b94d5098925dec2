import { MemoryRecordSink, Registry } from '@turngym/core';
import type { Env } from '@turngym/spec';
import { TrivialEnv } from './trivial-env';

export interface OverheadRow {
  readonly stack: string;
  readonly stepsPerSecond: number;
  /** Steps/s relative to the bare env measured in the same run. */
  readonly ratioToBare: number;
}

async function stepsPerSecond(env: Env<string, string>, durationMs: number): Promise<number> {
  let steps = 0;
  let seed = 0;
  const deadline = performance.now() + durationMs;
  const start = performance.now();
  while (performance.now() < deadline) {
    await env.reset({ seed: seed++ });
    for (;;) {
      steps += 1;
      const result = await env.step('a');
      if (result.terminated || result.truncated) break;
    }
  }
  return steps / ((performance.now() - start) / 1000);
}

/**
 * Per-step cost of the standard wrapper stack on an env that does nothing: bare vs `make()`'s stack
 * (OrderEnforcing → TimeLimit), + Budget, + an in-memory EpisodeRecorder. Interleaved rounds, best of each,
 * so a noisy neighbour on the machine hits every variant alike.
 */
export async function wrapperOverhead(options: { durationMs: number; rounds?: number }): Promise<OverheadRow[]> {
  const registry = new Registry();
  registry.register({ id: 'bench/trivial-v1', entryPoint: () => new TrivialEnv() });
  const variants: Record<string, () => Promise<Env<string, string>>> = {
    bare: () => registry.make('bench/trivial-v1', { bare: true }),
    'make() (order + time limit)': () => registry.make('bench/trivial-v1'),
    '+ budget': () => registry.make('bench/trivial-v1', { budget: { maxToolCalls: 1_000_000 } }),
    '+ budget + recorder (memory)': () =>
      registry.make('bench/trivial-v1', {
        budget: { maxToolCalls: 1_000_000 },
        record: { sink: new MemoryRecordSink() },
      }),
  };
  const rounds = options.rounds ?? 3;
  const best: Record<string, number> = {};
  for (let round = 0; round < rounds; round++) {
    for (const [name, make] of Object.entries(variants)) {
      const env = await make();
      const rate = await stepsPerSecond(env, options.durationMs / rounds);
      await env.close();
      best[name] = Math.max(best[name] ?? 0, rate);
    }
  }
  const bare = best.bare as number;
  return Object.entries(best).map(([stack, rate]) => ({ stack, stepsPerSecond: rate, ratioToBare: rate / bare }));
}
