import { InvalidOptionsError, ResetNeededError, runEpisode } from '@turngym/core';
import { META_ACTION_CATALOGUE, DEFAULT_META_ACTIONS } from './meta-actions';
import { SellerEnv, SELLER_COMMANDER_ID, SELLER_ID } from './seller-env';
import { SellerExpert } from './seller-expert';

const GREET = 0;
const INTRODUCE = 1;
const ANSWER = 2;
const ASK_REQUIREMENTS = 3;
const EMPATHIZE = 4;
const THREATEN = 5;
const ASK_DOUBTS = 8;

describe('SellerEnv, commander mode (turngym/seller-commander-v1)', () => {
  const env = new SellerEnv();

  it("offers the seed's nine meta-actions as a labelled discrete space", () => {
    expect(env.spec.id).toBe(SELLER_COMMANDER_ID);
    expect(env.spec.actionSpace).toEqual({
      type: 'discrete',
      n: 9,
      labels: DEFAULT_META_ACTIONS.map((id) => META_ACTION_CATALOGUE[id].label),
    });
    expect(env.spec.maxTurns).toBe(8);
    expect(env.spec.rewardRange).toEqual([-1.1, 1]);
  });

  it('resets to the task: a product card and a passer-by; the seed picks the task, and the same seed the same one', async () => {
    const { observation, info } = await env.reset({ seed: 3 });
    const task = env.task!;
    expect(observation).toContain(task.product.name);
    expect(observation).toContain(`A passer-by approaches: ${task.persona.appearance}.`);
    expect(observation).not.toContain(task.persona.scenario); // hidden facts stay hidden
    expect(info.instructions).toContain('0: greet the user\n1: briefly introduce the product');
    expect(info).toMatchObject({
      taskId: expect.any(Number),
      personaId: task.persona.id,
      productId: task.product.id,
      phase: 'opening',
      round: 0,
      roundsLeft: 8,
    });
    expect(info.actionMask).toEqual([true, true, true, true, true, true, true, true, true]);
    expect((await env.reset({ seed: 3 })).observation).toBe(observation);
    const tasks = new Set<number>();
    for (let seed = 0; seed < 30; seed++) tasks.add((await env.reset({ seed })).info.taskId as number);
    expect(tasks.size).toBeGreaterThan(20);
  });

  it('picks a task by reset options, and names the field when they are wrong', async () => {
    expect((await env.reset({ seed: 1, options: { taskId: 7 } })).info.taskId).toBe(7);
    const task = env.tasks[12]!;
    expect(
      (await env.reset({ seed: 1, options: { personaId: task.persona.id, productId: task.product.id } })).info.taskId,
    ).toBe(12);
    await expect(env.reset({ options: { taskId: 100000 } })).rejects.toThrow(/options\.taskId must be < \d+/);
    await expect(env.reset({ options: { personaId: 'nobody', productId: task.product.id } })).rejects.toThrow(
      InvalidOptionsError,
    );
    await expect(env.reset({ options: { task: 1 } })).rejects.toThrow(/unknown field "task"/);
  });

  it('takes an index, a numeric string, an id or a label for the same meta-action', async () => {
    const observations: string[] = [];
    for (const action of [INTRODUCE, '1', 'introduce', 'Briefly Introduce The Product']) {
      await env.reset({ seed: 9 });
      expect(env.fingerprint(action)).toBe('introduce');
      const step = await env.step(action);
      expect(step.info).toMatchObject({ metaAction: 'introduce', fingerprint: 'introduce' });
      observations.push(step.observation);
    }
    expect(new Set(observations).size).toBe(1);
    expect(observations[0]).toMatch(/^Seller: This is the .+\nBuyer: /);
  });

  it("reads a model's choice as it writes it: the line as listed, and nothing from its reasoning", async () => {
    // Each was an invalid meta-action before (silence and the format penalty), and the reasoning one a threat
    // if the env had read the first number in it.
    for (const action of [
      '1: briefly introduce the product',
      '1. Briefly introduce the product.',
      '1 - briefly introduce the product',
      '<think>Threaten them (5)? No, that fails.</think>\n1',
      '<reasoning>5 is bad</reasoning> briefly introduce the product',
      '\u200b1\ufeff',
    ]) {
      await env.reset({ seed: 9 });
      expect([action, env.fingerprint(action)]).toEqual([action, 'introduce']);
      const step = await env.step(action);
      expect(step.info).toMatchObject({ metaAction: 'introduce' });
      expect(step.info.invalidAction).toBeUndefined();
    }
    // A number and a label that disagree could mean either: refused, saying so.
    await env.reset({ seed: 9 });
    const both = await env.step('5: briefly introduce the product');
    expect(both.info).toMatchObject({ invalidAction: true, metaAction: 'invalid' });
    expect(both.info.feedback).toMatch(/the number and the label name different meta-actions/);
  });

  it.each([
    ['an unknown label', 'sing a song', /unknown meta-action "sing a song"/],
    ['an index out of range', 12, /index 12 is out of range 0–8/],
    ['a greeting after the opening', GREET, /"greet the user" is only possible as the opening move/],
  ])(
    'treats %s as an ordinary step: the seller says nothing, with feedback and the format penalty',
    async (_name, action, reason) => {
      await env.reset({ seed: 4 });
      await env.step(ASK_REQUIREMENTS);
      const step = await env.step(action);
      expect(step.reward).toBeCloseTo(-0.1);
      expect(step.terminated).toBe(false);
      expect(step.info).toMatchObject({ invalidAction: true, metaAction: 'invalid', round: 2, utterance: '' });
      expect(step.info.feedback).toMatch(reason);
      expect(step.observation).toMatch(/^Seller: \(says nothing\)\nBuyer: .*\nNote: Invalid meta-action/s);
      expect(step.info.actionMask?.[GREET]).toBe(false);
    },
  );

  it('ends at the round limit with -1 when the judge never rules "buy"', async () => {
    const short = new SellerEnv({ rounds: 3 });
    // A friendly buyer with all the time in the world, asked questions but never offered anything.
    await short.reset({ seed: 2, options: { personaId: 'sam-barista', productId: 'trail-backpack' } });
    const steps = [await short.step(GREET), await short.step(ASK_REQUIREMENTS), await short.step(EMPATHIZE)];
    expect(steps.map((step) => step.terminated)).toEqual([false, false, true]);
    expect(steps[2]).toMatchObject({ reward: -1, info: { outcome: 'round-limit', success: false, roundsLeft: 0 } });
    expect(steps[2]!.observation).toContain('Judge: no decision within 3 rounds. No sale.');
    await expect(short.step(ASK_DOUBTS)).rejects.toThrow(ResetNeededError);
  });

  it('a threat makes most buyers refuse on the spot: -1', async () => {
    let refused = 0;
    for (let seed = 0; seed < 20; seed++) {
      await env.reset({ seed });
      const step = await env.step(THREATEN);
      expect(step.info.utterance).toBe("Buy it right now, or I'll hit you.");
      if (step.terminated) {
        expect(step).toMatchObject({ reward: -1, info: { outcome: 'refuse', judge: { decision: 'refuse' } } });
        refused += 1;
      }
    }
    expect(refused).toBeGreaterThan(14);
  });

  it('reports the judge each step and the phase as the anchor, up to a sale', async () => {
    const expert = new SellerExpert();
    const phases = new Set<string>();
    let sold = 0;
    for (let seed = 0; seed < 20; seed++) {
      const reset = await env.reset({ seed });
      await expert.start({ seed, spec: env.spec, observation: reset.observation, info: reset.info });
      let observation = reset.observation;
      let info = reset.info;
      for (;;) {
        const step = await env.step(await expert.act(observation, info));
        expect(step.info.judge).toMatchObject({
          decision: expect.stringMatching(/^(buy|refuse|continue)$/),
          score: expect.any(Number),
        });
        expect(step.info.anchor).toBe(env.anchor());
        phases.add(env.anchor());
        observation = step.observation;
        info = step.info;
        if (step.terminated) {
          if (step.info.success) {
            sold += 1;
            expect(step).toMatchObject({
              reward: 1,
              info: { outcome: 'buy', judge: { decision: 'buy', score: 4 }, phase: 'closing' },
            });
            expect(step.observation).toMatch(/How do I order one\?\nJudge: the buyer will buy\. Sale!$/);
          }
          break;
        }
      }
    }
    expect(sold).toBeGreaterThan(5);
    // After a greeting the talk is still in its opening; needs or the product make it discovery; a voiced
    // doubt, objections; purchase signals, closing.
    expect(phases).toEqual(new Set(['opening', 'discovery', 'objections', 'closing']));
  });

  it('forks natively: the fork continues exactly like the original, and neither affects the other', async () => {
    await env.reset({ seed: 21 });
    await env.step(GREET);
    await env.step(ASK_REQUIREMENTS);
    const fork = await env.fork();
    expect(fork.dialogue).toEqual(env.dialogue);
    expect(fork.buyerState).toEqual(env.buyerState);
    const forkSteps = [await fork.step(INTRODUCE), await fork.step(ANSWER), await fork.step(EMPATHIZE)];
    expect(env.dialogue).toHaveLength(4);
    const steps = [await env.step(INTRODUCE), await env.step(ANSWER), await env.step(EMPATHIZE)];
    const comparable = (step: (typeof steps)[number]): unknown => [
      step.observation,
      step.reward,
      step.terminated,
      step.info.judge,
      step.info.anchor,
    ];
    expect(forkSteps.map(comparable)).toEqual(steps.map(comparable));
    await fork.close();
    // The fork's close leaves the shared roles to the original.
    expect((await env.step(ASK_DOUBTS)).observation).toMatch(/^Seller: /);
  });

  it('offers an extended action set: catalogue extras and custom meta-actions', async () => {
    const extended = new SellerEnv({
      actions: [...DEFAULT_META_ACTIONS, 'social-proof', 'offer-trial'],
      customActions: [
        {
          id: 'tell-story',
          label: 'tell a story about a happy customer',
          instruction: 'Tell a short story about a customer like them who loves the product.',
          behavesAs: 'empathize',
        },
      ],
    });
    expect(extended.spec.actionSpace).toMatchObject({ type: 'discrete', n: 12 });
    await extended.reset({ seed: 5 });
    await extended.step(INTRODUCE);
    const story = await extended.step('tell a story about a happy customer');
    expect(story.info).toMatchObject({ metaAction: 'tell-story', fingerprint: 'tell-story' });
    expect(story.info.utterance).toMatch(/^I understand/);
    const proof = await extended.step('social-proof');
    expect(proof.info.utterance).toMatch(/people have bought it already, and it is rated/);
    const outcome = await runEpisode(extended, new SellerExpert(), 6);
    expect(outcome.turns).toBeGreaterThan(0);
    expect(
      () =>
        new SellerEnv({
          customActions: [{ id: 'greet', label: 'hello', instruction: 'Say hello.', behavesAs: 'greet' }],
        }),
    ).toThrow(/meta-action "greet" is defined twice/);
    expect(() => new SellerEnv({ actions: [], customActions: [] })).toThrow(/at least one meta-action/);
    expect(() => new SellerEnv({ actions: ['dance' as never] })).toThrow(/options\.actions\[0\] must be one of/);
  });

  it('refuses a custom meta-action whose id or label would be read as an index or as silence', () => {
    // "3" names the fourth meta-action by index: a custom action labelled "3" could never be chosen by its label,
    // and the commander asking for it would get ask-requirements instead.
    const custom = (id: string, label: string) => ({
      customActions: [{ id, label, instruction: 'Tell a story.', behavesAs: 'empathize' as const }],
    });
    expect(() => new SellerEnv(custom('tell-story', '3'))).toThrow(/meta-action "3" would be read as an index/);
    expect(() => new SellerEnv(custom('12', 'tell a story'))).toThrow(/meta-action "12" would be read as an index/);
    expect(() => new SellerEnv(custom('tell-story', '   '))).toThrow(/the label of meta-action "tell-story" is blank/);
    expect(new SellerEnv(custom('story-3', 'story 3')).spec.actionSpace).toMatchObject({ n: 10 });
  });
});

