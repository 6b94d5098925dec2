import type { SeededRng } from '@turngym/core';
import type { UtteranceIntent } from './meta-actions';
import type { Persona, Product, SellingPoint } from './seller-data';
import {
  DEAL_BREAKER_PHRASES,
  NEED_PHRASES,
  OBJECTION_CLASHES,
  OBJECTION_TOPICS,
  type DealBreakerTag,
  type Need,
  type ObjectionKind,
  type Temperament,
} from './vocabulary';

/**
 * The embedded buyer: a persona with hidden needs, a budget, a temperament, objections (some voiced on their
 * own, some only when asked) and hidden deal-breakers, and a purchase-propensity state that reacts to what
 * the seller does. Meeting the real objection with the right move helps; threats, pressure before the buyer
 * is ready, and repetition hurt. Every random draw (the seeded noise term) comes from the episode's stream,
 * so a fork that clones the stream continues identically.
 */

/** What the seller did, as the buyer perceives it. */
export interface SellerMove {
  readonly intent: UtteranceIntent;
  /** Needs the utterance pitched that the product serves (only the first two count). */
  readonly pitched: readonly Need[];
  /**
   * What an answer speaks to (seller-v1 reads it from the words). Undefined: the answer is about the
   * pending objection (the commander's executor follows the meta-action strictly).
   */
  readonly addresses?: { readonly kinds: readonly ObjectionKind[]; readonly tags: readonly DealBreakerTag[] };
  /** A pitch that lists four or more needs at once: a laundry list is less credible. */
  readonly laundryList?: boolean;
  /** An utterance past the length limit: a speech. */
  readonly tooLong?: boolean;
}

export type ObjectionStatus = 'latent' | 'queued' | 'voiced' | 'resolved';

export interface Objection {
  /** An objection kind, or a deal-breaker (with its tag). */
  readonly kind: ObjectionKind | 'deal-breaker';
  readonly tag?: DealBreakerTag;
  /** latent: voiced only when asked or pressed; queued: voiced on its own once the product is introduced. */
  status: ObjectionStatus;
}

export interface BuyerState {
  /** Purchase propensity, 0–1. */
  propensity: number;
  /** Attitude towards the seller, −1–1. */
  mood: number;
  /** Turns the buyer is willing to stay; 0 means they leave. */
  patience: number;
  /** Propensity at which they decide to buy (seeded per episode). */
  threshold: number;
  turns: number;
  greeted: boolean;
  introduced: boolean;
  /** Needs the buyer has told the seller, in the order told. */
  told: Need[];
  scenarioTold: boolean;
  /** Needs the seller has pitched. */
  pitched: Need[];
  objections: Objection[];
  lastIntent: UtteranceIntent | undefined;
  noDoubtsSaid: boolean;
  hurrySaid: boolean;
  committed: boolean;
  left: boolean;
}

/** What a reply told the seller, so the seller's notes need not be parsed back from the text. */
export interface BuyerEvents {
  told?: readonly Need[];
  scenario?: boolean;
  voiced?: Objection;
  resolved?: Objection;
  noDoubts?: boolean;
  hurry?: boolean;
  committed?: boolean;
  left?: boolean;
}

export interface BuyerReply {
  readonly text: string;
  readonly events: BuyerEvents;
}

interface Traits {
  readonly patience: number;
  readonly mood: number;
  /** Mood from a greeting as the first move. */
  readonly greet: number;
  /** Mood when the first move is anything but a greeting (an impatient buyer likes directness). */
  readonly skipGreet: number;
  /** Multiplier on what empathy gains. */
  readonly empathy: number;
  /** Mood from a discovery question (requirements, scenario). */
  readonly discovery: number;
  /** Extra patience a discovery question costs. */
  readonly questionCost: number;
  /** Multiplier on the harm of pressure. */
  readonly pressHarm: number;
  /** Multiplier on what a pitch gains. */
  readonly pitch: number;
  /** Multiplier on what a good answer gains. */
  readonly answer: number;
  /** Keeps every objection to themself until asked. */
  readonly hidesObjections: boolean;
  /** Probability of walking away at a threat. */
  readonly fleeOnThreat: number;
}

