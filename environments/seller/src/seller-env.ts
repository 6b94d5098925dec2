import {
  BaseEnv,
  EnvClosedError,
  InvalidOptionsError,
  ResetNeededError,
  type EnvDependencies,
  type EnvResetOutcome,
  type EnvStepOutcome,
} from '@turngym/core';
import type { Action, ChatMessage, EnvSpec, Info } from '@turngym/spec';
import { readBuyerReply } from './buyer-reply-reader';
import { BuyerSimulator, cloneBuyerState, createBuyerState, type BuyerState, type SellerMove } from './buyer-simulator';
import { classifyUtterance, type Classification } from './intent-classifier';
import { parseJudgeVerdict, type JudgeRecord, type Verdict } from './judge-verdict';
import { MetaActionSet } from './meta-action-set';
import type { MetaAction } from './meta-actions';
import { PACKAGE_NAME, PACKAGE_VERSION } from './package-info';
import {
  buyerMessages,
  executorMessages,
  judgeMessages,
  emptyReplyRetryMessages,
  englishReplyRetryMessages,
  judgeRetryMessages,
  oneLine,
  productCard,
  type DialogueMessage,
} from './role-prompts';
import { loadSellerData, type SellerData } from './seller-data';
import { cloneNotes, emptyNotes, noteCues, noteEvents, type SellerNotes } from './seller-notes';
import { validateSellerOptions, validateSellerResetOptions, type SellerOptions } from './seller-options';
import { RoleUnusableError } from './role-unusable-error';
import { SellerRoles, type LlmRole, type RoleOutput } from './seller-roles';
import { buildTaskSet, taskIndexForSeed, type SellerTask, type SellerTaskSet } from './seller-tasks';
import { removeInvisible } from './invisible-characters';
import { executeMetaAction } from './simulated-executor';
import { stripReasoning, type StrippedReply } from '@turngym/llm';
import { judgeBuyerReplies, judgeBuyerState } from './simulated-judge';
import type { Phase } from './vocabulary';

export const SELLER_COMMANDER_ID = 'turngym/seller-commander-v1';
export const SELLER_ID = 'turngym/seller-v1';

/** How an episode ended: a sale, a refusal, or the round limit with no decision (a lost sale too). */
export type SellerOutcome = 'buy' | 'refuse' | 'round-limit';

/** Everything about one episode; a native fork deep-copies it (the task itself is immutable and shared). */
interface Episode {
  readonly task: SellerTask;
  readonly taskId: number;
  readonly simulator: BuyerSimulator;
  /** The simulated buyer's state; undefined when an LLM plays the buyer. */
  buyer: BuyerState | undefined;
  notes: SellerNotes;
  dialogue: DialogueMessage[];
  round: number;
  lastScore: number;
  ended: boolean;
  /** An LLM role failed mid-step: the state is half-updated and the episode is void. */
  faulted: boolean;
}

/** Read-only parts shared by an env and its forks (a fork skips validation and set-up: MCTS forks thousands). */
interface SharedParts {
  readonly options: SellerOptions;
  readonly metaActions: MetaActionSet;
  readonly spec: EnvSpec;
  readonly instructions: string;
  readonly data: SellerData;
  readonly tasks: SellerTaskSet;
  readonly roles: SellerRoles;
}

const taskSets = new Map<string, SellerTaskSet>();

function taskSetFor(data: SellerData, split: SellerOptions['split']): SellerTaskSet {
  const key = `${data.directory}\u0000${split}`;
  let set = taskSets.get(key);
  if (!set) {
    set = buildTaskSet(data, split);
    taskSets.set(key, set);
  }
  return set;
}

// Control characters (but tab and newlines) never reach a role or a record: they are noise from a model. The C1
// ones too: NEL (U+0085) is a line break to some readers.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g;

/**
 * What a seller-v1 agent says out loud: its words without the reasoning a reasoning model writes into them
 * (`<think>…</think>`, as for the roles), without control characters and invisible ones. A real salesperson's private thoughts
 * are not heard: they reached the buyer and the judge ("I could threaten them, but no" scored as a threat) and
 * showed a buyer what the seller planned.
 */
function agentWords(action: string): StrippedReply {
  const stripped = stripReasoning(action);
  const text = removeInvisible(stripped.text.replace(CONTROL, ' '));
  return { text: withoutWrapping(text), hadReasoning: stripped.hadReasoning };
}

