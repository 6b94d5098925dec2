import { OBJECTION_KINDS, readBuyerReply, type BuyerCues } from '@turngym/env-seller';
import type { Info } from '@turngym/spec';
import type { Transcript } from './transcript-recorder';

/** Hash buckets per bag of words (opening, whole dialogue, last observation). */
export const WORD_BUCKETS = 32;

/**
 * How the bags of words read text. `ascii`: words of a–z and `'` only (the measured encoder of the README's
 * results): a dialogue in another script gives the bags nothing, and `café` is read as `caf`, `$49.99` as nothing.
 * `unicode`: NFKC-normalised, words of letters of any script, numbers (`49.99`, `49,99`) and currency signs.
 */
export const TEXT_FEATURES = ['ascii', 'unicode'] as const;
export type TextFeatures = (typeof TEXT_FEATURES)[number];

/** What an encoder's vector means: saved with a network and checked when it is loaded (`PolicyValueNet`). */
export type EncoderSettings = Readonly<Record<string, number | string>>;

/** Cues of one buyer line, in a fixed order. */
const CUE_COUNT = 12 + OBJECTION_KINDS.length;

function cueVector(cues: BuyerCues | undefined): number[] {
  if (!cues) return new Array<number>(CUE_COUNT).fill(0);
  return [
    cues.needs.length > 0 ? 1 : 0,
    cues.scenario ? 1 : 0,
    cues.objection ? 1 : 0,
    cues.dealBreaker ? 1 : 0,
    cues.satisfied ? 1 : 0,
    cues.unsatisfied ? 1 : 0,
    cues.noDoubts ? 1 : 0,
    cues.commits ? 1 : 0,
    cues.leaves ? 1 : 0,
    cues.hurry ? 1 : 0,
    cues.interest === 'high' ? 1 : cues.interest === 'medium' ? 0.5 : cues.interest === 'low' ? -0.5 : 0,
    cues.annoyed ? 1 : 0,
    ...OBJECTION_KINDS.map((kind) => (cues.objection === kind ? 1 : 0)),
  ];
}

/** FNV-1a of a word, into `buckets`. */
function bucketOf(word: string, buckets: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < word.length; i++) {
    hash ^= word.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % buckets;
}

