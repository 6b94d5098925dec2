import { loadModel } from './load-model';

describe('loadModel', () => {
  it('takes only the built-in config names as configs, not names every object has', async () => {
    // "toString" and "constructor" are in every object's prototype chain; they were taken for configs and failed
    // deep inside tfjs ("Tensor must have a shape comprised of positive integers") instead of naming the path.
    for (const name of ['toString', 'constructor', '__proto__']) {
      await expect(loadModel(name, { backend: 'cpu' })).rejects.toMatchObject({
        code: 'INVALID_CHECKPOINT',
        message: `Checkpoint directory ${name} does not exist.`,
      });
    }
  });
});