export const TEMPERAMENT_TRAITS: Readonly<Record<Temperament, Traits>> = {
  friendly: {
    patience: 12,
    mood: 0.15,
    greet: 0.15,
    skipGreet: -0.1,
    empathy: 1.2,
    discovery: 0.05,
    questionCost: 0,
    pressHarm: 1,
    pitch: 1.1,
    answer: 1,
    hidesObjections: false,
    fleeOnThreat: 0.85,
  },
  skeptical: {
    patience: 9,
    mood: -0.1,
    greet: 0.05,
    skipGreet: -0.05,
    empathy: 0.7,
    discovery: 0.02,
    questionCost: 0,
    pressHarm: 1.3,
    pitch: 0.9,
    answer: 1.4,
    hidesObjections: false,
    fleeOnThreat: 1,
  },
  impatient: {
    patience: 5,
    mood: 0,
    greet: 0,
    skipGreet: 0.05,
    empathy: 0.6,
    discovery: -0.08,
    questionCost: 1,
    pressHarm: 0.3,
    pitch: 1.2,
    answer: 1,
    hidesObjections: false,
    fleeOnThreat: 1,
  },
  analytical: {
    patience: 10,
    mood: 0,
    greet: 0.05,
    skipGreet: 0,
    empathy: 0.5,
    discovery: 0.06,
    questionCost: 0,
    pressHarm: 1.2,
    pitch: 1,
    answer: 1.3,
    hidesObjections: false,
    fleeOnThreat: 1,
  },
  shy: {
    patience: 10,
    mood: 0,
    greet: 0.1,
    skipGreet: -0.1,
    empathy: 1.4,
    discovery: 0.04,
    questionCost: 0,
    pressHarm: 1.5,
    pitch: 0.9,
    answer: 1,
    hidesObjections: true,
    fleeOnThreat: 0.6,
  },
  emotional: {
    patience: 11,
    mood: 0.1,
    greet: 0.12,
    skipGreet: -0.08,
    empathy: 1.6,
    discovery: 0.06,
    questionCost: 0,
    pressHarm: 1.2,
    pitch: 0.9,
    answer: 0.9,
    hidesObjections: false,
    fleeOnThreat: 0.85,
  },
  thrifty: {
    patience: 9,
    mood: 0,
    greet: 0.05,
    skipGreet: 0,
    empathy: 0.8,
    discovery: 0.03,
    questionCost: 0,
    pressHarm: 1,
    pitch: 1,
    answer: 1.1,
    hidesObjections: false,
    fleeOnThreat: 0.9,
  },
};

/** Propensity a pitch of the buyer's need of rank 0, 1, 2, 3 adds; a need they do not have adds PITCH_MISS. */
const PITCH_GAIN = [0.16, 0.11, 0.08, 0.06] as const;
const PITCH_MISS = 0.04;
/** A press commits a buyer whose propensity is within this of the threshold. */
const PRESS_MARGIN = 0.15;
/** A buyer commits on their own this far above the threshold. */
const SPONTANEOUS_MARGIN = 0.1;
/** Each latent (unspoken) doubt lowers the propensity a spontaneous decision sees. */
const LATENT_DRAG = 0.08;
/** Below this mood the buyer neither commits nor stays. */
const MOOD_FLOOR = -0.15;
const MOOD_LEAVE = -0.6;
/** A generic answer (no product fact) resolves an objection only with a buyer in at least this mood. */
const WEAK_ANSWER_MOOD = 0.2;

const clamp = (value: number, low: number, high: number): number => (value < low ? low : value > high ? high : value);

/** The selling point that answers a weakness objection by serving the need the weakness clashes with. */
export function clashAnswer(product: Product, kind: ObjectionKind): SellingPoint | undefined {
  const needs = OBJECTION_CLASHES[kind];
  return needs ? product.sellingPoints.find((point) => needs.includes(point.need)) : undefined;
}

/** How far the price is above the budget; at most 1.6 for a task (see MAX_PRICE_RATIO). */
export function priceRatio(persona: Persona, product: Product): number {
  return product.price / persona.budget;
}

