import { BaseEnv, type EnvResetOutcome, type EnvStepOutcome } from '@turngym/core';
import type { EnvSpec } from '@turngym/spec';

/** A text env with no tools of its own (so its MCP tools are reset and act): says back what it is told. */
export class EchoEnv extends BaseEnv<string, string> {
  readonly spec: EnvSpec = {
    specificationVersion: 'v1',
    id: 'turngym/echo-v1',
    summary: 'Say stop to end the episode.',
    observationSpace: { type: 'text' },
    actionSpace: { type: 'text', examples: ['hello', 'stop'] },
    maxTurns: 5,
    rewardRange: [0, 1],
  };

  protected onReset(): EnvResetOutcome<string> {
    return { observation: 'Say something.', instructions: 'Every message is echoed; "stop" ends the episode.' };
  }

  protected onStep(action: string): EnvStepOutcome<string> {
    const stop = action.trim() === 'stop';
    return { observation: `echo: ${action}`, reward: stop ? 1 : 0, terminated: stop };
  }

  fingerprint(action: string): string {
    return action.trim() === 'stop' ? 'STOP' : 'SAY';
  }

  anchor(): string {
    return 'here';
  }

  protected spawn(): EchoEnv {
    return new EchoEnv();
  }
}
