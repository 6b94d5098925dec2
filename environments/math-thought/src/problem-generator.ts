import { checkSeed, SeededRng } from '@turngym/core';
import { arithmeticProblem } from './arithmetic-problems';
import { exactKey, showExact } from './exact-number';
import { fractionProblem } from './fraction-problems';
import { linearProblem } from './linear-problems';
import { percentProblem } from './percent-problems';
import type { Problem, ProblemKind } from './problem';
import type { ProblemDraft } from './problem-builder';
import { contentSplit, type Split } from './task-split';
import { wordProblem } from './word-problems';

export interface GeneratorOptions {
  /** Problem families to draw from (uniformly). */
  readonly kinds: readonly ProblemKind[];
  /** Difficulty levels to draw from (uniformly), 1–3. */
  readonly difficulties: readonly number[];
  /** Keep only questions of this split's content class (see `contentSplit`); `all` keeps every one. */
  readonly split?: Split;
}

const FAMILIES: Record<ProblemKind, (rng: SeededRng, difficulty: number) => ProblemDraft> = {
  arithmetic: arithmeticProblem,
  word: wordProblem,
  fraction: fractionProblem,
  percent: percentProblem,
  linear: linearProblem,
};

// With 1 question in 8 in the test class, 400 draws all missing it has probability (7/8)^400 < 1e-23.
const MAX_DRAWS = 400;

/**
 * The problem of generator seed `seed`: a pure function of (seed, options), so a task id is reproducible
 * anywhere. Family and level are drawn first, then the family's numbers; for a split, draws continue on
 * the same stream until the question falls in the split's content class.
 */
export function generateProblem(seed: number, options: GeneratorOptions): Problem {
  if (options.kinds.length === 0 || options.difficulties.length === 0) {
    throw new RangeError('generateProblem(): kinds and difficulties must not be empty');
  }
  // The seed is a task id's generator seed: 1.5 would be truncated into seed 1's problem under the id `gen-1.5`.
  const rng = new SeededRng(checkSeed(seed, 'generateProblem()'));
  for (let draw = 0; draw < MAX_DRAWS; draw++) {
    const kind = rng.pick(options.kinds);
    const difficulty = rng.pick(options.difficulties);
    const draft = FAMILIES[kind](rng, difficulty);
    if (options.split === undefined || options.split === 'all' || contentSplit(draft.question) === options.split) {
      return finish(`gen-${seed}`, draft);
    }
  }
  throw new Error(`generateProblem(): no ${options.split} question after ${MAX_DRAWS} draws from seed ${seed}`);
}

function finish(id: string, draft: ProblemDraft): Problem {
  const answerText = showExact(draft.answer, draft.preferFraction);
  return {
    id,
    kind: draft.kind,
    difficulty: draft.difficulty,
    question: draft.question,
    answer: exactKey(draft.answer),
    answerKind: draft.answerKind,
    answerText: draft.answerKind === 'percent' ? `${answerText}%` : answerText,
    steps: draft.steps,
  };
}