/** The objections this buyer has about this product, in the order they would come up. */
export function objectionsFor(persona: Persona, product: Product): Objection[] {
  const traits = TEMPERAMENT_TRAITS[persona.temperament];
  const out: Objection[] = [];
  const has = (kind: ObjectionKind): boolean => out.some((objection) => objection.kind === kind);
  const add = (kind: ObjectionKind, hidden: boolean): void => {
    if (!has(kind)) out.push({ kind, status: hidden || traits.hidesObjections ? 'latent' : 'queued' });
  };
  // The price is on the table as soon as the product is: over budget, it comes up on its own.
  if (priceRatio(persona, product) > 1) add('price', false);
  for (const objection of persona.objections) add(objection.kind, objection.hidden);
  for (const weakness of product.weaknesses) {
    const clashes = OBJECTION_CLASHES[weakness.objection] ?? [];
    if (clashes.some((need) => persona.needs.includes(need))) add(weakness.objection, false);
  }
  for (const tag of persona.dealBreakers) {
    if (product.tags.includes(tag)) out.push({ kind: 'deal-breaker', tag, status: 'latent' });
  }
  return out;
}

/** A fresh buyer for this persona and product; draws the seeded noise of the episode from `rng`. */
export function createBuyerState(persona: Persona, product: Product, rng: SeededRng, noise: number): BuyerState {
  const traits = TEMPERAMENT_TRAITS[persona.temperament];
  const served = persona.needs.filter((need) => product.sellingPoints.some((point) => point.need === need)).length;
  return {
    propensity: clamp(0.6 * persona.openness + 0.03 * served + 0.5 * noise * rng.normal(), 0.02, 0.5),
    mood: traits.mood,
    patience: Math.max(2, traits.patience + Math.round(5 * noise * rng.normal())),
    threshold: clamp(0.68 + 0.3 * noise * rng.normal(), 0.58, 0.8),
    turns: 0,
    greeted: false,
    introduced: false,
    told: [],
    scenarioTold: false,
    pitched: [],
    objections: objectionsFor(persona, product),
    lastIntent: undefined,
    noDoubtsSaid: false,
    hurrySaid: false,
    committed: false,
    left: false,
  };
}

/** A deep copy, for native forks. */
export function cloneBuyerState(state: BuyerState): BuyerState {
  return {
    ...state,
    told: state.told.slice(),
    pitched: state.pitched.slice(),
    objections: state.objections.map((objection) => ({ ...objection })),
  };
}

/** The sentence with which the buyer raises an objection. */
export function objectionLine(objection: Objection, product: Product): string {
  if (objection.kind === 'deal-breaker') {
    return `One thing though: I would never buy anything that ${DEAL_BREAKER_PHRASES[objection.tag as DealBreakerTag]}.`;
  }
  switch (objection.kind) {
    case 'price':
      return `Hmm, ${product.price} dollars is more than I wanted to spend.`;
    case 'trust':
      return "How do I know this isn't some street scam?";
    case 'need':
      return "Honestly, I'm not sure I even need one.";
    case 'quality':
      return 'Will it break after a month?';
    case 'complexity':
      return 'It sounds complicated to use.';
    case 'size':
      return "Isn't it too bulky and heavy for me?";
    case 'maintenance':
      return 'What about the upkeep, cleaning and repairs?';
    case 'compatibility':
      return 'Will it even work with my phone and my things?';
    case 'noise':
      return "Isn't it loud?";
    case 'runtime':
      return "The battery won't last, will it?";
  }
}

export function objectionTopic(objection: Objection): string {
  return objection.kind === 'deal-breaker'
    ? `that it ${DEAL_BREAKER_PHRASES[objection.tag as DealBreakerTag]}`
    : OBJECTION_TOPICS[objection.kind];
}

const GREETINGS: Readonly<Record<Temperament, string>> = {
  friendly: 'Hi there! Sure, I have a minute.',
  skeptical: 'Hello... what are you selling?',
  impatient: "Hi. I'm in a hurry, so make it quick.",
  analytical: 'Hello. What is it?',
  shy: 'Um... hi.',
  emotional: 'Oh, hello! What a lovely day, isn’t it?',
  thrifty: "Hello. I don't often buy things on the street.",
};

