import { clashAnswer } from './buyer-simulator';
import { classifyUtterance } from './intent-classifier';
import { INTENTS, type Intent } from './meta-actions';
import { loadSellerData } from './seller-data';
import { emptyNotes } from './seller-notes';
import { executeMetaAction } from './simulated-executor';
import { OBJECTION_KINDS, type DealBreakerTag } from './vocabulary';

const { products } = loadSellerData();
const product = products[0]!;

describe('classifyUtterance (seller-v1: the words → the meta-action, the fingerprint)', () => {
  it('reads every sentence the simulated executor writes, for every product, as the move that wrote it', () => {
    const problems: string[] = [];
    for (const each of products) {
      for (const intent of INTENTS.filter((id) => id !== 'answer-doubts')) {
        for (const needs of [[], each.sellingPoints.slice(1, 3).map((point) => point.need)]) {
          const notes = { ...emptyNotes(), needs };
          const { text } = executeMetaAction(intent, each, notes);
          const got = classifyUtterance(text, { product: each }).intent;
          if (got !== intent) problems.push(`${each.id} ${intent}: "${text}" → ${got}`);
        }
      }
      // Answers: to every objection the product has a fact for, and to every deal-breaker it defuses.
      const pendings = [
        ...OBJECTION_KINDS.filter((kind) => each.answers[kind] !== undefined || clashAnswer(each, kind)).map(
          (kind) => ({ kind }),
        ),
        ...(Object.keys(each.mitigations) as DealBreakerTag[]).map((tag) => ({ kind: 'deal-breaker' as const, tag })),
      ];
      for (const pending of pendings) {
        const { text } = executeMetaAction('answer-doubts', each, { ...emptyNotes(), pending });
        const got = classifyUtterance(text, { product: each, pending });
        if (got.intent !== 'answer-doubts')
          problems.push(`${each.id} answer to ${pending.kind}: "${text}" → ${got.intent}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it.each<[string, Intent | 'other' | 'silence']>([
    ['Good afternoon! Could I have a moment?', 'greet'],
    ['Give me your money or I will hurt you, buy it!', 'threaten'],
    ["Buy it or else, I'm warning you.", 'threaten'],
    ["Come on, make up your mind, I can't stand here all day.", 'press'],
    ['What matters most to you when you pick a backpack?', 'ask-requirements'],
    ['Where would you use it, on your commute?', 'ask-scenario'],
    ['Do you have any other concerns?', 'ask-doubts'],
    ['I understand, in your situation I would want the same.', 'empathize'],
    ['Check this out: it weighs 900 grams and is made from recycled bottles.', 'introduce'],
    ['Over 2,000 customers gave it five stars.', 'social-proof'],
    ['Take it home on a 30-day trial.', 'offer-trial'],
    ['The weather is nice today.', 'other'],
    ['}{ not an action ((', 'other'],
    ['   ', 'silence'],
  ])('"%s" → %s', (text, intent) => {
    expect(classifyUtterance(text, { product }).intent).toBe(intent);
  });

  it('an utterance on the topic of the pending objection is an answer to it, and says what it addresses', () => {
    const pending = { kind: 'trust' as const };
    const answer = classifyUtterance('We are a real shop with a two-year warranty.', { product, pending });
    expect(answer.intent).toBe('answer-doubts');
    expect(answer.move.addresses?.kinds).toContain('trust');
    // Off the topic, it is not an answer (and the buyer will say so).
    expect(classifyUtterance('It weighs only 900 grams.', { product, pending }).intent).toBe('introduce');
  });

  it('credits only needs the product really serves, in the order spoken, and flags a laundry list', () => {
    const pitch = classifyUtterance('It is recycled, light, tough, comfortable, has bluetooth and a huge battery.', {
      product,
    });
    expect(pitch.intent).toBe('introduce');
    // The backpack has no bluetooth or battery: those words pitch nothing.
    expect(pitch.move.pitched).toEqual(['eco', 'portability']);
    expect(pitch.move.laundryList).toBe(true);
  });

  it('reads look-alike letters of other scripts as the letters they show, as a listener hears them', () => {
    // "hit" with a Cyrillic і and "hurry up" with a Greek υ were no recognisable move (or a milder one).
    expect(classifyUtterance('Buy it now or I will h\u0456t you.', { product }).intent).toBe('threaten');
    expect(classifyUtterance('H\u03c5rry up, I have no time.', { product }).intent).toBe('press');
    expect(classifyUtterance('\u041d\u0435llo there!', { product }).intent).toBe('greet');
    expect(classifyUtterance('\uff28\uff45\uff4c\uff4c\uff4f there!', { product }).intent).toBe('greet');
  });
});
