import {
  DEAL_BREAKER_KEYWORDS,
  DEAL_BREAKER_TAGS,
  NEEDS,
  NEED_KEYWORDS,
  NEED_PHRASES,
  OBJECTION_KEYWORDS,
  OBJECTION_KINDS,
  type DealBreakerTag,
  type Need,
  type ObjectionKind,
} from './vocabulary';

/** What a buyer's reply says, as far as words can tell. */
export interface BuyerCues {
  /** Needs the buyer named as what matters to them. */
  readonly needs: readonly Need[];
  /** They told how they would use the product. */
  readonly scenario: boolean;
  /** An objection raised (or repeated) in this reply. */
  readonly objection?: ObjectionKind;
  /** A deal-breaker raised in this reply. */
  readonly dealBreaker?: DealBreakerTag;
  /** The last answer met their concern. */
  readonly satisfied: boolean;
  /** The last answer did not meet it, or they repeat it. */
  readonly unsatisfied: boolean;
  /** They say no doubts remain. */
  readonly noDoubts: boolean;
  /** They asked how to buy: a purchase decision. */
  readonly commits: boolean;
  /** They said goodbye. */
  readonly leaves: boolean;
  /** They are in a hurry. */
  readonly hurry: boolean;
  /** Their interest, where a reaction shows it. */
  readonly interest?: 'low' | 'medium' | 'high';
  /** They object to being rushed, threatened or answered beside the point. */
  readonly annoyed: boolean;
}

const NEED_PHRASE_LIST = NEEDS.map((need) => [need, NEED_PHRASES[need].toLowerCase()] as const);
const TELLS_NEEDS = /\b(matters (most )?to me|i care about|i need something|i'm looking for|important to me)\b/i;
const SCENARIO = /\b(i'd (mostly )?use it|i would use it|i use it)\b/i;
const RAISES =
  /\?|\b(worried|worry|not sure|doubt|concern|more than i wanted|sounds complicated|i would never|deal-breaker)\b/i;
const DEAL_BREAKER = /\b(would never buy|deal-breaker|never buy anything)\b/i;
const SATISFIED = /\b(that makes sense|that is fine|you have a point|fair enough|that helps|good to know)\b/i;
const UNSATISFIED = /\b(doesn't (really )?answer|as i said|still worried|haven't (even )?answered|but what about)\b/i;
const NO_DOUBTS = /\b(covers everything|no more questions|no (other |more )?(doubts|concerns))\b/i;
const COMMITS =
  /\b(how do i (order|buy|pay)|i'll take it|i will take it|where do i (pay|sign)|i'll buy it|i want to buy)\b/i;
const LEAVES = /\b(goodbye|bye|i have to go|leave me alone|not interested)\b/i;
const HURRY = /\b(in a hurry|make it quick|no time|i'm late|running late)\b/i;
const HIGH = /\b(really like|love it|sounds great|sounds perfect|exactly what i)\b/i;
const MEDIUM = /\b(sounds interesting|interesting|not bad|sounds good|tell me more)\b/i;
const LOW = /\b(not sure it's for me|not for me|not convinced)\b/i;
const ANNOYED = /\b(don't rush me|threatening|already (told|said)|haven't even|told me that already|what doubts)\b/i;

/**
 * Reads a buyer's reply for the cues a seller acts on. Exact on the simulated buyer's sentences (the
 * scripted expert and the simulated executor rely on it) and a best effort on an LLM buyer's words.
 */
export function readBuyerReply(text: string): BuyerCues {
  const lower = text.toLowerCase();
  const needs: Need[] = [];
  if (TELLS_NEEDS.test(text) || SCENARIO.test(text)) {
    for (const [need, phrase] of NEED_PHRASE_LIST) if (lower.includes(phrase)) needs.push(need);
    if (needs.length === 0) {
      for (const need of NEEDS) if (NEED_KEYWORDS[need].test(text)) needs.push(need);
    }
  }
  let objection: ObjectionKind | undefined;
  let dealBreaker: DealBreakerTag | undefined;
  if (DEAL_BREAKER.test(text)) {
    dealBreaker = DEAL_BREAKER_TAGS.find((tag) => DEAL_BREAKER_KEYWORDS[tag].test(text));
  } else if (RAISES.test(text) || UNSATISFIED.test(text)) {
    // The question part of the reply names the worry; a need statement is not an objection.
    const sentences = text
      .split(/(?<=[.!?])\s+/)
      .filter((sentence) => RAISES.test(sentence) || UNSATISFIED.test(sentence));
    for (const sentence of sentences) {
      objection = OBJECTION_KINDS.find((kind) => OBJECTION_KEYWORDS[kind].test(sentence));
      if (objection) break;
    }
  }
  const interest = LOW.test(text) ? 'low' : HIGH.test(text) ? 'high' : MEDIUM.test(text) ? 'medium' : undefined;
  return {
    needs,
    scenario: SCENARIO.test(text),
    ...(objection ? { objection } : {}),
    ...(dealBreaker ? { dealBreaker } : {}),
    satisfied: SATISFIED.test(text),
    unsatisfied: UNSATISFIED.test(text),
    noDoubts: NO_DOUBTS.test(text),
    commits: COMMITS.test(text),
    leaves: LEAVES.test(text) && !COMMITS.test(text),
    hurry: HURRY.test(text),
    ...(interest ? { interest } : {}),
    annoyed: ANNOYED.test(text),
  };
}
