import type { Action, Agent, AgentEpisodeStart, Info } from '@turngym/spec';
import { readBuyerReply, type BuyerCues } from './buyer-reply-reader';
import { META_ACTION_CATALOGUE, type Intent } from './meta-actions';
import type { Product } from './seller-data';
import { emptyNotes, noteCues, type SellerNotes } from './seller-notes';
import { executeMetaAction } from './simulated-executor';

const HURRIED = /\b(hurry|rushing|checking the time|glancing at (his|her|their) watch|walking fast|jogging)\b/i;
/** Appearances of buyers who warm to questions about their life (friendly, emotional, shy). */
const WARM =
  /\b(smil\w*|laugh\w*|chatting|warmly|famil\w*|kids|twins|sentimental|humming|softly|avoids eye contact|hesitates)\b/i;

/**
 * The scripted expert: a good sales policy that reads only what any agent sees — the observation text and
 * info — never the buyer's hidden state. It greets (or gets straight to the point with a hurried buyer),
 * asks what matters, pitches to it, answers each objection as it comes, asks for remaining doubts, and
 * closes when none are left. Commander mode: it picks meta-actions by label; seller mode: it writes the
 * utterance from the product card in `info.product`, with the simulated executor's templates.
 */
export class SellerExpert implements Agent<string, Action> {
  readonly name = 'scripted';
  private commander = true;
  private labels: readonly string[] = [];
  private product: Product | undefined;
  private notes: SellerNotes = emptyNotes();
  private hurried = false;
  private warm = false;
  private asked = new Set<Intent>();
  private last: Intent | undefined;
  private lastCues: BuyerCues | undefined;
  private failedAnswers = 0;
  private round = 0;

  async start(episode: AgentEpisodeStart<string>): Promise<void> {
    const space = episode.spec.actionSpace;
    this.commander = space.type === 'discrete';
    this.labels = space.type === 'discrete' ? space.labels : [];
    this.product = episode.info.product as Product | undefined;
    if (!this.commander && !this.product)
      throw new Error('SellerExpert: seller mode needs info.product on reset (turngym/seller-v1).');
    const appearance = typeof episode.info.appearance === 'string' ? episode.info.appearance : episode.observation;
    this.notes = emptyNotes();
    this.hurried = HURRIED.test(appearance);
    this.warm = WARM.test(appearance);
    this.asked = new Set();
    this.last = undefined;
    this.lastCues = undefined;
    this.failedAnswers = 0;
    this.round = 0;
  }

  async act(observation: string, info: Info): Promise<Action> {
    if (this.round > 0) this.read(observation);
    const roundsLeft = typeof info.roundsLeft === 'number' ? info.roundsLeft : Number.POSITIVE_INFINITY;
    const intent = this.available(this.decide(roundsLeft));
    this.asked.add(intent);
    this.last = intent;
    this.round += 1;
    if (this.commander) return this.indexOf(intent);
    const said = executeMetaAction(intent, this.product as Product, this.notes);
    if (intent === 'introduce') {
      this.notes.introduced = true;
      this.notes.pitched.push(...said.move.pitched);
    }
    return said.text;
  }

  private read(observation: string): void {
    const line = observation.split('\n').find((each) => each.startsWith('Buyer: '));
    const cues = readBuyerReply(line ? line.slice('Buyer: '.length) : observation);
    const pendingBefore = this.notes.pending;
    noteCues(this.notes, cues);
    if (cues.hurry) this.hurried = true;
    if (this.last === 'answer-doubts' && pendingBefore && (cues.unsatisfied || !cues.satisfied))
      this.failedAnswers += 1;
    if (cues.satisfied) this.failedAnswers = 0;
    if (this.last === 'introduce') this.notes.introduced = true;
    this.lastCues = cues;
  }

  private decide(roundsLeft: number): Intent {
    const notes = this.notes;
    if (this.round === 0) return this.hurried ? 'introduce' : 'greet';
    if (notes.pending) {
      // An answer that did not land: show understanding (after learning how they would use it, which is what
      // meets a doubt about price or need), then try once more; a buyer who likes the seller may let it go.
      if (this.failedAnswers === 0) return 'answer-doubts';
      if (this.last === 'answer-doubts' && this.failedAnswers <= 2) {
        const valueDoubt = notes.pending.kind === 'price' || notes.pending.kind === 'need';
        return valueDoubt && !notes.scenario && !this.asked.has('ask-scenario') ? 'ask-scenario' : 'empathize';
      }
      return this.failedAnswers <= 2 ? 'answer-doubts' : 'press';
    }
    if (roundsLeft <= 1 || notes.noDoubts) return notes.introduced ? 'press' : 'introduce';
    if (this.hurried) {
      if (!notes.introduced) return 'introduce';
      if (!this.asked.has('ask-doubts') || this.last === 'answer-doubts') return 'ask-doubts';
      return 'press';
    }
    if (notes.needs.length === 0 && !this.asked.has('ask-requirements')) return 'ask-requirements';
    if (!notes.introduced) return 'introduce';
    if (this.warm && !notes.scenario && !this.asked.has('ask-scenario')) return 'ask-scenario';
    if (this.warm && !this.asked.has('empathize')) return 'empathize';
    if (this.lastCues?.annoyed && this.last === 'press') return 'empathize';
    if (this.last !== 'ask-doubts') return 'ask-doubts';
    return 'press';
  }

  /** The intent, or the closest one this action set offers. */
  private available(intent: Intent): Intent {
    if (this.commander && this.labels.indexOf(META_ACTION_CATALOGUE[intent].label) < 0) {
      const fallback: Intent[] = ['ask-doubts', 'empathize', 'introduce', 'press'];
      return fallback.find((each) => this.labels.includes(META_ACTION_CATALOGUE[each].label)) ?? intent;
    }
    return intent;
  }

  private indexOf(intent: Intent): number {
    const index = this.labels.indexOf(META_ACTION_CATALOGUE[intent].label);
    return index < 0 ? 0 : index;
  }
}
