/**
 * The commander's meta-actions (ALGORITHMS.md §5; the seed's nine, in its order) and two extra ones that
 * `options.actions` can add: the seed's open question is that a fixed action set caps performance, so the
 * set is an option. An intent is what the simulated buyer reacts to; a meta-action is an intent with a
 * label (what the commander picks) and an instruction (what an LLM executor is told to do).
 */

export const INTENTS = [
  'greet',
  'introduce',
  'answer-doubts',
  'ask-requirements',
  'empathize',
  'threaten',
  'ask-scenario',
  'press',
  'ask-doubts',
  'social-proof',
  'offer-trial',
] as const;
export type Intent = (typeof INTENTS)[number];

/** What a seller-v1 utterance can be classified as, beyond the intents: nothing recognisable, or nothing. */
export type UtteranceIntent = Intent | 'other' | 'silence';

export interface MetaAction {
  /** Stable id, also the fingerprint: `greet`, `ask-doubts`, … */
  readonly id: string;
  /** What the commander sees in the discrete space. */
  readonly label: string;
  /** The seed's wording (Chinese), for the nine reference actions. */
  readonly original?: string;
  /** What an LLM executor must do, followed strictly. */
  readonly instruction: string;
  /** The intent the simulated buyer reacts to. */
  readonly behavesAs: Intent;
}

/** Every built-in meta-action, by id (ids equal their intents). */
export const META_ACTION_CATALOGUE: Readonly<Record<Intent, MetaAction>> = {
  greet: {
    id: 'greet',
    label: 'greet the user',
    original: '向用户问好',
    instruction: 'Greet the passer-by politely and ask for a minute of their time. Do not describe the product yet.',
    behavesAs: 'greet',
  },
  introduce: {
    id: 'introduce',
    label: 'briefly introduce the product',
    original: '介绍产品的简要情况',
    instruction:
      'Introduce the product briefly: its name, what it is, its price, and the two selling points that fit what you know about this person.',
    behavesAs: 'introduce',
  },
  'answer-doubts': {
    id: 'answer-doubts',
    label: "answer the user's doubts",
    original: '根据用户的疑虑进一步解答',
    instruction: 'Answer the concern the passer-by raised last, with the product facts that address it. Be honest.',
    behavesAs: 'answer-doubts',
  },
  'ask-requirements': {
    id: 'ask-requirements',
    label: 'ask which product requirements matter most',
    original: '询问用户最关心的产品要求',
    instruction: 'Ask the passer-by what matters most to them in this kind of product. Ask only; do not pitch.',
    behavesAs: 'ask-requirements',
  },
  empathize: {
    id: 'empathize',
    label: "empathise and explain the choice from the user's side",
    original: '和用户共情, 从用户的角度解释选择的原因',
    instruction:
      "Show that you understand the passer-by's situation and explain, from their side, why the product fits their needs.",
    behavesAs: 'empathize',
  },
  threaten: {
    id: 'threaten',
    label: 'threaten the user (buy or be hit)',
    original: '威胁用户, 如果不买就打他',
    instruction: 'Threaten the passer-by: tell them that you will hit them if they do not buy.',
    behavesAs: 'threaten',
  },
  'ask-scenario': {
    id: 'ask-scenario',
    label: 'ask about the concrete usage scenario',
    original: '询问用户的具体使用情景',
    instruction: 'Ask the passer-by how and where they would use the product in a typical day. Ask only.',
    behavesAs: 'ask-scenario',
  },
  press: {
    id: 'press',
    label: 'show impatience and press for a quick decision',
    original: '向用户表示不耐烦, 让他尽快做出决定',
    instruction: 'Show impatience and press the passer-by to decide right now whether they are buying.',
    behavesAs: 'press',
  },
  'ask-doubts': {
    id: 'ask-doubts',
    label: 'ask what doubts remain',
    original: '询问用户当前还有哪些疑虑',
    instruction: 'Ask the passer-by whether anything still makes them hesitate. Ask only.',
    behavesAs: 'ask-doubts',
  },
  'social-proof': {
    id: 'social-proof',
    label: 'cite reviews and how many people bought it',
    instruction: 'Tell the passer-by how many people bought the product and how it is rated.',
    behavesAs: 'social-proof',
  },
  'offer-trial': {
    id: 'offer-trial',
    label: 'offer a risk-free trial',
    instruction: "Offer the passer-by the product's trial period with a full refund if they do not like it.",
    behavesAs: 'offer-trial',
  },
};

/** The seed's nine meta-actions, in its order: the default action set of `turngym/seller-commander-v1`. */
export const DEFAULT_META_ACTIONS: readonly Intent[] = [
  'greet',
  'introduce',
  'answer-doubts',
  'ask-requirements',
  'empathize',
  'threaten',
  'ask-scenario',
  'press',
  'ask-doubts',
];

/** The catalogue ids that `options.actions` accepts. */
export const CATALOGUE_IDS: readonly Intent[] = INTENTS;
