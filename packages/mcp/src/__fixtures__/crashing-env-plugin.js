'use strict';
// A `turngym serve --plugin` module: `fixture/crashing-v1`, a text env that fails the way a sandbox or a browser
// does when its process dies. `throw-later` starts a timer that throws after the step has answered;
// `crash-mid-step` never answers its step and throws from a timer meanwhile (the step waited on what crashed),
// and from then on its close() never finishes. Anything else is echoed.
const { BaseEnv } = require('@turngym/core');

const ID = 'fixture/crashing-v1';

class CrashingEnv extends BaseEnv {
  constructor() {
    super();
    this.crashed = false;
    this.spec = {
      specificationVersion: 'v1',
      id: ID,
      summary: 'Echoes; "throw-later" and "crash-mid-step" fail the way a crashed sandbox does.',
      observationSpace: { type: 'text' },
      actionSpace: { type: 'text' },
      maxTurns: 10,
      rewardRange: [0, 1],
    };
  }
  spawn() {
    return new CrashingEnv();
  }
  onReset() {
    return { observation: 'Say something.' };
  }
  onStep(action) {
    if (action === 'throw-later') {
      setTimeout(() => {
        throw new Error('the sandbox process died');
      }, 10);
    }
    if (action === 'crash-mid-step') {
      this.crashed = true;
      setTimeout(() => {
        throw new Error('the browser crashed mid-step');
      }, 10);
      return new Promise(() => undefined);
    }
    return { observation: `echo: ${action}`, reward: 0, terminated: false };
  }
  onClose() {
    if (this.crashed) return new Promise(() => undefined);
    return undefined;
  }
  fingerprint() {
    return 'SAY';
  }
  anchor() {
    return 'start';
  }
}

exports.register = (registry) => registry.register({ id: ID, entryPoint: () => new CrashingEnv() });
