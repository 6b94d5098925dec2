'use strict';
// A `turngym serve --plugin` module: `fixture/stray-rejection-v1`, a text env whose step `reject-later` starts a
// promise it never awaits, which rejects after the step has answered, and whose step `throw-later` starts a timer
// that throws (env bugs no request can catch). `throw-later-unowned` throws from a timer started in the context the
// module was loaded in, outside any session, as a bug of the server's own code would.
const { AsyncResource } = require('node:async_hooks');
const { BaseEnv } = require('@turngym/core');

const outsideAnySession = new AsyncResource('fixture-outside-any-session');

const ID = 'fixture/stray-rejection-v1';

class StrayRejectionEnv extends BaseEnv {
  constructor() {
    super();
    this.spec = {
      specificationVersion: 'v1',
      id: ID,
      summary: 'Echoes; "reject-later" leaves a promise behind that rejects, "throw-later" a timer that throws.',
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
    if (action === 'throw-later') {
      setTimeout(() => {
        throw new Error('stray exception from the env');
      }, 10);
    }
    if (action === 'throw-later-unowned') {
      outsideAnySession.runInAsyncScope(() =>
        setTimeout(() => {
          throw new Error('exception owned by no session');
        }, 10),
      );
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