/**
 * The simulated buyer. Stateless itself: `react` updates the `BuyerState` it is given, so one instance
 * serves every episode and fork.
 */
export class BuyerSimulator {
  constructor(
    readonly persona: Persona,
    readonly product: Product,
  ) {}

  private get traits(): Traits {
    return TEMPERAMENT_TRAITS[this.persona.temperament];
  }

  /** The first pending (voiced, unresolved) objection, the one an answer is about. */
  static pending(state: BuyerState): Objection | undefined {
    for (let i = state.objections.length - 1; i >= 0; i--) {
      const objection = state.objections[i] as Objection;
      if (objection.status === 'voiced') return objection;
    }
    return undefined;
  }

  /**
   * How well an answer can meet this objection: `strong` with a product fact that answers it, `weak` with
   * generic reassurance only (it lands if the buyer already trusts the seller), `none` when nothing can.
   */
  answerQuality(state: BuyerState, objection: Objection): 'strong' | 'weak' | 'none' {
    if (this.answerable(state, objection)) return 'strong';
    if (objection.kind === 'deal-breaker' || objection.kind === 'price') return 'none';
    return 'weak';
  }

  /** Can the seller honestly meet this objection with a product fact, in this state? */
  answerable(state: BuyerState, objection: Objection): boolean {
    const { product, persona } = this;
    if (objection.kind === 'deal-breaker') return product.mitigations[objection.tag as DealBreakerTag] !== undefined;
    if (objection.kind === 'price') {
      const ratio = priceRatio(persona, product);
      const answer = product.answers.price !== undefined;
      // Over budget, an argument about value works only on a buyer who already wants the product.
      if (ratio <= 1) return answer || state.propensity >= 0.4;
      if (ratio <= 1.25) return answer && state.propensity >= 0.45;
      return answer && state.propensity >= 0.6;
    }
    if (objection.kind === 'need') {
      return product.answers.need !== undefined || state.told.some((need) => this.serves(need));
    }
    // A weakness can also be met by the selling point that serves the need it clashes with ("it is light").
    return product.answers[objection.kind] !== undefined || clashAnswer(product, objection.kind) !== undefined;
  }

  private serves(need: Need): boolean {
    return this.product.sellingPoints.some((point) => point.need === need);
  }

