import { BaseEnv, type EnvResetOutcome, type EnvStepOutcome, type Registry } from '@turngym/core';
import type { EnvSpec } from '@turngym/spec';
import { setTimeout as sleep } from 'node:timers/promises';

export const SLEEP_ENV_ID = 'bench/sleep-v1';

/** How long each step takes, and how: waiting (an LLM role, a browser) or computing (a sandbox). */
export interface SleepEnvOptions {
  /** The step waits this long without using the CPU (OpenEnv's scaling benchmark env: `wait` seconds). */
  readonly waitMs: number;
  /** Then the step keeps the CPU busy this long (a CPU-bound env). */
  readonly cpuMs: number;
}

const SPEC: EnvSpec = {
  specificationVersion: 'v1',
  id: SLEEP_ENV_ID,
  summary: 'A step that takes a fixed time, to measure the server around it.',
  observationSpace: { type: 'text' },
  actionSpace: { type: 'text', examples: ['go'] },
  maxTurns: 1_000_000,
  rewardRange: [0, 1],
};

/**
 * OpenEnv's scaling-benchmark env (`tutorial/03-scaling.md`): each step sleeps a fixed time, so what a batch
 * measures is the server's overhead, not env logic. `cpuMs` turns it into a CPU-bound env instead.
 */
export class SleepEnv extends BaseEnv<string, string> {
  readonly spec = SPEC;
  constructor(private readonly options: SleepEnvOptions) {
    super();
  }
  protected spawn(): SleepEnv {
    return new SleepEnv(this.options);
  }
  protected onReset(): EnvResetOutcome<string> {
    return { observation: 'ready', instructions: 'Send anything.' };
  }
  protected async onStep(): Promise<EnvStepOutcome<string>> {
    if (this.options.waitMs > 0) await sleep(this.options.waitMs);
    const until = performance.now() + this.options.cpuMs;
    while (performance.now() < until) {
      // Busy on purpose: a CPU-bound step.
    }
    return { observation: 'done', reward: 0, terminated: false };
  }
  fingerprint(): string {
    return 'GO';
  }
  anchor(): string {
    return 'here';
  }
}

export function registerSleepEnv(registry: Registry, options: SleepEnvOptions): void {
  registry.register({ id: SLEEP_ENV_ID, entryPoint: () => new SleepEnv(options) });
}
