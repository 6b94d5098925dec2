import { checkEnv, formatCheckReport, InvalidOptionsError, Registry, runEpisode } from '@turngym/core';
import { MATH_THOUGHT_CALC_ID, MATH_THOUGHT_ID } from './math-thought-env';
import { register } from './register';

describe('register', () => {
  const registry = new Registry();
  register(registry);

  it.each([MATH_THOUGHT_ID, MATH_THOUGHT_CALC_ID])('%s passes the env checker', async (id) => {
    const report = await checkEnv(id, { registry });
    // Compared as text so that a failure shows the whole report.
    expect(formatCheckReport(report)).toMatch(/all \d+ checks passed$/);
    expect(report.passed).toBe(true);
  });

  it('the calculator is fixed by the id', async () => {
    expect((await registry.make(MATH_THOUGHT_ID)).spec.id).toBe(MATH_THOUGHT_ID);
    expect((await registry.make(MATH_THOUGHT_CALC_ID)).spec.id).toBe(MATH_THOUGHT_CALC_ID);
    await expect(registry.make(MATH_THOUGHT_ID, { options: { calculator: true } })).rejects.toThrow(
      /calculator is fixed by this id/,
    );
  });

  it('make() validates options and names the field', async () => {
    await expect(registry.make(MATH_THOUGHT_ID, { options: { split: 'validation' } })).rejects.toThrow(
      InvalidOptionsError,
    );
    await expect(registry.make(MATH_THOUGHT_ID, { options: { difficulties: [4] } })).rejects.toThrow(
      /options\.difficulties\[0\]/,
    );
  });

  it('the registered scripted agent solves episodes through the standard wrapper stack', async () => {
    for (const id of [MATH_THOUGHT_ID, MATH_THOUGHT_CALC_ID]) {
      const env = await registry.make(id, { options: { split: 'test' } });
      const agent = registry.makeAgent(id, 'scripted', { env, seed: 0 });
      for (let seed = 0; seed < 20; seed++)
        expect(await runEpisode(env, agent, seed)).toMatchObject({ success: true, totalReward: 1 });
      await env.close();
    }
  });
});