  /** One turn: the buyer hears `move` and replies. Mutates `state`. */
  react(state: BuyerState, move: SellerMove, rng: SeededRng, noise: number): BuyerReply {
    const traits = this.traits;
    const parts: string[] = [];
    const events: BuyerEvents = {};
    const first = state.turns === 0;
    const repeated =
      move.intent === state.lastIntent && !(move.intent === 'answer-doubts' && BuyerSimulator.pending(state));
    let gain = 0; // propensity change before repetition and noise
    let mood = 0;
    let patience = 1; // time passes
    state.turns += 1;
    // A noisy multiplier on what a move gains: the same move does not land the same way every time.
    const jitter = (): number => Math.max(0, 1 + noise * rng.normal());

    if (first && move.intent !== 'greet') mood += traits.skipGreet;

    switch (move.intent) {
      case 'greet': {
        if (first) {
          state.greeted = true;
          mood += traits.greet;
          gain += 0.02;
          parts.push(GREETINGS[this.persona.temperament]);
          if (this.persona.temperament === 'impatient') state.hurrySaid = events.hurry = true;
        } else if (state.greeted) {
          mood -= 0.08;
          patience += 1;
          parts.push("We've already said hello.");
        } else {
          state.greeted = true;
          mood += traits.greet / 2;
          parts.push('Hello, yes.');
        }
        break;
      }
      case 'introduce': {
        const fresh = move.pitched.filter((need) => !state.pitched.includes(need)).slice(0, 2);
        if (!state.introduced || fresh.length > 0) {
          gain += this.pitchGain(state, fresh) * (state.introduced ? 0.6 : 1) * (move.laundryList ? 0.5 : 1) * jitter();
          state.introduced = true;
          state.pitched.push(...fresh);
          parts.push(this.reaction(state.propensity + gain));
        } else {
          mood -= 0.05;
          patience += 1;
          parts.push('You told me that already.');
        }
        break;
      }
      case 'ask-requirements': {
        const untold = this.persona.needs.filter((need) => !state.told.includes(need));
        const tell = state.told.length === 0 ? untold.slice(0, 2) : untold.slice(0, 1);
        if (tell.length > 0) {
          state.told.push(...tell);
          events.told = tell;
          mood += traits.discovery;
          gain += 0.02;
          patience += traits.questionCost;
          parts.push(`What matters most to me is ${tell.map((need) => NEED_PHRASES[need]).join(' and ')}.`);
        } else {
          mood -= 0.08;
          patience += 1;
          parts.push('I already told you what I care about.');
        }
        break;
      }
      case 'ask-scenario': {
        if (!state.scenarioTold) {
          state.scenarioTold = events.scenario = true;
          const top = this.persona.needs[0] as Need;
          if (!state.told.includes(top)) {
            state.told.push(top);
            events.told = [top];
          }
          const warm =
            this.persona.temperament === 'emotional' ||
            this.persona.temperament === 'friendly' ||
            this.persona.temperament === 'shy';
          mood += traits.discovery + (warm ? 0.04 : 0);
          gain += warm ? 0.03 : 0.01;
          patience += traits.questionCost;
          parts.push(`I'd mostly use it ${this.persona.scenario}, so ${NEED_PHRASES[top]} matters.`);
        } else {
          mood -= 0.08;
          patience += 1;
          parts.push('I just told you how I would use it.');
        }
        break;
      }
      case 'empathize': {
        let value = 0.03 + (state.scenarioTold ? 0.06 : 0) + (state.told.some((need) => this.serves(need)) ? 0.04 : 0);
        if (!state.introduced) value *= 0.5;
        gain += value * traits.empathy * jitter();
        mood += 0.05 * traits.empathy;
        const pending = BuyerSimulator.pending(state);
        if (pending && this.empathyResolves(state, pending)) {
          pending.status = 'resolved';
          events.resolved = pending;
          parts.push('You know, you have a point.');
        } else if (pending) {
          parts.push(`I hear you, but I'm still worried about ${objectionTopic(pending)}.`);
        } else {
          parts.push(this.reaction(state.propensity + gain));
        }
        break;
      }
      case 'answer-doubts':
      case 'social-proof':
      case 'offer-trial': {
        const pending = BuyerSimulator.pending(state);
        if (move.intent === 'answer-doubts' && !pending) {
          // Answering doubts nobody raised sounds like a script, and plants the doubt it denies.
          mood -= 0.1;
          gain -= 0.05;
          patience += 1;
          parts.push("What doubts? I haven't said I have any.");
          break;
        }
        const quality = pending ? this.meets(state, pending, move) : 'none';
        if (pending && quality === 'strong') {
          pending.status = 'resolved';
          events.resolved = pending;
          gain += (pending.kind === 'deal-breaker' ? 0.14 : 0.12) * traits.answer * jitter();
          mood += 0.05;
          parts.push(pending.kind === 'deal-breaker' ? 'Oh, then that is fine.' : 'Okay, that makes sense.');
          break;
        }
        if (pending && quality === 'weak' && state.mood >= WEAK_ANSWER_MOOD) {
          // No fact answers it, but a seller the buyer likes is given the benefit of the doubt.
          pending.status = 'resolved';
          events.resolved = pending;
          gain += 0.02;
          parts.push('Well, okay, I suppose that makes sense.');
          break;
        }
        if (pending && move.intent === 'answer-doubts') {
          if (pending.kind === 'deal-breaker') {
            state.left = events.left = true;
            parts.push(`Sorry, ${objectionTopic(pending)} is a deal-breaker for me. Goodbye.`);
            break;
          }
          gain -= 0.03;
          mood -= 0.05;
          parts.push(`That doesn't really answer my concern about ${objectionTopic(pending)}.`);
          break;
        }
        // Social proof or a trial offered when it answers nothing pending: a small general nudge.
        const nudge =
          move.intent === 'offer-trial'
            ? this.product.trialDays > 0
              ? 0.04
              : 0
            : this.product.reviews.count >= 500
              ? 0.03
              : 0.01;
        const taste =
          this.persona.temperament === 'skeptical'
            ? 0.5
            : this.persona.temperament === 'analytical'
              ? 0.7
              : this.persona.temperament === 'friendly' || this.persona.temperament === 'emotional'
                ? 1.3
                : 1;
        gain += nudge * taste * (state.introduced ? 1 : 0.3) * jitter();
        parts.push(
          pending ? `Fine, but what about ${objectionTopic(pending)}?` : this.reaction(state.propensity + gain),
        );
        break;
      }
      case 'ask-doubts': {
        const pending = BuyerSimulator.pending(state);
        const next =
          state.objections.find((objection) => objection.status === 'latent') ??
          state.objections.find((objection) => objection.status === 'queued');
        if (pending) {
          mood -= 0.03;
          patience += 1;
          parts.push(`As I said, I'm worried about ${objectionTopic(pending)}.`);
        } else if (!state.introduced) {
          // Doubts about what? Nothing has been offered yet.
          mood -= 0.03;
          patience += 1;
          parts.push("Doubts about what? You haven't told me what you are selling.");
        } else if (next) {
          mood +=
            this.persona.temperament === 'skeptical' ? 0.05 : this.persona.temperament === 'analytical' ? 0.04 : 0.03;
          this.voice(state, next, parts, events);
        } else if (!state.noDoubtsSaid) {
          state.noDoubtsSaid = events.noDoubts = true;
          gain += 0.05;
          parts.push('No, I think that covers everything.');
        } else {
          mood -= 0.08;
          gain -= 0.03;
          patience += 1;
          parts.push('I told you, I have no more questions.');
        }
        break;
      }
      case 'threaten': {
        gain -= 0.45;
        mood -= 0.7;
        if (rng.next() < traits.fleeOnThreat) {
          state.left = events.left = true;
          parts.push("What?! Are you threatening me? I'm calling the police. Goodbye.");
        } else {
          parts.push('W-what? Please, leave me alone...');
        }
        break;
      }
      case 'press': {
        const pending = BuyerSimulator.pending(state);
        const unspoken = state.objections.find(
          (objection) => objection.status === 'latent' || objection.status === 'queued',
        );
        if (pending) {
          gain -= 0.08;
          mood -= 0.2 * traits.pressHarm;
          patience += 1;
          parts.push(`You haven't even answered my question about ${objectionTopic(pending)}!`);
        } else if (unspoken && state.introduced) {
          // Pressed for a decision, the buyer says what still holds them back.
          gain -= 0.04;
          mood -= 0.1 * traits.pressHarm;
          parts.push('Hold on.');
          this.voice(state, unspoken, parts, events);
        } else if (
          state.introduced &&
          state.propensity >= state.threshold - PRESS_MARGIN &&
          state.mood + mood > MOOD_FLOOR
        ) {
          state.committed = events.committed = true;
          parts.push("Alright, you've convinced me. How do I order one?");
        } else {
          gain -= 0.1 * traits.pressHarm;
          mood -= 0.15 * traits.pressHarm;
          patience += 1;
          parts.push(state.introduced ? "Don't rush me." : "Decide what? You haven't even told me what it is.");
        }
        break;
      }
      case 'other':
      case 'silence': {
        mood -= 0.03;
        patience += 1;
        parts.push(move.intent === 'silence' ? '...? Did you want something?' : 'Sorry, what do you mean?');
        break;
      }
    }

    if (repeated && !state.left) {
      // Saying the same kind of thing twice in a row: it lands less and wears the buyer down.
      if (gain > 0) gain *= 0.3;
      mood -= 0.05;
      patience += 1;
    }
    if (move.tooLong) {
      mood -= 0.05;
      patience += 1;
      parts.push("That's a lot of talking.");
    }
    state.propensity = clamp(state.propensity + gain, 0, 1);
    state.mood = clamp(state.mood + mood, -1, 1);
    state.patience -= patience;
    state.lastIntent = move.intent;

    if (!state.left && !state.committed) {
      if (this.decidesToBuy(state)) {
        state.committed = events.committed = true;
        parts.push("You know what? I'll take it. How do I order one?");
      } else if (state.patience <= 0) {
        state.left = events.left = true;
        parts.push('Sorry, I really have to go now. Goodbye.');
      } else if (state.mood <= MOOD_LEAVE || state.propensity <= 0.02) {
        state.left = events.left = true;
        parts.push("I'm not interested. Goodbye.");
      } else {
        if (state.introduced && !BuyerSimulator.pending(state) && events.voiced === undefined) {
          const queued = state.objections.find((objection) => objection.status === 'queued');
          if (queued) this.voice(state, queued, parts, events);
        }
        if (this.persona.temperament === 'impatient' && !state.hurrySaid) {
          state.hurrySaid = events.hurry = true;
          parts.push("I'm in a hurry, so make it quick.");
        }
      }
    }
    return { text: parts.join(' '), events };
  }

