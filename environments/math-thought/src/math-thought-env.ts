import {
  BaseEnv,
  EnvClosedError,
  InvalidOptionsError,
  ResetNeededError,
  type EnvResetOutcome,
  type EnvStepOutcome,
} from '@turngym/core';
import type { Action, EnvSpec, Info } from '@turngym/spec';
import { isEquivalent, parseAnswer } from './answer-equivalence';
import { exact } from './exact-number';
import {
  validateMathThoughtOptions,
  validateMathThoughtResetOptions,
  type MathThoughtOptions,
} from './math-thought-options';
import { mentionedValues } from './number-mentions';
import { PACKAGE_NAME, PACKAGE_VERSION } from './package-info';
import type { Problem } from './problem';
import { SafeCalculator } from './safe-calculator';
import { createTaskSource, type TaskSource } from './task-source';
import { taskIndexForSeed } from './task-split';
import { readFactor, type FactorReading } from './thought-factor';

export const MATH_THOUGHT_ID = 'turngym/math-thought-v1';
export const MATH_THOUGHT_CALC_ID = 'turngym/math-thought-calc-v1';

function instructions(calculator: boolean): string {
  return [
    'You are a math genius who solves the user\'s math problem. You think in short "thought factors":',
    'write exactly one factor per turn, one small step of reasoning (a blank line ends a factor).',
    ...(calculator
      ? [
          'To compute, write <calc>expression</calc> in a factor (numbers, + - * / ^, parentheses, sqrt, round, min, max);',
          'the next observation is its result, e.g. "4 * 3 = 12".',
        ]
      : ['The observation after each factor is empty unless there is a note about your factor.']),
    'When you are done, write a factor with the final answer on a line that starts with "Answer:", e.g.',
    '"Answer: 42", "Answer: 3/4" or "Answer: 12.5%". The episode ends at the answer.',
  ].join('\n');
}

/** What a native fork copies: everything about the episode (the problem itself is immutable and shared). */
interface EpisodeState {
  readonly problem: Problem;
  readonly taskId: number;
  turns: number;
  /** Labels of the reference steps whose value has appeared in a factor or a calculator result. */
  readonly established: Set<string>;
  ended: boolean;
  anchor: string;
}

/**
 * Math problems solved in thought factors (ALGORITHMS.md §6; self-ac-slides.md appendix B2): each turn is
 * one short factor of reasoning; the observation is empty or, in the calculator variant, the result of
 * `<calc>expr</calc>`; the episode ends at `Answer: <value>` (reward 1 if numerically equivalent to the
 * exact answer, else 0, minus λ_f when the answer is missing or malformed) or at `maxTurns`.
 */
export class MathThoughtEnv extends BaseEnv<string, Action> {
  readonly spec: EnvSpec;
  readonly options: MathThoughtOptions;
  private readonly tasks: TaskSource;
  private readonly calculator: SafeCalculator | undefined;
  private state: EpisodeState | undefined;
  // fingerprint(action) runs just before onStep(action) on the same text: read it once.
  private lastAction: string | undefined;
  private lastReading: FactorReading | undefined;

