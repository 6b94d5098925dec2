import { readBuyerReply } from './buyer-reply-reader';
import { objectionLine, objectionTopic } from './buyer-simulator';
import { loadSellerData } from './seller-data';
import { DEAL_BREAKER_TAGS, NEEDS, NEED_PHRASES, OBJECTION_KINDS } from './vocabulary';

const product = loadSellerData().products[0]!;

describe('readBuyerReply', () => {
  it('reads every objection the simulated buyer can raise, and every way it repeats one', () => {
    for (const kind of OBJECTION_KINDS) {
      expect([kind, readBuyerReply(objectionLine({ kind, status: 'voiced' }, product)).objection]).toEqual([
        kind,
        kind,
      ]);
      const topic = objectionTopic({ kind, status: 'voiced' });
      for (const repeat of [
        `As I said, I'm worried about ${topic}.`,
        `That doesn't really answer my concern about ${topic}.`,
        `You haven't even answered my question about ${topic}!`,
      ]) {
        const cues = readBuyerReply(repeat);
        expect([kind, cues.objection, cues.unsatisfied]).toEqual([kind, kind, true]);
      }
    }
    for (const tag of DEAL_BREAKER_TAGS) {
      expect([
        tag,
        readBuyerReply(objectionLine({ kind: 'deal-breaker', tag, status: 'voiced' }, product)).dealBreaker,
      ]).toEqual([tag, tag]);
    }
  });

  it('reads named needs, the usage scenario, and no objection in them', () => {
    for (const [first, second] of [NEEDS.slice(0, 2), NEEDS.slice(5, 7), NEEDS.slice(12, 14)] as const) {
      const cues = readBuyerReply(`What matters most to me is ${NEED_PHRASES[first!]} and ${NEED_PHRASES[second!]}.`);
      expect(cues.needs).toEqual([first, second]);
      expect(cues.objection).toBeUndefined();
    }
    const scenario = readBuyerReply(
      "I'd mostly use it on building sites, in the dust and the rain, so something that lasts for years matters.",
    );
    expect(scenario).toMatchObject({ scenario: true, needs: ['durability'] });
    expect(scenario.objection).toBeUndefined();
  });

  it('reads decisions and moods', () => {
    expect(readBuyerReply("Alright, you've convinced me. How do I order one?")).toMatchObject({
      commits: true,
      leaves: false,
    });
    expect(readBuyerReply('Sorry, I really have to go now. Goodbye.')).toMatchObject({ commits: false, leaves: true });
    expect(readBuyerReply('No, I think that covers everything.')).toMatchObject({ noDoubts: true });
    expect(readBuyerReply("Hi. I'm in a hurry, so make it quick.")).toMatchObject({ hurry: true });
    expect(readBuyerReply('Okay, that makes sense.')).toMatchObject({ satisfied: true, unsatisfied: false });
    expect(readBuyerReply("Don't rush me.")).toMatchObject({ annoyed: true });
    expect(readBuyerReply('I really like the sound of that.').interest).toBe('high');
    expect(readBuyerReply("Hmm, I'm not sure it's for me.").interest).toBe('low');
  });

  it('reads an order only where the buyer makes one: not a purchase phrase negated, hedged, put off or asked about', () => {
    // Each was read as an order before, and the simulated judge behind an LLM buyer ruled a sale (+1).
    for (const reply of [
      'Why would I want to buy a backpack from a stranger on the street?',
      "I'm not sure I'll take it.",
      "I don't think I'll buy it.",
      "Maybe I'll buy it some other time. Goodbye.",
      "I'll buy it later, if I still need one.",
      'Would I want to buy one? Hardly.',
      "How do I pay? I'm not paying that much!",
      'If it were half the price, I would say: I will take it.',
      'Can I pay in instalments?',
      "It's a deal? That price is no deal at all.",
    ]) {
      expect([reply, readBuyerReply(reply).commits]).toEqual([reply, false]);
    }
    expect(readBuyerReply("Maybe I'll buy it some other time. Goodbye.").leaves).toBe(true);
    for (const reply of [
      "You know what? I'll take it. How do I order one?",
      "I'm not sure about the colour, but I'll take it.",
      'Could you tell me how do I pay?',
      // Typographic apostrophes, as models write them, were not read at all: the sale was lost at the round limit.
      'Fine, I’ll take it!',
      'I want to buy it, how do I pay?',
      // How LLM buyers order too, read as no decision before (the sale ran on to a loss at the round limit).
      'Okay, how can I pay?',
      "Alright, I'll take one.",
      "It's a deal!",
      'Sign me up. Where can I order?',
      "I'd like to buy one, please.",
    ]) {
      expect([reply, readBuyerReply(reply).commits]).toEqual([reply, true]);
    }
  });
});