  private pitchGain(state: BuyerState, needs: readonly Need[]): number {
    const trustPending = state.objections.some(
      (objection) => objection.kind === 'trust' && objection.status !== 'resolved',
    );
    let gain = 0;
    for (const need of needs) {
      const rank = this.persona.needs.indexOf(need);
      gain += rank < 0 ? PITCH_MISS : (PITCH_GAIN[rank] ?? PITCH_MISS);
    }
    // A generic pitch (no need pitched) still tells the buyer what the product is.
    if (needs.length === 0) gain = PITCH_MISS;
    const skeptic = this.persona.temperament === 'skeptical' && trustPending ? 0.5 : 1;
    return gain * this.traits.pitch * skeptic;
  }

  private empathyResolves(state: BuyerState, objection: Objection): boolean {
    // A buyer who wants the product enough lets a doubt go when the seller shows they understand it.
    if (objection.kind !== 'deal-breaker' && state.propensity >= state.threshold) return true;
    if (objection.kind === 'need') return state.scenarioTold || state.told.some((need) => this.serves(need));
    if (objection.kind === 'price')
      return state.scenarioTold && priceRatio(this.persona, this.product) <= 1.25 && this.answerable(state, objection);
    return false;
  }

  /** How well this move meets the pending objection. */
  private meets(state: BuyerState, objection: Objection, move: SellerMove): 'strong' | 'weak' | 'none' {
    const { product } = this;
    if (move.intent === 'social-proof') {
      const fits =
        (objection.kind === 'trust' || objection.kind === 'quality') &&
        product.reviews.count >= 500 &&
        product.reviews.rating >= 4.2;
      return fits ? 'strong' : 'none';
    }
    if (move.intent === 'offer-trial') {
      const fits =
        product.trialDays > 0 &&
        (objection.kind === 'quality' ||
          objection.kind === 'need' ||
          objection.kind === 'complexity' ||
          objection.kind === 'trust');
      return fits ? 'strong' : 'none';
    }
    if (move.addresses) {
      const spoken =
        objection.kind === 'deal-breaker'
          ? move.addresses.tags.includes(objection.tag as DealBreakerTag)
          : move.addresses.kinds.includes(objection.kind);
      if (!spoken) return 'none';
    }
    return this.answerQuality(state, objection);
  }

  private voice(state: BuyerState, objection: Objection, parts: string[], events: BuyerEvents): void {
    objection.status = 'voiced';
    events.voiced = objection;
    parts.push(objectionLine(objection, this.product));
    if (objection.kind === 'deal-breaker' && !this.answerable(state, objection)) {
      // A deal-breaker the product cannot defuse ends the conversation the moment it comes up.
      state.left = events.left = true;
      parts.push('So this is not for me. Goodbye.');
    }
  }

  private decidesToBuy(state: BuyerState): boolean {
    if (!state.introduced || state.mood <= MOOD_FLOOR) return false;
    let latent = 0;
    for (const objection of state.objections) {
      if (objection.status === 'voiced' || objection.status === 'queued') return false;
      if (objection.status === 'latent') {
        if (objection.kind === 'deal-breaker') return false;
        latent += 1;
      }
    }
    return state.propensity - LATENT_DRAG * latent >= state.threshold + SPONTANEOUS_MARGIN;
  }

  private reaction(propensity: number): string {
    if (propensity < 0.3) return "Hmm, I'm not sure it's for me.";
    if (propensity < 0.55) return 'That sounds interesting.';
    return 'I really like the sound of that.';
  }
}
