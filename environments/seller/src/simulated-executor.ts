import { clashAnswer, type SellerMove } from './buyer-simulator';
import type { Intent } from './meta-actions';
import type { Product, SellingPoint } from './seller-data';
import type { SellerNotes } from './seller-notes';
import { DEAL_BREAKER_PHRASES, OBJECTION_TOPICS, type DealBreakerTag, type Need } from './vocabulary';

/** What the simulated executor said, and the move the simulated buyer hears. */
export interface ExecutorOutput {
  readonly text: string;
  readonly move: SellerMove;
}

const article = (noun: string): string => `${/^[aeiou]/i.test(noun) ? 'an' : 'a'} ${noun}`;
const capitalise = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

/**
 * The selling points to pitch: those serving needs the buyer named (not pitched yet), then, to make two,
 * the product's next unpitched points in its own order. A seller who knows nothing pitches blind.
 */
export function pointsToPitch(product: Product, notes: SellerNotes): SellingPoint[] {
  const unpitched = product.sellingPoints.filter((point) => !notes.pitched.includes(point.need));
  const targeted = unpitched.filter((point) => notes.needs.includes(point.need));
  const rest = unpitched.filter((point) => !notes.needs.includes(point.need));
  return [...targeted, ...rest].slice(0, 2);
}

/**
 * The embedded executor: fills the meta-action's template with product facts and what the seller knows,
 * following the meta-action strictly (the seed's requirement of the lower-level LM). Deterministic.
 */
export function executeMetaAction(intent: Intent, product: Product, notes: SellerNotes): ExecutorOutput {
  const plain = (text: string): ExecutorOutput => ({ text, move: { intent, pitched: [] } });
  switch (intent) {
    case 'greet':
      return plain('Hi there! Have you got a minute?');
    case 'introduce': {
      const points = pointsToPitch(product, notes);
      const pitched: Need[] = points.map((point) => point.need);
      if (notes.introduced && points.length > 0) {
        return {
          text: `And there is more: ${points.map((point) => point.text).join(', and ')}.`,
          move: { intent, pitched },
        };
      }
      const facts = points.length > 0 ? ` ${capitalise(points.map((point) => point.text).join(', and '))}.` : '';
      return {
        text: `This is the ${product.name}, ${product.summary}.${facts} It is ${product.price} dollars.`,
        move: { intent, pitched },
      };
    }
    case 'answer-doubts': {
      const pending = notes.pending;
      if (!pending) return plain("Don't worry, it is a great product and you will love it.");
      if (pending.kind === 'deal-breaker') {
        const tag = pending.tag as DealBreakerTag;
        return plain(
          product.mitigations[tag] ??
            `Don't worry that it ${DEAL_BREAKER_PHRASES[tag]}; honestly, it is a minor detail.`,
        );
      }
      const answer = product.answers[pending.kind];
      if (answer !== undefined) return plain(answer);
      const point = clashAnswer(product, pending.kind);
      if (point) return plain(`About ${OBJECTION_TOPICS[pending.kind]}: ${point.text}.`);
      return plain(`Don't worry about ${OBJECTION_TOPICS[pending.kind]}; honestly, it is a great product.`);
    }
    case 'ask-requirements':
      return plain(`What matters most to you in ${article(product.category)}?`);
    case 'empathize': {
      const point = product.sellingPoints.find((each) => notes.needs.includes(each.need));
      if (!point) return plain('I understand, everyone wants something that simply works, and this one does.');
      return plain(
        `I understand${notes.scenario ? ' how you would use it' : ''}. For someone like you, ${point.text}, so it really fits your day.`,
      );
    }
    case 'threaten':
      return plain("Buy it right now, or I'll hit you.");
    case 'ask-scenario':
      return plain(`How would you use ${article(product.category)} in a typical day?`);
    case 'press':
      return plain("Look, I don't have all day. Are you taking it or not?");
    case 'ask-doubts':
      return plain('Is there anything that still makes you hesitate?');
    case 'social-proof':
      return plain(
        `${product.reviews.count.toLocaleString('en-US')} people have bought it already, and it is rated ${product.reviews.rating} out of 5.`,
      );
    case 'offer-trial':
      return plain(
        product.trialDays > 0
          ? `Try it for ${product.trialDays} days: if you don't love it, bring it back for a full refund.`
          : "There is no trial for this one, but honestly you won't need one.",
      );
  }
}
