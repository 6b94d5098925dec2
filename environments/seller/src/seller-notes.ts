import type { BuyerCues } from './buyer-reply-reader';
import type { BuyerEvents } from './buyer-simulator';
import type { DealBreakerTag, Need, ObjectionKind } from './vocabulary';

/** An objection as the seller knows it: what was said, not what the buyer privately thinks. */
export interface NotedObjection {
  readonly kind: ObjectionKind | 'deal-breaker';
  readonly tag?: DealBreakerTag;
}

/**
 * What the seller side has learned in the dialogue (public knowledge): the needs the buyer named, whether
 * they told how they would use the product, the objection on the table, what was pitched. The simulated
 * executor writes from it; it also decides the dialogue phase.
 */
export interface SellerNotes {
  needs: Need[];
  scenario: boolean;
  pending: NotedObjection | undefined;
  objectionsRaised: number;
  pitched: Need[];
  introduced: boolean;
  greeted: boolean;
  noDoubts: boolean;
  committed: boolean;
}

export function emptyNotes(): SellerNotes {
  return {
    needs: [],
    scenario: false,
    pending: undefined,
    objectionsRaised: 0,
    pitched: [],
    introduced: false,
    greeted: false,
    noDoubts: false,
    committed: false,
  };
}

export function cloneNotes(notes: SellerNotes): SellerNotes {
  return { ...notes, needs: notes.needs.slice(), pitched: notes.pitched.slice() };
}

function addNeeds(notes: SellerNotes, needs: readonly Need[]): void {
  for (const need of needs) if (!notes.needs.includes(need)) notes.needs.push(need);
}

/** Updates the notes from the simulated buyer's events (exact). */
export function noteEvents(notes: SellerNotes, events: BuyerEvents): void {
  if (events.told) addNeeds(notes, events.told);
  if (events.scenario) notes.scenario = true;
  if (events.resolved) notes.pending = undefined;
  if (events.voiced) {
    notes.pending = { kind: events.voiced.kind, ...(events.voiced.tag ? { tag: events.voiced.tag } : {}) };
    notes.objectionsRaised += 1;
  }
  if (events.noDoubts) notes.noDoubts = true;
  if (events.committed) notes.committed = true;
}

/** Updates the notes from a reply's words (an LLM buyer): a best effort, as any seller listening would. */
export function noteCues(notes: SellerNotes, cues: BuyerCues): void {
  addNeeds(notes, cues.needs);
  if (cues.scenario) notes.scenario = true;
  if (cues.satisfied && !cues.unsatisfied) notes.pending = undefined;
  if (cues.dealBreaker) {
    notes.pending = { kind: 'deal-breaker', tag: cues.dealBreaker };
    notes.objectionsRaised += 1;
  } else if (cues.objection) {
    if (notes.pending?.kind !== cues.objection) notes.objectionsRaised += 1;
    notes.pending = { kind: cues.objection };
  }
  if (cues.noDoubts) notes.noDoubts = true;
  if (cues.commits) notes.committed = true;
}