const ASCII_WORD = /[a-z']+/g;
/**
 * A currency sign, a number (with its decimal or grouping marks), one character of a script written without
 * spaces (Han, kana, Thai: a run of them is a sentence, not a word), or a word of letters and marks of any script.
 */
const UNICODE_WORD =
  /\p{Sc}|\p{Nd}+(?:[.,]\p{Nd}+)*|[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}]|(?:(?![\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}])[\p{L}\p{M}'])+/gu;
const APOSTROPHES = /[\u2018\u2019\u02bc]/g;

/** The words a bag counts. */
function wordsOf(text: string, reading: TextFeatures): string[] {
  if (reading === 'ascii') return text.toLowerCase().match(ASCII_WORD) ?? [];
  return text.normalize('NFKC').toLowerCase().replace(APOSTROPHES, "'").match(UNICODE_WORD) ?? [];
}

/** log(1 + count) per hashed word bucket: a bag of words that any text env has. */
function bagOfWords(text: string, buckets: number, reading: TextFeatures): number[] {
  const counts = new Array<number>(buckets).fill(0);
  for (const word of wordsOf(text, reading)) counts[bucketOf(word, buckets)]! += 1;
  return counts.map((count) => Math.log1p(count));
}

/** The buyer's line of a seller observation ("Seller: …\nBuyer: …"), or the whole text. */
function buyerLine(observation: string): string {
  const line = observation.split('\n').find((each) => each.startsWith('Buyer: '));
  return line ? line.slice('Buyer: '.length) : observation;
}

/**
 * What the policy-value network reads of a dialogue (ALGORITHMS.md §5 [choice]: a small encoder of the
 * dialogue's features instead of the reference's BGE-M3 embedding — measured in the README). Only what the
 * commander saw: its own past meta-actions, the turn, the judge's last score, the buyer's cues in the last
 * reply and over the dialogue (the seller env's `readBuyerReply`, exact on the simulated buyer and a best
 * effort on an LLM's words), the legal mask, and hashed bags of words of the opening (the passer-by's
 * appearance, the product card), of the whole dialogue and of the last observation.
 */
export class DialogueEncoder {
  /** Length of every feature vector. */
  readonly size: number;

  constructor(
    /** n: the discrete action space's size. */
    readonly actions: number,
    /** The episode's turn limit (normalises the turn). */
    readonly maxTurns: number,
    /** How the bags of words read text. */
    readonly textFeatures: TextFeatures = 'ascii',
  ) {
    this.size = 3 * actions + 2 + 2 * CUE_COUNT + 2 + actions + 3 * WORD_BUCKETS;
  }

  /**
   * What the vector means, beyond its length: a network trained on one encoder reads another's vectors of the
   * same length as garbage (a turn limit of 8 against 12 moves every turn feature; another text reading moves
   * every word), so the network keeps these and a load with others is refused, naming the field.
   */
  get settings(): EncoderSettings {
    return {
      actions: this.actions,
      maxTurns: this.maxTurns,
      textFeatures: this.textFeatures,
      wordBuckets: WORD_BUCKETS,
    };
  }

  /** The feature vector of the state a transcript ends in; `info` is its last info (the mask). */
  encode(transcript: Transcript, info: Info): Float32Array {
    const n = this.actions;
    const steps = transcript.steps;
    const counts = new Array<number>(n).fill(0);
    for (const step of steps) if (step.action >= 0 && step.action < n) counts[step.action]! += 1;
    const oneHot = (index: number | undefined): number[] =>
      Array.from({ length: n }, (_, action) => (action === index ? 1 : 0));
    const last = steps.at(-1);
    const judge = info.judge as { score?: number } | undefined;
    const cues = steps.map((step) => readBuyerReply(buyerLine(step.observation)));
    // Over the dialogue: was any cue ever seen; is an objection still open (raised after the last "satisfied").
    const ever = cueVector(undefined);
    cues.forEach((each) => cueVector(each).forEach((value, index) => (ever[index] = Math.max(ever[index]!, value))));
    const lastObjection = cues.findLastIndex((each) => each.objection !== undefined);
    const lastSatisfied = cues.findLastIndex((each) => each.satisfied);
    const mask = Array.isArray(info.actionMask) ? info.actionMask : undefined;
    const features = [
      ...counts.map((count) => Math.min(count, 3) / 3),
      ...oneHot(last?.action),
      ...oneHot(steps.at(-2)?.action),
      steps.length / Math.max(this.maxTurns, 1),
      typeof judge?.score === 'number' ? judge.score / 4 : 0,
      ...cueVector(cues.at(-1)),
      ...ever,
      lastObjection > lastSatisfied ? 1 : 0,
      steps.length > 0 ? 1 : 0,
      ...Array.from({ length: n }, (_, action) => (mask === undefined || mask[action] !== false ? 1 : 0)),
      ...bagOfWords(transcript.opening, WORD_BUCKETS, this.textFeatures),
      ...bagOfWords(steps.map((step) => step.observation).join('\n'), WORD_BUCKETS, this.textFeatures),
      ...bagOfWords(last?.observation ?? '', WORD_BUCKETS, this.textFeatures),
    ];
    return Float32Array.from(features);
  }

  /** 1 on the legal actions of a state (all of them when the mask is absent or allows none). */
  legal(info: Info): number[] {
    const mask = Array.isArray(info.actionMask) ? info.actionMask : undefined;
    const legal = Array.from({ length: this.actions }, (_, action) =>
      mask === undefined || mask[action] !== false ? 1 : 0,
    );
    return legal.some((value) => value === 1) ? legal : legal.map(() => 1);
  }
}
