'use strict';
// A `turngym serve --plugin` module: `fixture/stray-rejection-v1`, a text env whose step `reject-later` starts a
// promise it never awaits, which rejects after the step has answered (an env bug no request can catch).
const { BaseEnv } = require('@turngym/core');

const ID = 'fixture/stray-rejection-v1';

class StrayRejectionEnv extends BaseEnv {
  constructor() {
    super();
    this.spec = {
      specificationVersion: 'v1',
      id: ID,
      summary: 'Echoes; "reject-later" leaves a promise behind that rejects.',
      observationSpace: { type: 'text' },
      actionSpace: { type: 'text' },
      maxTurns: 10,
      rewardRange: [0, 1],
    };
  }
  spawn() {
    return new StrayRejectionEnv();
  }
  onReset() {
    return { observation: 'Say something.' };
  }
  onStep(action) {
    if (action === 'reject-later') {
      void new Promise((resolve) => setTimeout(resolve, 10)).then(() => {
        throw new Error('stray rejection from the env');
      });
    }
    return { observation: `echo: ${action}`, reward: 0, terminated: false };
  }
  fingerprint() {
    return 'SAY';
  }
  anchor() {
    return 'start';
  }
}

exports.register = (registry) => registry.register({ id: ID, entryPoint: () => new StrayRejectionEnv() });
