import { trainCommand } from './train-command';

describe('trainCommand', () => {
  it('passes the backend as its own flag and every other argument as --set, in order, JSON unless a string', () => {
    const argv = trainCommand({
      cli: 'bin.js',
      algorithm: 'grpo',
      envId: 'turngym/wiki-qa-compact-v1',
      envOptions: { questionTypes: ['bridge'], minHops: 2 },
      checkpoint: 'models/warm',
      runDir: 'runs/x',
      seed: 3,
      args: { instructions: false, backend: 'cpu', learningRate: 0.001, policies: 'shared' },
    });
    expect(argv).toEqual([
      'bin.js',
      'train',
      'grpo',
      '--env',
      'turngym/wiki-qa-compact-v1',
      '--options',
      '{"questionTypes":["bridge"],"minHops":2}',
      '--checkpoint',
      'models/warm',
      '--run-dir',
      'runs/x',
      '--seed',
      '3',
      '--backend',
      'cpu',
      '--set',
      'instructions=false',
      '--set',
      'learningRate=0.001',
      '--set',
      'policies=shared',
      '--quiet',
      '--json',
    ]);
  });

  it('defaults the backend to wasm', () => {
    const argv = trainCommand({
      cli: 'bin.js',
      algorithm: 'ccapo',
      envId: 'e',
      envOptions: {},
      checkpoint: 'c',
      runDir: 'r',
      seed: 1,
      args: {},
    });
    expect(argv.slice(argv.indexOf('--backend'), argv.indexOf('--backend') + 2)).toEqual(['--backend', 'wasm']);
  });
});
