import { foldLookAlikes } from './fold-look-alikes';
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
// How LLM buyers order too ("how can I pay?", "I'll take one", "it's a deal"): read as no decision before, their
// sales ran on to a lost one at the round limit.
const COMMITS =
  /\b(how (do|can) i (order|buy|pay|get one)|i'll (take|buy|get) (it|one)|i will (take|buy|get) (it|one)|where (do|can) i (pay|sign|order|buy one)|i want to buy|i'd like to (buy|order)|i would like to (buy|order)|sign me up|(it's|you've got) a deal)\b/i;
/**
 * Words that, earlier in the clause, turn a purchase phrase into its opposite or into a maybe: a negation ("I'm
 * not sure I'll take it"), a hedge ("maybe I'll buy it"), a condition ("if it were cheaper, I'll take it") or a
 * question about buying ("why would I want to buy it?"). Polite modals stay out: "could you tell me how do I pay?"
 */
const UNDOES_COMMIT_BEFORE =
  /\b(not|never|no way|maybe|perhaps|might|if|unless|once|until|why|what if|doubt|wonder)\b|n't\b/i;
const CONDITION = /\b(if|unless)\b/i;
/** A purchase said as a statement ("I'll take it"), which a question mark turns into a question: "Would I want to buy it?" */
const STATED_COMMIT = /^(i|sign|it's|you've)\b/i;
/** Words that, later in the clause, put the purchase off: "I'll buy it some other time". */
const UNDOES_COMMIT_AFTER =
  /\b(later|some ?day|one day|another time|other time|next time|tomorrow|next week|someday|if|unless|once|when)\b/i;
/** Saying no to the purchase anywhere in the reply: "How do I pay? I'm not paying that much!" is no order. */
const DECLINES =
  /\b(not (going to |gonna )?(buy|buying|pay|paying|take|taking|order|ordering)|won't (buy|pay|take|order)|(don't|do not) want (it|one|to buy)|no,? thanks|no thank you)\b/i;
const LOOK_BACK = 300;
/** Where a clause of a reply ends. */
const CLAUSE_END = /[.!?;,:\u2014]|\s-\s|\bbut\b/i;

/**
 * The buyer asks to buy: a purchase phrase that nothing around it in its clause undoes, in a reply that does not
 * also say no. A match anywhere counted before, and an LLM buyer's "Maybe I'll buy it some other time. Goodbye."
 * or "Why would I want to buy it from a stranger?" was a sale (+1) for the simulated judge reading the words.
 */
function commitsToBuy(text: string): boolean {
  if (DECLINES.test(text)) return false;
  const phrases = new RegExp(COMMITS.source, 'gi');
  for (let match = phrases.exec(text); match !== null; match = phrases.exec(text)) {
    // A clause or a sentence is short: looking further back made a long reply of repeated phrases quadratic.
    const before = text.slice(Math.max(0, match.index - LOOK_BACK), match.index);
    const clauseStart = lastClauseEnd(before);
    const after = text.slice(match.index + match[0].length, match.index + match[0].length + LOOK_BACK);
    const clauseEnd = after.search(CLAUSE_END);
    const clauseBefore = before.slice(clauseStart);
    const clauseAfter = clauseEnd < 0 ? after : after.slice(0, clauseEnd);
    // A condition holds over the whole sentence ("If it were cheaper, I'll take it"), up to a "but".
    const sentenceBefore = before.slice(
      Math.max(before.lastIndexOf('.'), before.lastIndexOf('!'), before.lastIndexOf('?')) + 1,
    );
    const conditional = CONDITION.test(sentenceBefore.split(/\bbut\b/i).pop() as string);
    const sentenceEnd = /[.!?]/.exec(after);
    const asked = STATED_COMMIT.test(match[0]) && sentenceEnd?.[0] === '?';
    if (!asked && !conditional && !UNDOES_COMMIT_BEFORE.test(clauseBefore) && !UNDOES_COMMIT_AFTER.test(clauseAfter))
      return true;
  }
  return false;
}

/** Where the clause that `before` ends in starts (after the last clause end), 0 for the first. */
function lastClauseEnd(before: string): number {
  const ends = new RegExp(CLAUSE_END.source, 'gi');
  let start = 0;
  for (let match = ends.exec(before); match !== null; match = ends.exec(before)) start = match.index + match[0].length;
  return start;
}

const APOSTROPHES = /[\u2018\u2019\u02bc]/g;
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
export function readBuyerReply(reply: string): BuyerCues {
  // Models write typographic apostrophes ("I’ll take it"), which the phrases below, in ASCII, missed: a buyer's
  // order was read as no decision and the sale was lost at the round limit. Look-alike letters of other scripts
  // ("I'm nоt paying" with a Cyrillic о) are read as the letters they show, or a refusal read as an order.
  const text = foldLookAlikes(reply).replace(APOSTROPHES, "'");
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
  const commits = commitsToBuy(text);
  const interest = LOW.test(text) ? 'low' : HIGH.test(text) ? 'high' : MEDIUM.test(text) ? 'medium' : undefined;
  return {
    needs,
    scenario: SCENARIO.test(text),
    ...(objection ? { objection } : {}),
    ...(dealBreaker ? { dealBreaker } : {}),
    satisfied: SATISFIED.test(text),
    unsatisfied: UNSATISFIED.test(text),
    noDoubts: NO_DOUBTS.test(text),
    commits,
    leaves: LEAVES.test(text) && !commits,
    hurry: HURRY.test(text),
    ...(interest ? { interest } : {}),
    annoyed: ANNOYED.test(text),
  };
}