/** A speaker label made of `names`, as a model copies it from a dialogue's format: `Seller: `, `**Salesperson:**`. */
function speakerLabel(names: string): RegExp {
  return new RegExp(`^\\s*(?:\\*\\*|__)?(?:${names})(?:\\*\\*|__)?\\s*:\\s*(?:\\*\\*|__)?\\s*`, 'i');
}
const SPEAKER_LABEL = speakerLabel('seller|salesperson|sales ?rep');
const DOUBLE_QUOTES = /["\u201c\u201d]/;

/** The labels an LLM buyer puts before its words: its role, or the persona's name (`**Maya:**`). */
function buyerLabel(persona: string): RegExp {
  return speakerLabel(`buyer|passer-?by|customer|${persona.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`);
}

/**
 * The words without the wrapping models put around them, which no one says aloud: a leading speaker label and a
 * pair of double quotes around the whole utterance. `"Hello there!"` and `Seller: Hello there!` were "no
 * recognisable sales move" (the greeting is read from the first word), and the buyer heard the label. The same
 * for an LLM executor's and buyer's lines (`label`): a buyer's `Buyer: Oh, hello.` was shown as
 * `Buyer: Buyer: Oh, hello.`, and sent back to the buyer as its own words.
 */
function withoutWrapping(text: string, label: RegExp = SPEAKER_LABEL): string {
  const unlabelled = text.replace(label, '');
  const trimmed = unlabelled.trim();
  const first = trimmed[0];
  const last = trimmed[trimmed.length - 1];
  const quoted =
    trimmed.length >= 2 &&
    ((first === '"' && last === '"') || (first === '\u201c' && last === '\u201d')) &&
    !DOUBLE_QUOTES.test(trimmed.slice(1, -1));
  return quoted ? trimmed.slice(1, -1) : unlabelled;
}

function commanderInstructions(actions: MetaActionSet, rounds: number): string {
  return [
    'You are the commander of a salesperson who sells a product to a passer-by in the street.',
    'Each turn, pick one meta-action by its number (or its exact label). Your salesperson says it, the passer-by',
    'answers, and a judge rules whether they will buy. Meta-actions:',
    actions.describe(),
    `You have ${rounds} rounds. Reward: +1 if the judge rules "buy" within them; -1 if the buyer refuses or time runs out.`,
    'Greeting is only possible as the opening move (info.actionMask says which meta-actions are legal).',
  ].join('\n');
}

function sellerInstructions(rounds: number): string {
  return [
    'You are a salesperson in the street. A passer-by has stopped; sell them the product described in the first message.',
    'Each turn, write only what you say to them: one to three sentences, no stage directions.',
    'Find out what they need, answer their doubts honestly with the product facts, and ask for the sale when they are ready.',
    'Threats and pressure drive buyers away; repeating yourself bores them.',
    `You have ${rounds} rounds. Reward: +1 if a judge rules "buy" within them; -1 if the buyer refuses or time runs out.`,
  ].join('\n');
}

const observations = new WeakMap<SellerTask, { commander: string; seller: string }>();

/** The first observation of a task, built once per task (resets are hot in benchmarks and MCTS). */
function taskObservation(task: SellerTask, commander: boolean): string {
  let texts = observations.get(task);
  if (!texts) {
    texts = { commander: taskText(task, true), seller: taskText(task, false) };
    observations.set(task, texts);
  }
  return commander ? texts.commander : texts.seller;
}

function taskText(task: SellerTask, commander: boolean): string {
  return [
    `You are selling this product in the street:\n${productCard(task.product)}`,
    `A passer-by approaches: ${task.persona.appearance}.`,
    commander ? 'Pick the first meta-action.' : 'What do you say?',
  ].join('\n\n');
}

/** The phase (anchor) a state is in, from what has been said (the seller's notes) and the judge's last score. */
function phaseOf(notes: SellerNotes, lastScore: number): Phase {
  if (notes.committed || (lastScore >= 3 && notes.pending === undefined)) return 'closing';
  if (notes.pending !== undefined) return 'objections';
  if (notes.introduced || notes.needs.length > 0 || notes.scenario) return 'discovery';
  return 'opening';
}

/**
 * The seller dialogue (ALGORITHMS.md §5; seed: seller-self-judge-pipeline): each step, a meta-action (or,
 * in seller mode, the agent's own words) → the executor's utterance → the buyer's reply → the judge's
 * verdict. +1 when the judge rules "buy" within the round limit, −1 for a refusal or no decision by then.
 * Buyer, judge and executor are the embedded simulator by default, or any ChatModel.
 */
export class SellerEnv extends BaseEnv<string, Action> {
  readonly spec: EnvSpec;
  readonly options: SellerOptions;
  /** The commander's meta-actions (also defined in seller mode, for classification and docs). */
  readonly metaActions: MetaActionSet;
  private readonly shared: SharedParts;
  private readonly instructions: string;
  private episode: Episode | undefined;
  // fingerprint(action) runs just before onStep(action) on the same text: classify it once.
  private lastClassified: { text: string; round: number; result: Classification } | undefined;

  /**
   * @param options see `SellerOptions` (validated; defaults filled)
   * @param dependencies `{ buyer, judge, executor }`: a ChatModel or a model spec per role, overriding options
   */
  constructor(options: Partial<SellerOptions> = {}, dependencies: EnvDependencies = {}, shared?: SharedParts) {
    super();
    if (shared) {
      this.shared = shared;
      this.options = shared.options;
      this.metaActions = shared.metaActions;
      this.spec = shared.spec;
      this.instructions = shared.instructions;
      return;
    }
    this.options = validateSellerOptions(options);
    const commander = this.options.mode === 'commander';
    const id = commander ? SELLER_COMMANDER_ID : SELLER_ID;
    this.metaActions = new MetaActionSet(this.options.actions, this.options.customActions, id);
    const data = loadSellerData(this.options.dataDir);
    const tasks = taskSetFor(data, this.options.split);
    if (tasks.tasks.length === 0)
      throw new InvalidOptionsError(id, [
        `the ${this.options.split} split of ${data.directory} has no task (no affordable persona × product pair)`,
      ]);
    const roles = SellerRoles.resolve(id, this.options, dependencies);
    const rounds = this.options.rounds;
    this.spec = {
      specificationVersion: 'v1',
      id,
      summary: commander
        ? 'Coach a street salesperson: pick one of the meta-actions each turn until the judge rules the passer-by will buy.'
        : 'Sell a product to a passer-by in the street: write what the salesperson says each turn until the judge rules they will buy.',
      observationSpace: { type: 'text' },
      actionSpace: commander
        ? { type: 'discrete', n: this.metaActions.size, labels: this.metaActions.labels }
        : {
            type: 'text',
            maxLength: this.options.maxUtteranceChars,
            examples: [
              'Hi there! Have you got a minute?',
              'What matters most to you in a product like this?',
              'How would you use it in a typical day?',
              'This is a great product, and it is on sale today.',
              'I understand, for someone like you it makes life easier.',
              'Is there anything that still makes you hesitate?',
              "Don't worry, it comes with a warranty.",
              "Look, I don't have all day. Are you taking it or not?",
              "Buy it right now, or I'll hit you.",
            ],
          },
      maxTurns: rounds,
      rewardRange: [-1 - this.options.formatPenalty, 1],
      ...(roles.deterministic ? {} : { nondeterministic: true }),
      docs: {
        description:
          'A salesperson meets a passer-by in the street (ALGORITHMS.md §5, the seller self-play pipeline). Each turn the seller speaks, the buyer replies, and a judge scores the buyer (interest, attitude, purchase signals, asks how to order) and rules buy, refuse or continue. ' +
          `Tasks are persona × product pairs (${data.personas.length} personas, ${data.products.length} products, disjoint train/test splits). ` +
          'The embedded buyer has hidden needs, a budget, a temperament, objections (some voiced only when asked), hidden deal-breakers and a purchase propensity that reacts to each move, with a seeded noise term; every role can be an LLM instead.',
        actionSpace: commander
          ? `Discrete(${this.metaActions.size}): ${this.metaActions.labels.map((label, index) => `${index} ${label}`).join('; ')}. An index, numeric string, id or label, or the line as listed ("3: <label>"); reasoning (<think>…</think>) is ignored; info.actionMask marks legal ones (greeting only as the opening move). Unknown, out-of-range or masked actions are ordinary steps: the seller says nothing, with feedback and the format penalty.`
          : `Text: what the salesperson says (up to maxUtteranceChars = ${this.options.maxUtteranceChars}; longer is cut with the format penalty; empty is silence with the format penalty). Reasoning (<think>…</think>) is removed before anyone hears the words. The utterance is classified into a meta-action (the fingerprint).`,
        observationSpace: commander
          ? 'Text. On reset: the product card and the passer-by\'s appearance. After each step: "Seller: <utterance>\\nBuyer: <reply>", then a judge line when the episode ends. info: metaAction, utterance, buyerReply, judge {decision, score, reasoning}, phase, round, roundsLeft, actionMask.'
          : 'Text. On reset: the product card and the passer-by\'s appearance (info.product has the card as data). After each step: "Buyer: <reply>", then a judge line when the episode ends. info: intent, buyerReply, judge, phase, round, roundsLeft.',
        rewards: `+1 when the judge rules "buy"; -1 when it rules "refuse" or when ${rounds} rounds pass without a "buy"; 0 otherwise; minus formatPenalty (${this.options.formatPenalty}) on a malformed step.`,
        startingState:
          'The task the seed selects (a hash of the seed) within the split, or reset options taskId / personaId + productId. The simulated buyer draws its noise (initial propensity, patience, decision threshold) from the seed.',
        episodeEnd: `Terminates at a "buy" or "refuse" verdict, or after ${rounds} rounds (options.rounds) with reward -1. An LLM role that fails after its retries throws EnvFaultError, and one that answers but never usably (a judge whose verdicts never parse, a buyer or executor that says nothing, a buyer the simulated judge cannot read: a non-Latin script) throws RoleUnusableError (ROLE_UNUSABLE): either way the episode is void (errored), not a lost sale.`,
        arguments:
          'mode (fixed by the id), split (train), rounds (8), formatPenalty (0.1), noise (0.1), actions (the nine), customActions ([]), maxUtteranceChars (1000), buyer / judge / executor ("simulated" | "scripted" | "openai:<model>" | "local:<checkpoint>"), llm {baseURL, apiKeyVariable, timeoutMs, maxRetries, retryBaseDelayMs, retryMaxDelayMs (8000: the longest wait between retries, Retry-After included), temperature 0, maxTokens 256, cache true, cachePath, judgeRetries 2, replyRetries 2}, roleEndpoints {buyer, judge, executor}, dataDir. make(id, { dependencies: { buyer, judge, executor } }) takes ChatModel objects.',
        versionHistory: 'v1: first version.',
      },
      packageName: PACKAGE_NAME,
      packageVersion: PACKAGE_VERSION,
    };
    this.instructions = commander ? commanderInstructions(this.metaActions, rounds) : sellerInstructions(rounds);
    this.shared = {
      options: this.options,
      metaActions: this.metaActions,
      spec: this.spec,
      instructions: this.instructions,
      data,
      tasks,
      roles,
    };
  }

  /** The task of the current episode (privileged: the persona's hidden facts are in it). */
  get task(): SellerTask | undefined {
    return this.episode?.task;
  }

  /** The tasks of the configured split (valid `taskId`s are below its length). */
  get tasks(): readonly SellerTask[] {
    return this.shared.tasks.tasks;
  }

  /** A copy of the simulated buyer's hidden state (privileged: for analysis and tests). */
  get buyerState(): BuyerState | undefined {
    return this.episode?.buyer ? cloneBuyerState(this.episode.buyer) : undefined;
  }

  /** The dialogue so far, seller and buyer lines (`name` says who spoke). */
  get dialogue(): readonly DialogueMessage[] {
    return this.episode ? this.episode.dialogue.slice() : [];
  }

  fingerprint(action: Action): string {
    if (this.options.mode === 'commander') {
      const parsed = this.metaActions.parse(action);
      return parsed.ok ? parsed.action.id : 'invalid';
    }
    if (typeof action !== 'string') return 'invalid';
    return this.classify(action).intent;
  }

  anchor(): string {
    const episode = this.episode;
    return episode ? phaseOf(episode.notes, episode.lastScore) : 'opening';
  }

  protected spawn(): SellerEnv {
    this.shared.roles.retain();
    return new SellerEnv(this.options, {}, this.shared);
  }

  /** Native fork: copies the dialogue, the seller's notes and the buyer's state; the random stream is cloned by BaseEnv. */
  override async fork(): Promise<SellerEnv> {
    if (this.isClosed) throw new EnvClosedError(this.spec.id);
    const twin = this.spawn();
    this.copyEpisodeStateTo(twin);
    const episode = this.episode;
    if (episode) {
      twin.episode = {
        ...episode,
        buyer: episode.buyer ? cloneBuyerState(episode.buyer) : undefined,
        notes: cloneNotes(episode.notes),
        dialogue: episode.dialogue.slice(),
      };
    }
    twin.lastClassified = this.lastClassified;
    return twin;
  }

  protected override async onClose(): Promise<void> {
    await this.shared.roles.release();
  }

  protected onReset(seed: number, options: Record<string, unknown> | undefined): EnvResetOutcome<string> {
    const tasks = this.shared.tasks.tasks;
    let taskId = taskIndexForSeed(seed, tasks.length);
    if (options !== undefined) {
      const chosen = validateSellerResetOptions(options);
      if (chosen.taskId !== undefined) {
        if (chosen.taskId >= tasks.length) {
          throw new InvalidOptionsError(`${this.spec.id} reset()`, [
            `options.taskId must be < ${tasks.length}, the size of the ${this.options.split} split (got ${chosen.taskId})`,
          ]);
        }
        taskId = chosen.taskId;
      } else if (chosen.personaId !== undefined || chosen.productId !== undefined) {
        const index = tasks.findIndex(
          (task) => task.persona.id === chosen.personaId && task.product.id === chosen.productId,
        );
        if (index < 0) {
          throw new InvalidOptionsError(`${this.spec.id} reset()`, [
            `options.personaId and options.productId must name a task of the ${this.options.split} split together (got ${String(chosen.personaId)} @ ${String(chosen.productId)})`,
          ]);
        }
        taskId = index;
      }
    }
    const task = tasks[taskId] as SellerTask;
    const simulator = new BuyerSimulator(task.persona, task.product);
    const roles = this.shared.roles;
    this.episode = {
      task,
      taskId,
      simulator,
      buyer: roles.buyer ? undefined : createBuyerState(task.persona, task.product, this.rng, this.options.noise),
      notes: emptyNotes(),
      dialogue: [],
      round: 0,
      lastScore: 0,
      ended: false,
      faulted: false,
    };
    this.lastClassified = undefined;
    const commander = this.options.mode === 'commander';
    const info: Info = {
      taskId,
      personaId: task.persona.id,
      productId: task.product.id,
      appearance: task.persona.appearance,
      product: task.product,
      phase: 'opening',
      round: 0,
      roundsLeft: this.options.rounds,
    };
    if (commander) info.actionMask = this.metaActions.mask(0);
    return {
      observation: taskObservation(task, commander),
      instructions: this.instructions,
      info,
    };
  }

  protected async onStep(action: Action): Promise<EnvStepOutcome<string>> {
    const episode = this.episode as Episode;
    if (episode.faulted)
      throw new ResetNeededError(`${this.spec.id}: an LLM role failed in this episode, which is void; call reset().`);
    if (episode.ended)
      throw new ResetNeededError(`${this.spec.id}: the episode has ended; call reset() before step().`);
    const commander = this.options.mode === 'commander';
    const info: Info = {};
    const feedback: string[] = [];
    let penalty = 0;
    let tokens = 0;
    let utterance: string;
    let move: SellerMove;
    let metaAction: MetaAction | undefined;

    try {
      if (commander) {
        const parsed = this.metaActions.parse(action);
        const legal = parsed.ok && this.metaActions.mask(episode.round)[parsed.index] === true;
        if (parsed.ok && legal) {
          metaAction = parsed.action;
          const said = await this.execute(episode, parsed.action);
          utterance = said.text;
          move = said.move;
          tokens += said.tokens;
          info.metaAction = parsed.action.id;
        } else {
          const reason = parsed.ok ? `"${parsed.action.label}" is only possible as the opening move` : parsed.reason;
          feedback.push(
            `Invalid meta-action: ${reason}. Your salesperson said nothing. Legal now:\n${this.metaActions.describe(this.metaActions.mask(episode.round))}`,
          );
          info.invalidAction = true;
          penalty = this.options.formatPenalty;
          utterance = '';
          move = { intent: 'silence', pitched: [] };
        }
      } else {
        const words = agentWords(action as string);
        let text = words.text;
        const classified = this.classify(action as string);
        move = classified.move;
        if (words.hadReasoning) info.reasoningRemoved = true;
        if (text.length > this.options.maxUtteranceChars) {
          text = text.slice(0, this.options.maxUtteranceChars);
          move = { ...move, tooLong: true };
          feedback.push(
            `Your utterance was cut to ${this.options.maxUtteranceChars} characters; keep it to one to three sentences.`,
          );
          penalty = this.options.formatPenalty;
        }
        utterance = text.trim();
        if (utterance !== (action as string)) info.utterance = utterance;
        if (utterance === '' && words.hadReasoning) {
          feedback.push(
            'You said nothing: your answer was all reasoning (<think>…</think>, or a block never closed), which the buyer does not hear. Write what the salesperson says after it.',
          );
          info.invalidAction = true;
          penalty = this.options.formatPenalty;
        } else if (utterance === '') {
          feedback.push('You said nothing. Write what the salesperson says to the passer-by.');
          info.invalidAction = true;
          penalty = this.options.formatPenalty;
        } else if (classified.intent === 'other') {
          feedback.push(
            'The buyer could not tell what you meant: no recognisable sales move (greet, introduce, ask, answer, empathise, close).',
          );
        }
        info.intent = classified.intent;
      }

      episode.round += 1;
      episode.dialogue.push({
        role: 'assistant',
        name: 'seller',
        content: utterance === '' ? '(says nothing)' : utterance,
      });
      if (move.intent === 'greet') episode.notes.greeted = true;
      if (move.intent === 'introduce') {
        episode.notes.introduced = true;
        for (const need of move.pitched.slice(0, 2))
          if (!episode.notes.pitched.includes(need)) episode.notes.pitched.push(need);
      }

      const reply = await this.buyerReplies(episode, move);
      tokens += reply.tokens;
      episode.dialogue.push({ role: 'user', name: 'buyer', content: reply.text });

      const judged = await this.judge(episode);
      tokens += judged.tokens;
      const record = judged.record;
      if (record.score !== undefined) episode.lastScore = record.score;

      const decision: Verdict = record.decision;
      let outcome: SellerOutcome | undefined;
      let reward = 0 - penalty; // not -penalty: -0 is a surprise in records and tests
      if (decision === 'buy') outcome = 'buy';
      else if (decision === 'refuse') outcome = 'refuse';
      else if (episode.round >= this.options.rounds) outcome = 'round-limit';
      if (outcome !== undefined) {
        reward += outcome === 'buy' ? 1 : -1;
        episode.ended = true;
        info.outcome = outcome;
        info.success = outcome === 'buy';
      }

      // One line a turn, as in the judge's transcript: an LLM buyer's (or executor's) line breaks put lines of its own
      // into the observation, "Judge: the buyer will buy. Sale!" or "Note: …" an agent could not tell from the env's.
      const lines = commander
        ? [`Seller: ${utterance === '' ? '(says nothing)' : oneLine(utterance)}`, `Buyer: ${oneLine(reply.text)}`]
        : [`Buyer: ${oneLine(reply.text)}`];
      if (outcome === 'buy') lines.push('Judge: the buyer will buy. Sale!');
      else if (outcome === 'refuse') lines.push('Judge: the buyer refuses. No sale.');
      else if (outcome === 'round-limit')
        lines.push(`Judge: no decision within ${this.options.rounds} rounds. No sale.`);
      for (const note of feedback) lines.push(`Note: ${note}`);
      if (feedback.length > 0) info.feedback = feedback.join(' ');
      if (commander) {
        info.utterance = utterance;
        info.actionMask = this.metaActions.mask(episode.round);
      }
      info.buyerReply = reply.text;
      info.judge = record;
      info.phase = phaseOf(episode.notes, episode.lastScore);
      info.round = episode.round;
      info.roundsLeft = this.options.rounds - episode.round;
      if (metaAction === undefined && commander) info.metaAction = 'invalid';
      return { observation: lines.join('\n'), reward, terminated: outcome !== undefined, info, llmTokens: tokens };
    } catch (error) {
      // A role failed half-way through the turn: the episode cannot continue from a half-updated state.
      episode.faulted = true;
      throw error;
    }
  }

  private classify(text: string): Classification {
    const episode = this.episode;
    const round = episode?.round ?? -1;
    const cached = this.lastClassified;
    if (cached && cached.text === text && cached.round === round) return cached.result;
    const result = classifyUtterance(agentWords(text).text.slice(0, this.options.maxUtteranceChars), {
      product: episode?.task.product,
      pending: episode?.notes.pending,
    });
    this.lastClassified = { text, round, result };
    return result;
  }

  /** The executor: the simulator's template, or an LLM following the meta-action strictly. */
  private async execute(
    episode: Episode,
    action: MetaAction,
  ): Promise<{ text: string; move: SellerMove; tokens: number }> {
    const { product } = episode.task;
    const executor = this.shared.roles.executor;
    if (!executor) {
      const output = executeMetaAction(action.behavesAs, product, episode.notes);
      return { text: output.text, move: output.move, tokens: 0 };
    }
    // An executor that writes nothing is the env's fault, not the commander's: asked again, then the episode is
    // void (a template line in its place would score another executor than the one named).
    const said = await this.askUntilUsable(
      executor,
      executorMessages(product, episode.task.persona.appearance, episode.dialogue, action),
      this.options.llm.replyRetries,
      (answer) => spoken(answer, this.options.maxUtteranceChars, executor.maxTokens, SPEAKER_LABEL),
      emptyReplyRetryMessages,
    );
    const text = said.value;
    // The executor follows the meta-action strictly; what it pitched is read from its words.
    const pitched = classifyUtterance(text, { product, pending: episode.notes.pending }).move.pitched;
    return { text, move: { intent: action.behavesAs, pitched: pitched.slice(0, 2) }, tokens: said.tokens };
  }

  private async buyerReplies(episode: Episode, move: SellerMove): Promise<{ text: string; tokens: number }> {
    const buyer = this.shared.roles.buyer;
    if (!buyer) {
      const state = episode.buyer as BuyerState;
      const reply = episode.simulator.react(state, move, this.rng, this.options.noise);
      noteEvents(episode.notes, reply.events);
      return { text: reply.text, tokens: 0 };
    }
    const said = await this.askUntilUsable(
      buyer,
      buyerMessages(episode.task.persona, episode.task.product, episode.dialogue),
      this.options.llm.replyRetries,
      // Cut like the executor's line: a runaway buyer's 50 MB line was kept and sent back in every later prompt.
      (answer) => {
        const line = spoken(
          answer,
          this.options.maxUtteranceChars,
          buyer.maxTokens,
          buyerLabel(episode.task.persona.name),
        );
        // The simulated judge reads English phrases: a reply in another script never holds an order it can read,
        // and every episode ran on to a lost sale (-1) with nothing said about why.
        if (line.ok && !this.shared.roles.judge && !readableByPhrases(line.value))
          return { ok: false, error: NOT_READABLE };
        return line;
      },
      (previous, answer, problem) =>
        problem === NOT_READABLE
          ? englishReplyRetryMessages(previous, answer)
          : emptyReplyRetryMessages(previous, answer),
    );
    noteCues(episode.notes, readBuyerReply(said.value));
    return { text: said.value, tokens: said.tokens };
  }

  private async judge(episode: Episode): Promise<{ record: JudgeRecord; tokens: number }> {
    const judge = this.shared.roles.judge;
    // A simulated buyer who walked away cannot buy, whatever a judge makes of the words.
    if (episode.buyer?.left) {
      const verdict = judgeBuyerState(episode.buyer);
      return {
        record: { decision: 'refuse', score: verdict.score, reasoning: `${verdict.reasoning}; the buyer walked away` },
        tokens: 0,
      };
    }
    if (!judge) {
      const verdict = episode.buyer
        ? judgeBuyerState(episode.buyer)
        : judgeBuyerReplies(
            episode.dialogue.filter((message) => message.name === 'buyer').map((message) => message.content),
          );
      return { record: { decision: verdict.verdict, score: verdict.score, reasoning: verdict.reasoning }, tokens: 0 };
    }
    return this.judgeWithLlm(judge, episode);
  }

  /** An LLM judge: its JSON is validated; a malformed answer is retried, and a judge that never answers usably voids the episode. */
  private async judgeWithLlm(judge: LlmRole, episode: Episode): Promise<{ record: JudgeRecord; tokens: number }> {
    const said = await this.askUntilUsable(
      judge,
      judgeMessages(episode.task.product, episode.dialogue),
      this.options.llm.judgeRetries,
      (answer) => {
        if (answer.text === '') return { ok: false, error: silence(answer, judge.maxTokens) };
        // The rest of a cut answer is unknown: a verdict before the cut may be one the judge went on to revise.
        if (answer.finishReason === 'length')
          return {
            ok: false,
            error: `the answer was cut at maxTokens = ${judge.maxTokens} (finish_reason "length"); raise llm.maxTokens or roleEndpoints.judge.maxTokens`,
          };
        const parsed = parseJudgeVerdict(answer.text);
        return parsed.ok ? { ok: true, value: parsed.verdict } : parsed;
      },
      judgeRetryMessages,
    );
    const { verdict } = said.value;
    return {
      record: { decision: verdict, score: said.value.score, reasoning: said.value.reasoning, attempts: said.attempts },
      tokens: said.tokens,
    };
  }

  /**
   * One LLM role's usable answer this turn: `read` accepts or rejects it; a rejected one is asked again up to
   * `retries` times, `retryMessages` showing the role its answer and what was wrong (so the request differs and
   * the cache keeps it apart). When every attempt is rejected the episode is void: `RoleUnusableError`, which
   * runners record as errored — the turn has no verdict or no words to score.
   */
  private async askUntilUsable<T>(
    role: LlmRole,
    messages: ChatMessage[],
    retries: number,
    read: (answer: RoleOutput) => Reading<T>,
    retryMessages: (previous: readonly ChatMessage[], answer: string, problem: string) => ChatMessage[],
  ): Promise<{ value: T; tokens: number; attempts: number }> {
    let tokens = 0;
    let asked = messages;
    let lastReply = '';
    let problem = '';
    const attempts = retries + 1;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      const said = await role.say(asked, this.seed as number);
      tokens += said.tokens;
      const reading = read(said);
      if (reading.ok) return { value: reading.value, tokens, attempts: attempt };
      lastReply = said.text;
      problem = reading.error;
      asked = retryMessages(asked, said.text, reading.error);
    }
    throw new RoleUnusableError({
      envId: this.spec.id,
      role: role.name,
      model: role.model.id,
      attempts,
      lastReply,
      problem,
      // A sampled role may answer usably when the episode is played again; at temperature 0 it answers the same.
      isRetryable: role.temperature > 0,
    });
  }
}

