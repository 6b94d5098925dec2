import { readBuyerReply } from './buyer-reply-reader';
import { BuyerSimulator, type BuyerState } from './buyer-simulator';
import type { JudgeVerdict } from './judge-verdict';

/** Interest: the buyer's propensity is at least this. */
const INTEREST = 0.35;
/** Purchase signals: within this of the buyer's decision threshold, with no open objection. */
const SIGNAL_MARGIN = 0.2;
const ATTITUDE_FLOOR = -0.15;

function rubric(interest: boolean, attitude: boolean, signals: boolean, order: boolean): string {
  const mark = (value: boolean): string => (value ? 'yes' : 'no');
  return `interest ${mark(interest)}, attitude ${mark(attitude)}, purchase signals ${mark(signals)}, asks how to order ${mark(order)}`;
}

/**
 * The simulated judge (ALGORITHMS.md §5's rubric) reading the simulated buyer's state: one point each for
 * interest, a positive attitude, purchase signals and asking how to order; "buy" only at 4, "refuse" when the
 * buyer has walked away, otherwise "continue".
 */
export function judgeBuyerState(state: BuyerState): JudgeVerdict {
  const interest = state.propensity >= INTEREST;
  const attitude = state.mood > ATTITUDE_FLOOR;
  const signals = state.propensity >= state.threshold - SIGNAL_MARGIN && BuyerSimulator.pending(state) === undefined;
  const order = state.committed;
  const score = Number(interest) + Number(attitude) + Number(signals) + Number(order);
  const verdict = state.left ? 'refuse' : score === 4 ? 'buy' : 'continue';
  return { reasoning: rubric(interest, attitude, signals, order), score, verdict };
}

/**
 * The same rubric read from the words of the buyer's replies, for a simulated judge behind an LLM buyer:
 * the last reply decides (asks how to order → buy, says goodbye → refuse); earlier ones carry interest.
 */
export function judgeBuyerReplies(replies: readonly string[]): JudgeVerdict {
  const last = readBuyerReply(replies[replies.length - 1] ?? '');
  let interest = false;
  for (const reply of replies) {
    const cues = readBuyerReply(reply);
    if (cues.interest === 'medium' || cues.interest === 'high' || cues.satisfied || cues.noDoubts) interest = true;
    if (cues.interest === 'low') interest = false;
  }
  const order = last.commits;
  const attitude = !last.annoyed && !last.leaves;
  const signals =
    order || last.noDoubts || last.interest === 'high' || (last.satisfied && last.objection === undefined);
  const score = order ? 4 : Number(interest) + Number(attitude) + Number(signals);
  const verdict = last.leaves ? 'refuse' : order ? 'buy' : 'continue';
  return { reasoning: rubric(interest || order, attitude || order, signals, order), score, verdict };
}