describe('SellerEnv, seller mode (turngym/seller-v1)', () => {
  const env = new SellerEnv({ mode: 'seller' });

  it("takes the seller's words, classifies them for the fingerprint, and answers with the buyer's reply", async () => {
    expect(env.spec).toMatchObject({ id: SELLER_ID, actionSpace: { type: 'text', maxLength: 1000 } });
    const reset = await env.reset({ seed: 8 });
    expect(reset.info.product).toBe(env.task!.product);
    const words = 'What matters most to you in a product like this?';
    expect(env.fingerprint(words)).toBe('ask-requirements');
    const step = await env.step(words);
    expect(step.info).toMatchObject({ intent: 'ask-requirements', fingerprint: 'ask-requirements' });
    expect(step.observation).toMatch(/^Buyer: What matters most to me is /);
    expect(step.info.feedback).toBeUndefined();
  });

  it('treats silence and speeches as ordinary steps with the format penalty, and nonsense with feedback', async () => {
    await env.reset({ seed: 8 });
    const silent = await env.step('   ');
    expect(silent).toMatchObject({
      reward: expect.closeTo(-0.1),
      terminated: false,
      info: { invalidAction: true, intent: 'silence' },
    });
    expect(silent.observation).toMatch(/^Buyer: \.\.\.\? Did you want something\?\nNote: You said nothing/);
    const speech = await env.step(`This is a wonderful product. ${'It really is. '.repeat(200)}`);
    expect(speech.reward).toBeCloseTo(-0.1);
    expect(speech.info.feedback).toMatch(/cut to 1000 characters/);
    expect(speech.observation).toContain("That's a lot of talking.");
    const nonsense = await env.step('Banana telescope orbit?');
    expect(nonsense.reward).toBe(0);
    expect(nonsense.info).toMatchObject({ intent: 'other', fingerprint: 'other' });
    expect(nonsense.info.feedback).toMatch(/no recognisable sales move/);
  });

  it("keeps a reasoning model's <think> out of what the seller says: the buyer hears, and the classifier reads, only the words", async () => {
    // The reasoning was heard: "I could say buy it or I will hit you, but no" classified as a threat, and the buyer fled.
    await env.reset({ seed: 1, options: { taskId: 0 } });
    const planned = await env.step(
      '<think>The buyer looks rich. I could say buy it or I will hit you, but no.</think>\nHello! Have you got a minute?',
    );
    expect(planned).toMatchObject({
      reward: 0,
      terminated: false,
      info: { intent: 'greet', reasoningRemoved: true, utterance: 'Hello! Have you got a minute?' },
    });
    expect(planned.info.feedback).toBeUndefined();
    expect(env.dialogue[0]).toMatchObject({ name: 'seller', content: 'Hello! Have you got a minute?' });
    expect(env.fingerprint('<reasoning>Threaten? No: or else they leave.</reasoning> Hi there!')).toBe('greet');
    // A block never closed (cut while reasoning) is all reasoning: silence, with the penalty and a note saying why.
    await env.reset({ seed: 1, options: { taskId: 0 } });
    const unclosed = await env.step('<think>Let me plan: greet first, then ask what matters most to you?');
    expect(unclosed).toMatchObject({ reward: expect.closeTo(-0.1), info: { intent: 'silence', invalidAction: true } });
    expect(unclosed.info.feedback).toMatch(/all reasoning/);
    expect(env.dialogue[0]).toMatchObject({ content: '(says nothing)' });
  });

  it('hears the words a model wraps in quotes or after a speaker label as the words alone', async () => {
    // Each was "no recognisable sales move" before (the buyer: "Sorry, what do you mean?"), and the buyer heard the label.
    for (const action of [
      '"Hello there! Have you got a minute?"',
      '“Hello there! Have you got a minute?”',
      'Seller: Hello there! Have you got a minute?',
      '**Salesperson:** "Hello there! Have you got a minute?"',
    ]) {
      await env.reset({ seed: 1, options: { taskId: 0 } });
      expect([action, env.fingerprint(action)]).toEqual([action, 'greet']);
      const step = await env.step(action);
      expect(step.info).toMatchObject({ intent: 'greet', utterance: 'Hello there! Have you got a minute?' });
      expect(env.dialogue[0]?.content).toBe('Hello there! Have you got a minute?');
    }
    // Quotes that are part of what is said stay.
    await env.reset({ seed: 1, options: { taskId: 0 } });
    await env.step('"Light" is the word: this backpack weighs "nothing".');
    expect(env.dialogue[0]?.content).toBe('"Light" is the word: this backpack weighs "nothing".');
  });

  it('treats invisible characters as nothing said: a zero-width space is silence, with the penalty', async () => {
    // Read as words ("other", no penalty) before: a way to stall without the format penalty.
    await env.reset({ seed: 8 });
    const invisible = await env.step('\u200b\u2060\ufeff');
    expect(invisible).toMatchObject({ reward: expect.closeTo(-0.1), info: { intent: 'silence', invalidAction: true } });
    const hidden = await env.step('What\u200b matters most\u00ad to you in a product like this?');
    expect(hidden.info).toMatchObject({ intent: 'ask-requirements' });
    expect(env.dialogue[2]).toMatchObject({ content: 'What matters most to you in a product like this?' });
  });

  it('its scripted agent sells by writing the words itself', async () => {
    let sold = 0;
    for (let seed = 0; seed < 20; seed++) if ((await runEpisode(env, new SellerExpert(), seed)).success) sold += 1;
    expect(sold).toBeGreaterThan(5);
  });
});