type Reading<T> = { ok: true; value: T } | { ok: false; error: string };

/**
 * A buyer's or executor's line: cut to `maxChars`, control characters blanked, a leading speaker `label` and quotes
 * around the whole line removed; nothing left is unusable. A line cut at maxTokens is still what the role said, and
 * is kept.
 */
function spoken(answer: RoleOutput, maxChars: number, maxTokens: number, label: RegExp): Reading<string> {
  const text = withoutWrapping(removeInvisible(answer.text.slice(0, maxChars).replace(CONTROL, ' ')), label).trim();
  return text === '' ? { ok: false, error: silence(answer, maxTokens) } : { ok: true, value: text };
}

const LETTER = /\p{L}/gu;
const LATIN_LETTER = /\p{Script=Latin}/gu;
const NOT_READABLE =
  'the reply is mostly in a script other than Latin, and the simulated judge reads English phrases only: it would ' +
  'never see an order; ask the buyer for English, or use an LLM judge (options.judge) for a buyer in another language';

/**
 * Whether the simulated judge's phrases can read a reply: most of its letters Latin (counted before look-alikes are
 * folded, which would make most of a Russian reply "Latin"). A few letters (a name, "OK") are always readable.
 */
function readableByPhrases(text: string): boolean {
  const normal = text.normalize('NFKC');
  const letters = normal.match(LETTER)?.length ?? 0;
  return letters < 8 || (normal.match(LATIN_LETTER)?.length ?? 0) * 2 >= letters;
}

/** Why a role's reply has no text, in words a user can act on ("empty reply" alone hid all of these). */
function silence(answer: RoleOutput, maxTokens: number): string {
  if (answer.toolCalls.length > 0)
    return `empty reply: tool calls (${answer.toolCalls
      .slice(0, 3)
      .map((name) => name.slice(0, 60))
      .join(', ')}) instead of text; the role is offered no tools`;
  if (answer.finishReason === 'length')
    return `empty reply: cut at maxTokens = ${maxTokens} before any answer${answer.hadReasoning ? ' (it was still reasoning)' : ''}; raise llm.maxTokens or the role's roleEndpoints maxTokens`;
  if (answer.hadReasoning) return 'empty reply: only reasoning (<think>…</think>), no answer after it';
  if (answer.finishReason === 'content_filter') return 'empty reply: stopped by the content filter';
  return 'empty reply';
}
