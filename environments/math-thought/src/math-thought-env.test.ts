import { EnvClosedError, InvalidOptionsError, ResetNeededError, runEpisode, summarize } from '@turngym/core';
import { MathThoughtEnv } from './math-thought-env';
import { expertFactors, MathThoughtExpert } from './math-thought-expert';
import { MathThoughtRandomAgent } from './math-thought-random-agent';
import type { Problem } from './problem';

/** Resets to the first task (from seed 0 on) that satisfies `accept`. */
async function resetTo(env: MathThoughtEnv, accept: (problem: Problem) => boolean): Promise<Problem> {
  for (let taskId = 0; taskId < 5000; taskId++) {
    if (accept(env.task(taskId))) {
      await env.reset({ seed: 0, options: { taskId } });
      return env.problem as Problem;
    }
  }
  throw new Error('no such task');
}

describe('MathThoughtEnv', () => {
  it.each([false, true])(
    'the scripted expert solves >= 99%% of 300 generated problems (calculator: %s)',
    async (calculator) => {
      const env = new MathThoughtEnv({ calculator, split: 'test' });
      const expert = new MathThoughtExpert(env);
      const outcomes = [];
      for (let seed = 0; seed < 300; seed++) outcomes.push(await runEpisode(env, expert, seed));
      const summary = summarize(outcomes);
      expect(summary.successRate).toBeGreaterThanOrEqual(0.99);
      expect(summary.meanTurns).toBeGreaterThan(2);
    },
  );

  it('the random baseline rarely succeeds', async () => {
    const env = new MathThoughtEnv();
    const outcomes = [];
    for (let seed = 0; seed < 200; seed++) outcomes.push(await runEpisode(env, new MathThoughtRandomAgent(seed), seed));
    expect(summarize(outcomes).successRate).toBeLessThan(0.1);
  });

  it('same seed, same task; taskId picks a task; the split bounds taskId', async () => {
    const env = new MathThoughtEnv();
    const a = await env.reset({ seed: 11 });
    const b = await env.reset({ seed: 11 });
    expect(a.observation).toBe(b.observation);
    expect(a.info).toMatchObject({ taskId: b.info.taskId, instructions: expect.stringContaining('Answer:') });
    const picked = await env.reset({ seed: 99, options: { taskId: a.info.taskId as number } });
    expect(picked.observation).toBe(a.observation);
    const small = new MathThoughtEnv({ source: 'sample', split: 'all' });
    await expect(small.reset({ options: { taskId: 18 } })).rejects.toThrow(/taskId must be < 18/);
    await expect(env.reset({ options: { task: 1 } })).rejects.toThrow(InvalidOptionsError);
  });

  it('kinds and difficulties are sets: their order does not change the tasks', async () => {
    // `['word', 'arithmetic']` posed other tasks for the same seed than `['arithmetic', 'word']`.
    const a = new MathThoughtEnv({ kinds: ['word', 'percent', 'arithmetic'], difficulties: [3, 1] });
    const b = new MathThoughtEnv({ kinds: ['arithmetic', 'word', 'percent'], difficulties: [1, 3] });
    for (let seed = 0; seed < 10; seed++)
      expect((await a.reset({ seed })).observation).toBe((await b.reset({ seed })).observation);
    // The defaults' order is the canonical one: spelling the defaults out in another order poses the default tasks.
    const defaults = new MathThoughtEnv();
    const reordered = new MathThoughtEnv({
      kinds: ['linear', 'percent', 'fraction', 'word', 'arithmetic'],
      difficulties: [3, 2, 1],
    });
    expect(reordered.task(7)).toEqual(defaults.task(7));
  });

  it('rejects bad options with a message naming the field', () => {
    expect(() => new MathThoughtEnv({ kinds: ['geometry' as never] })).toThrow(/options\.kinds\[0\] must be one of/);
    expect(() => new MathThoughtEnv({ maxTurns: 0 })).toThrow(/options\.maxTurns must be >= 1/);
    expect(() => new MathThoughtEnv({ source: 'gsm8k.csv' })).toThrow(
      /options\.source must be "generated", "sample" or a path/,
    );
  });

  it('rewards 1 for an equivalent answer, 0 for a wrong one, -λ_f for a malformed one', async () => {
    const env = new MathThoughtEnv({ formatPenalty: 0.3 });
    const problem = await resetTo(env, (p) => p.answerKind === 'percent' && p.answer === '50');
    for (const written of ['50%', '50', '0.5', '1/2']) {
      await env.reset({ seed: 0, options: { taskId: env.taskId as number } });
      expect(await env.step(`Answer: ${written}`)).toMatchObject({
        reward: 1,
        terminated: true,
        info: { success: true, goldAnswer: problem.answerText },
      });
    }
    await env.reset({ seed: 0, options: { taskId: env.taskId as number } });
    expect(await env.step('Answer: 49')).toMatchObject({ reward: 0, terminated: true, info: { success: false } });
    await env.reset({ seed: 0, options: { taskId: env.taskId as number } });
    const malformed = await env.step('So it is about half.\nAnswer: about half');
    expect(malformed).toMatchObject({ reward: -0.3, terminated: true, info: { success: false, invalidAction: true } });
    expect(malformed.observation).toMatch(/Malformed final answer: Could not read "about half"/);
  });

  it('reads the answer line in the markdown models write, instead of running on to the turn limit', async () => {
    // Each was an ordinary thought: no feedback, and −λ_f at maxTurns for a correct answer.
    const env = new MathThoughtEnv();
    await env.reset({ seed: 0 });
    const gold = (env.problem as { answerText: string }).answerText;
    for (const written of [
      `**Answer:** ${gold}`,
      `**Answer: ${gold}**`,
      `### Final Answer: ${gold}`,
      `Final answer: ${gold}`,
      `- Answer: ${gold}`,
      `So we are done.\n> **Answer**: ${gold}`,
      `**Final Answer:**\n\\boxed{${gold}}`,
    ]) {
      await env.reset({ seed: 0 });
      expect(env.fingerprint(written)).toBe('ANSWER');
      expect(await env.step(written)).toMatchObject({ reward: 1, terminated: true, info: { success: true } });
    }
    await env.reset({ seed: 0 });
    expect(await env.step('The answer: is not known yet.')).toMatchObject({ reward: 0, terminated: false });
  });

  it('scores the last Answer: line of a factor and tells the agent so', async () => {
    // The first was scored, silently: `Answer: <wrong>` then `Answer: <gold>` earned 0.
    const env = new MathThoughtEnv();
    await env.reset({ seed: 0 });
    const gold = (env.problem as { answerText: string }).answerText;
    const corrected = await env.step(`Answer: ${gold}1\nNo, I added wrongly.\nAnswer: ${gold}`);
    expect(corrected).toMatchObject({ reward: 1, terminated: true, info: { success: true } });
    expect(corrected.observation).toBe('Note: The factor has 2 "Answer:" lines: the last one is the final answer.');
    await env.reset({ seed: 0 });
    expect(await env.step(`Answer: ${gold}\nAnswer: ${gold}1`)).toMatchObject({ reward: 0, info: { success: false } });
  });

  it('truncates at maxTurns with the format penalty when no answer came', async () => {
    const env = new MathThoughtEnv({ maxTurns: 3 });
    await env.reset({ seed: 5 });
    expect(await env.step('Let me think.')).toMatchObject({ reward: 0, terminated: false, truncated: false });
    await env.step('Still thinking.');
    const last = await env.step('Almost there.');
    expect(last).toMatchObject({
      reward: -0.2,
      terminated: false,
      truncated: true,
      info: { success: false, truncatedBy: 'time-limit' },
    });
    await expect(env.step('Answer: 1')).rejects.toThrow(ResetNeededError);
  });

  it('answers bad input with feedback, never an exception', async () => {
    const env = new MathThoughtEnv({ maxFactorChars: 50 });
    await env.reset({ seed: 1 });
    const empty = await env.step('   \n  ');
    expect(empty).toMatchObject({ reward: 0, terminated: false, info: { invalidAction: true, fingerprint: 'EMPTY' } });
    expect(empty.observation).toMatch(/^Note: Empty thought factor/);
    const long = await env.step('a'.repeat(10_000));
    expect(long.observation).toBe('Note: The factor was truncated to 50 characters.');
    const two = await env.step('First, 2 + 2 = 4.\n\nAnswer: 4');
    expect(two).toMatchObject({ terminated: false, info: { fingerprint: 'CLAIM(add)' } });
    expect(two.observation).toMatch(
      /Only the first thought factor is read: the 9 characters after the blank line were ignored/,
    );
    const calc = await env.step('Compute <calc>2 * 3</calc>');
    expect(calc.observation).toMatch(/There is no calculator in this variant/);
    const control = await env.step('\u0000\u0001 thinking');
    expect(control.info.feedback).toMatch(/Control characters were removed/);
  });

  it('evaluates <calc> in the calculator variant and reports calculator errors as observations', async () => {
    const env = new MathThoughtEnv({ calculator: true });
    await env.reset({ seed: 1 });
    expect(await env.step('Total: <calc>12 * (3 + 4)</calc>')).toMatchObject({
      observation: '12 * (3 + 4) = 84',
      info: { fingerprint: 'CALC(mul)' },
    });
    expect((await env.step('<calc>1 / 0</calc> and <calc>2 +</calc>')).observation).toMatch(
      /^1 \/ 0: error: division by zero\n2 \+: error: cannot parse/,
    );
    expect((await env.step('<calc>10^400</calc>')).observation).toMatch(/error: the result is undefined or too large/);
    expect((await env.step('<calc>cos.constructor("return process")("")</calc>')).observation).toMatch(
      /error: function is not allowed/,
    );
    expect((await env.step('<calc>import({}, {})</calc>')).observation).toMatch(
      /error: function "import" is not allowed/,
    );
    expect((await env.step('<calc>1 + 2')).observation).toMatch(/A <calc> tag is not closed/);
  });

  it('fingerprints the kind of factor and anchors on the established quantities', async () => {
    const env = new MathThoughtEnv({ calculator: true });
    // A problem whose second step does not mention the first step's value (two independent quantities).
    const problem = await resetTo(
      env,
      (p) => p.question.startsWith('A farm') && !(p.steps[1]?.text as string).includes(p.steps[0]?.value as string),
    );
    const labels = problem.steps.map((step) => step.label);
    expect(env.anchor()).toBe('start');
    expect(env.fingerprint('Answer: 3')).toBe('ANSWER');
    expect(env.fingerprint('Let me see.')).toBe('NOTE');
    expect(env.fingerprint('So 12 ÷ 4 = 3.')).toBe('CLAIM(div)');
    expect(env.fingerprint('<calc>(2 + 3) * 4</calc>')).toBe('CALC(mul)');
    expect(env.anchor()).toBe('start'); // the hooks change nothing
    // Establish the second quantity first, then the first: the anchor lists them in solution order.
    await env.step(problem.steps[1]?.text as string);
    expect(env.anchor()).toBe(labels[1]);
    await env.step(problem.steps[0]?.calcText as string);
    expect(env.anchor()).toBe(`${labels[0]}+${labels[1]}`);
    await env.step('Let me check the numbers again.');
    expect(env.anchor()).toBe(`${labels[0]}+${labels[1]}`);
    const end = await env.step(`Answer: ${problem.answerText}`);
    expect(end.info).toMatchObject({ fingerprint: 'ANSWER', anchor: 'answered', success: true });
  });

  it('forks a native snapshot that evolves independently of the original', async () => {
    const env = new MathThoughtEnv();
    const reset = await env.reset({ seed: 42 });
    const factors = expertFactors(env.problem as Problem, false);
    await env.step(factors[0] as string);
    const anchor = env.anchor();
    const fork = await env.fork();
    expect(fork.problem).toBe(env.problem);
    expect(fork.anchor()).toBe(anchor);
    // The fork answers wrongly and ends; the original is untouched and still solves it.
    expect(await fork.step('Answer: -123456')).toMatchObject({ terminated: true, reward: 0 });
    expect(env.anchor()).toBe(anchor);
    let last;
    for (const factor of factors.slice(1)) last = await env.step(factor);
    expect(last).toMatchObject({ terminated: true, reward: 1 });
    // A fork of the finished original is finished too; one taken earlier from a fork keeps its turn count.
    await expect((await env.fork()).step('Answer: 1')).rejects.toThrow(ResetNeededError);
    const short = new MathThoughtEnv({ maxTurns: 2 });
    await short.reset({ seed: 42 });
    await short.step('One.');
    const twin = await short.fork();
    expect(await twin.step('Two.')).toMatchObject({ truncated: true });
    expect(await short.step('Two.')).toMatchObject({ truncated: true });
    expect(reset.observation).toBe(fork.problem?.question);
  });

  it('refuses to fork once closed, as every other use after close', async () => {
    // The native fork skipped BaseEnv's check: a closed env handed out a live twin of its episode.
    const env = new MathThoughtEnv();
    await env.reset({ seed: 42 });
    await env.close();
    await expect(env.fork()).rejects.toThrow(EnvClosedError);
  });
});