  /**
   * @param options see `MathThoughtOptions` (validated; defaults filled)
   * @param tasks an already loaded task source to share (forks); built from the options when omitted
   */
  constructor(options: Partial<MathThoughtOptions> = {}, tasks?: TaskSource) {
    super();
    this.options = validateMathThoughtOptions(options);
    this.tasks = tasks ?? createTaskSource(this.options);
    this.calculator = this.options.calculator ? SafeCalculator.shared() : undefined;
    const calculator = this.options.calculator;
    const examples = ['First, 3 + 4 = 7.', 'Let me find the total cost first.', 'Answer: 42'];
    this.spec = {
      specificationVersion: 'v1',
      id: calculator ? MATH_THOUGHT_CALC_ID : MATH_THOUGHT_ID,
      summary: `Solve a math problem in short thought factors, one per turn${calculator ? ', with a <calc> calculator' : ''}; end with "Answer: <value>".`,
      observationSpace: { type: 'text' },
      actionSpace: {
        type: 'text',
        maxLength: this.options.maxFactorChars,
        examples: calculator ? [...examples, '<calc>2 * (3 + 4)</calc>'] : examples,
      },
      maxTurns: this.options.maxTurns,
      rewardRange: [-this.options.formatPenalty, 1],
      docs: {
        description:
          'Grade-school math (generated arithmetic, word problems, fractions, percentages, linear equations, or a GSM8K-format file) solved in short thought factors, one per turn, as in the Self-AC appendix B2 setup.' +
          (calculator ? ' A <calc>expression</calc> in a factor is evaluated by a restricted mathjs calculator.' : ''),
        actionSpace:
          'Text: one thought factor (text up to the first blank line; the rest is ignored with a note; longer than maxFactorChars is truncated with a note). A line "Answer: <value>" is the final answer.',
        observationSpace: calculator
          ? 'Text: the question on reset; after a factor, one line "<expr> = <result>" (or "<expr>: error: <reason>") per <calc>, plus notes about the factor.'
          : 'Text: the question on reset; after a factor, empty, or notes about the factor (truncated, empty, extra text ignored).',
        rewards: `On the final answer: 1 if numerically equivalent to the exact answer, else 0; −formatPenalty (${this.options.formatPenalty}) instead when the answer is malformed or missing at maxTurns. 0 on every other turn.`,
        startingState:
          'The question of the task that the seed (or options.taskId) selects within the split; info.instructions is the system prompt.',
        episodeEnd: 'Terminates at the first factor with an "Answer:" line; truncates at maxTurns without one.',
        arguments:
          'split (train), source (generated), kinds (all), difficulties ([1,2,3]), maxTurns (16), calculator (fixed by the id), formatPenalty (0.2), maxFactorChars (2000). reset options: taskId.',
        versionHistory: 'v1: first version.',
      },
      packageName: PACKAGE_NAME,
      packageVersion: PACKAGE_VERSION,
    };
  }

  /** The problem of the current episode (privileged: for the scripted expert and for analysis). */
  get problem(): Problem | undefined {
    return this.state?.problem;
  }

  /** The task index of the current episode within the split. */
  get taskId(): number | undefined {
    return this.state?.taskId;
  }

  /** The problem of task `taskId` of the configured split (privileged; what `reset` with that taskId poses). */
  task(taskId: number): Problem {
    if (!Number.isInteger(taskId) || taskId < 0 || taskId >= this.tasks.size) {
      throw new RangeError(`task(): taskId must be an integer in [0, ${this.tasks.size}), got ${taskId}`);
    }
    return this.tasks.problem(taskId);
  }

  /** How many tasks the configured split holds (valid `taskId`s are below it). */
  get taskCount(): number {
    return this.tasks.size;
  }

  protected spawn(): MathThoughtEnv {
    return new MathThoughtEnv(this.options, this.tasks);
  }

  /** Native fork: a snapshot of the episode state, no replay of the actions. */
  override async fork(): Promise<MathThoughtEnv> {
    if (this.isClosed) throw new EnvClosedError(this.spec.id);
    const twin = this.spawn();
    this.copyEpisodeStateTo(twin);
    if (this.state) twin.state = { ...this.state, established: new Set(this.state.established) };
    twin.lastAction = this.lastAction;
    twin.lastReading = this.lastReading;
    return twin;
  }

  protected onReset(seed: number, options: Record<string, unknown> | undefined): EnvResetOutcome<string> {
    this.lastAction = undefined;
    this.lastReading = undefined;
    // Most resets carry no options: skip the validator's copy on that hot path.
    const requested = options === undefined ? undefined : validateMathThoughtResetOptions(options).taskId;
    if (requested !== undefined && requested >= this.tasks.size) {
      throw new InvalidOptionsError(`${this.spec.id} reset()`, [
        `options.taskId must be < ${this.tasks.size}, the size of the ${this.tasks.name} (got ${requested})`,
      ]);
    }
    const index = requested ?? taskIndexForSeed(seed, this.tasks.size);
    this.state = {
      problem: this.tasks.problem(index),
      taskId: index,
      turns: 0,
      established: new Set(),
      ended: false,
      anchor: 'start',
    };
    const { problem, taskId } = this.state;
    return {
      observation: problem.question,
      instructions: instructions(this.options.calculator),
      info: {
        taskId,
        problemId: problem.id,
        kind: problem.kind,
        difficulty: problem.difficulty,
        answerKind: problem.answerKind,
      },
    };
  }

