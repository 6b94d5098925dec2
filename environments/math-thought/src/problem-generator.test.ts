import { exact } from './exact-number';
import { PROBLEM_KINDS } from './problem';
import { generateProblem } from './problem-generator';
import { SafeCalculator } from './safe-calculator';
import { createTaskSource } from './task-source';
import { contentSplit, SPLIT_SEED_RANGES, taskIndexForSeed } from './task-split';
import { validateMathThoughtOptions } from './math-thought-options';

const ALL = { kinds: PROBLEM_KINDS, difficulties: [1, 2, 3] };

/** The question's expression in calculator syntax (`Compute (3 + 4) × 2.` → `(3 + 4) * 2`). */
function expressionOf(question: string): string {
  return (/^Compute (.*?)\.(?: Give the answer.*)?$/.exec(question)?.[1] as string)
    .replace(/×/g, '*')
    .replace(/÷/g, '/');
}

describe('problem generator', () => {
  it('is deterministic: the same seed and options give the same problem', () => {
    for (let seed = 0; seed < 200; seed++) expect(generateProblem(seed, ALL)).toEqual(generateProblem(seed, ALL));
    const questions = new Set(Array.from({ length: 200 }, (_, seed) => generateProblem(seed, ALL).question));
    expect(questions.size).toBeGreaterThan(190);
  });

  it('draws every kind and level, each with its number of steps', () => {
    for (const kind of PROBLEM_KINDS) {
      for (const difficulty of [1, 2, 3]) {
        for (let seed = 0; seed < 30; seed++) {
          const problem = generateProblem(seed, { kinds: [kind], difficulties: [difficulty] });
          expect(problem).toMatchObject({ kind, difficulty });
          expect(problem.steps.length).toBeGreaterThanOrEqual(kind === 'fraction' && difficulty === 1 ? 1 : 2);
          expect(problem.steps.length).toBeLessThanOrEqual(5);
          // The last step establishes the answer (in percent for percentage questions).
          expect(problem.steps.at(-1)?.value).toBe(problem.answer);
        }
      }
    }
  });

  it('computes the answers of expression questions correctly', () => {
    const calculator = SafeCalculator.shared();
    for (let seed = 0; seed < 300; seed++) {
      const problem = generateProblem(seed, { kinds: ['arithmetic', 'fraction'], difficulties: [1, 2, 3] });
      if (!problem.question.startsWith('Compute')) continue;
      const result = calculator.evaluate(expressionOf(problem.question));
      expect(result.ok && Math.abs(result.value - exact(problem.answer).valueOf())).toBeLessThan(1e-9);
    }
  });

  it('solves the equations it poses', () => {
    const calculator = SafeCalculator.shared();
    for (let seed = 0; seed < 200; seed++) {
      const problem = generateProblem(seed, { kinds: ['linear'], difficulties: [1, 2, 3] });
      const [left, right] = (/^Solve for x: (.*)\.$/.exec(problem.question)?.[1] as string).split(' = ') as [
        string,
        string,
      ];
      const x = `(${exact(problem.answer).valueOf()})`;
      const side = (text: string) => calculator.evaluate(text.replace(/(\d)x/g, '$1*x').replace(/x/g, x));
      const [a, b] = [side(left), side(right)];
      expect(a.ok && b.ok && Math.abs(a.value - b.value)).toBeLessThan(1e-9);
    }
  });

  it('keeps train and test disjoint by generator seed range and by content', () => {
    const { train, test } = SPLIT_SEED_RANGES;
    expect(train.start + train.size).toBeLessThanOrEqual(test.start);
    const options = (split: 'train' | 'test') => validateMathThoughtOptions({ split });
    const trainTasks = createTaskSource(options('train'));
    const testTasks = createTaskSource(options('test'));
    const trainQuestions = new Set<string>();
    const testQuestions = new Set<string>();
    for (let seed = 0; seed < 1500; seed++) {
      const trainProblem = trainTasks.problem(taskIndexForSeed(seed, trainTasks.size));
      const testProblem = testTasks.problem(taskIndexForSeed(seed, testTasks.size));
      expect(Number(trainProblem.id.slice(4))).toBeLessThan(train.start + train.size);
      expect(Number(testProblem.id.slice(4))).toBeGreaterThanOrEqual(test.start);
      expect(contentSplit(trainProblem.question)).toBe('train');
      expect(contentSplit(testProblem.question)).toBe('test');
      trainQuestions.add(trainProblem.question);
      testQuestions.add(testProblem.question);
    }
    expect([...testQuestions].filter((question) => trainQuestions.has(question))).toEqual([]);
    expect(testQuestions.size).toBeGreaterThan(1300);
  });

  it('refuses a seed that is not a safe integer with the options error naming the field, in both task draws', () => {
    for (const seed of [Number.NaN, 1.5, -0.5, Infinity, 2 ** 53]) {
      for (const draw of [() => taskIndexForSeed(seed, 100), () => generateProblem(seed, ALL)]) {
        expect(draw).toThrow(expect.objectContaining({ code: 'INVALID_OPTIONS' }));
        expect(draw).toThrow(/seed must be an integer within ±\(2\^53 − 1\), got /);
      }
    }
    // Negative integer seeds are seeds like any other.
    expect(taskIndexForSeed(-3, 100)).toBe(taskIndexForSeed(-3, 100));
    expect(generateProblem(-3, ALL).id).toBe('gen--3');
  });
});
