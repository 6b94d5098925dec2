import type { SellerMove } from './buyer-simulator';
import { foldLookAlikes } from './fold-look-alikes';
import type { UtteranceIntent } from './meta-actions';
import type { Product } from './seller-data';
import type { NotedObjection } from './seller-notes';
import {
  DEAL_BREAKER_KEYWORDS,
  DEAL_BREAKER_TAGS,
  NEEDS,
  NEED_KEYWORDS,
  OBJECTION_KEYWORDS,
  OBJECTION_KINDS,
  type DealBreakerTag,
  type Need,
  type ObjectionKind,
} from './vocabulary';

const THREATEN = /\b(hit you|hurt you|punch|beat you|kill|or else|you'll regret|i'll make you|break your)\b/i;
const PRESS =
  /\b(don't have all day|hurry up|decide (now|right now|quickly)|make up your mind|now or never|last chance|taking it or not|buying it or not|right now or|stop wasting my time)\b/i;
const ASK_DOUBTS =
  /\b(hesitat\w*|any (other |more )?(doubts|concerns|questions|worries)|(holding|stopping) you back|anything (else )?(that )?(still )?(worr|bother|concern)\w*)/i;
const ASK_REQUIREMENTS =
  /\b(what matters (most )?to you|most important (to|for) you|what (are you|do you) look(ing)? for|what do you need|your requirements|what features|what do you care about)\b/i;
const ASK_SCENARIO =
  /\b(how (would|will|do) you use|where would you use|typical day|what would you use it for|in what situation|use case)\b/i;
const SOCIAL_PROOF = /\b(people (have )?bought|customers|rated \d|reviews?|best-?seller|five stars)\b/i;
const OFFER_TRIAL = /\b(try it for|trial|money-back|bring it back)\b/i;
const EMPATHIZE =
  /\b(i (understand|know how|get it|hear you)|in your (shoes|situation|position)|someone like you|for you personally|i'd feel the same)\b/i;
const GREET = /^\s*(hi|hello|hey|good (morning|afternoon|evening)|excuse me)\b/i;
const REASSURE = /\b(don't worry|rest assured|to (answer|address) your|about your concern|no need to worry)\b/i;
const QUESTION = /\?\s*$/;

/** What the classifier needs to know about the state: the product and the objection on the table. */
export interface ClassifierContext {
  /** Omitted before an episode starts: nothing can be pitched then. */
  readonly product?: Product | undefined;
  readonly pending?: NotedObjection | undefined;
}

export interface Classification {
  readonly intent: UtteranceIntent;
  readonly move: SellerMove;
}

/** Needs the text pitches that the product serves, in the order they are first mentioned. */
function needsPitched(text: string, product: Product | undefined): Need[] {
  if (!product) return [];
  const found: { need: Need; at: number }[] = [];
  for (const need of NEEDS) {
    const match = NEED_KEYWORDS[need].exec(text);
    if (match && product.sellingPoints.some((point) => point.need === need)) found.push({ need, at: match.index });
  }
  return found.sort((a, b) => a.at - b.at).map((each) => each.need);
}

function addressed(text: string): { kinds: ObjectionKind[]; tags: DealBreakerTag[] } {
  return {
    kinds: OBJECTION_KINDS.filter((kind) => OBJECTION_KEYWORDS[kind].test(text)),
    tags: DEAL_BREAKER_TAGS.filter((tag) => DEAL_BREAKER_KEYWORDS[tag].test(text)),
  };
}

function speaksTo(pending: NotedObjection, spoken: { kinds: ObjectionKind[]; tags: DealBreakerTag[] }): boolean {
  return pending.kind === 'deal-breaker'
    ? spoken.tags.includes(pending.tag as DealBreakerTag)
    : spoken.kinds.includes(pending.kind);
}

/**
 * Classifies a seller-v1 utterance into the meta-action it performs (the fingerprint), and reads what the
 * simulated buyer hears: the needs pitched (keywords of needs the product really serves) and the objections
 * an answer speaks to. Order matters: a threat or pressure dominates anything else said; questions come
 * before statements; an utterance on the topic of the pending objection is an answer. Pure.
 */
export function classifyUtterance(text: string, context: ClassifierContext): Classification {
  const { product, pending } = context;
  // Read as a listener hears it: "I'll hіt you" with a Cyrillic і is a threat, "Неllo" a greeting.
  const trimmed = foldLookAlikes(text).trim();
  const make = (intent: UtteranceIntent, extra: Partial<SellerMove> = {}): Classification => ({
    intent,
    move: { intent, pitched: [], ...extra },
  });
  if (trimmed === '') return make('silence');
  if (THREATEN.test(trimmed)) return make('threaten');
  if (PRESS.test(trimmed)) return make('press');
  if (ASK_DOUBTS.test(trimmed) && QUESTION.test(trimmed)) return make('ask-doubts');
  if (ASK_REQUIREMENTS.test(trimmed)) return make('ask-requirements');
  if (ASK_SCENARIO.test(trimmed)) return make('ask-scenario');
  const spoken = addressed(trimmed);
  if (pending && speaksTo(pending, spoken) && !QUESTION.test(trimmed))
    return make('answer-doubts', { addresses: spoken });
  if (SOCIAL_PROOF.test(trimmed)) return make('social-proof');
  if (OFFER_TRIAL.test(trimmed)) return make('offer-trial');
  const pitched = needsPitched(trimmed, product);
  if (EMPATHIZE.test(trimmed)) return make('empathize', { pitched });
  if (REASSURE.test(trimmed)) return make('answer-doubts', { addresses: spoken });
  const namesProduct =
    product !== undefined && trimmed.toLowerCase().includes(product.name.toLowerCase().split(' ')[0] as string);
  if (GREET.test(trimmed) && !namesProduct && pitched.length === 0) return make('greet');
  if (namesProduct || pitched.length > 0 || /\b(dollars|price is|this is the)\b/i.test(trimmed)) {
    return make('introduce', { pitched: pitched.slice(0, 2), laundryList: pitched.length >= 4 });
  }
  if (ASK_DOUBTS.test(trimmed)) return make('ask-doubts');
  return make('other');
}