  protected onStep(action: Action): EnvStepOutcome<string> {
    const state = this.state as EpisodeState;
    // A fork of a finished episode inherits its end: stepping it is misuse, as for the original.
    if (state.ended) throw new ResetNeededError(`${this.spec.id}: the episode has ended; call reset() before step().`);
    const reading = this.read(action as string);
    state.turns += 1;
    const notes = [...reading.notes];
    const info: Info = {};
    let reward = 0;
    let terminated = false;
    let truncated = false;
    const lines: string[] = [];

    if (reading.kind === 'ANSWER') {
      terminated = true;
      const parsed = parseAnswer(reading.answerText ?? '');
      if (parsed.ok) {
        const success = isEquivalent(parsed.answer, exact(state.problem.answer), state.problem.answerKind);
        reward = success ? 1 : 0;
        info.success = success;
      } else {
        reward = -this.options.formatPenalty;
        info.success = false;
        info.invalidAction = true;
        notes.push(`Malformed final answer: ${parsed.feedback}`);
      }
      info.goldAnswer = state.problem.answerText;
    } else {
      const mentioned = mentionedValues(reading.factor);
      if (reading.kind === 'CALC' && this.calculator) {
        for (const expression of reading.calcExpressions) {
          const result = this.calculator.evaluate(expression);
          const shown = expression.trim().replace(/\s+/g, ' ');
          if (result.ok) {
            lines.push(`${shown} = ${result.text}`);
            mentionedValues(result.text, mentioned);
          } else {
            lines.push(`${shown}: error: ${result.error}`);
          }
        }
      }
      if (reading.kind === 'EMPTY') info.invalidAction = true;
      this.establish(state, mentioned);
      if (state.turns >= this.options.maxTurns) {
        truncated = true;
        reward = -this.options.formatPenalty;
        info.success = false;
        info.truncatedBy = 'time-limit';
        info.goldAnswer = state.problem.answerText;
        notes.push(`No final answer within ${this.options.maxTurns} turns.`);
      }
    }
    if (terminated || truncated) {
      state.ended = true;
      state.anchor = 'answered';
      if (truncated) state.anchor = 'unanswered';
    }
    if (notes.length > 0) {
      info.feedback = notes.join(' ');
      for (const note of notes) lines.push(`Note: ${note}`);
    }
    return { observation: lines.join('\n'), reward, terminated, truncated, info };
  }

  /** EMPTY, ANSWER, CALC(op), CLAIM(op), CLAIM or NOTE: the kind of factor, never its correctness. */
  fingerprint(action: Action): string {
    if (typeof action !== 'string') return 'INVALID';
    return this.read(action).fingerprint;
  }

  /** Which intermediate quantities of the reference solution are established: `start`, `cost+change`, `answered`. */
  anchor(): string {
    return this.state?.anchor ?? 'start';
  }

  private read(action: string): FactorReading {
    if (action !== this.lastAction || this.lastReading === undefined) {
      this.lastReading = readFactor(action, this.options.maxFactorChars, this.options.calculator);
      this.lastAction = action;
    }
    return this.lastReading;
  }

  private establish(state: EpisodeState, mentioned: ReadonlySet<string>): void {
    let changed = false;
    for (const step of state.problem.steps) {
      if (step.value !== undefined && !state.established.has(step.label) && mentioned.has(step.value)) {
        state.established.add(step.label);
        changed = true;
      }
    }
    if (!changed) return;
    const labels = state.problem.steps.filter((step) => state.established.has(step.label)).map((step) => step.label);
    state.anchor = labels.length > 0 ? labels.join('+') : 'start';
  }
}
