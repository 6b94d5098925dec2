import type { Action, Agent, AgentEpisodeStart, Env } from '@turngym/spec';
import { MathThoughtEnv } from './math-thought-env';
import type { Problem } from './problem';

/**
 * The factors the expert writes for a problem: one per reference step (the calculator form where the
 * calculator is exact and enabled), then `Answer: <value>`. This is the SFT data source: every factor
 * is one short, true step.
 */
export function expertFactors(problem: Problem, calculator: boolean): string[] {
  const factors = problem.steps.map((step) => (calculator && step.calcText !== undefined ? step.calcText : step.text));
  factors.push(`Answer: ${problem.answerText}`);
  return factors;
}

/**
 * The scripted expert: privileged, it looks up the episode's problem by `info.taskId` in the env it was
 * built for (any instance with the same options, through any wrappers: the checker plays in a sibling
 * instance) and writes the reference solution factor by factor. Solves every generated problem (see the
 * tests); needs a MathThoughtEnv in this process.
 */
export class MathThoughtExpert implements Agent<string, Action> {
  readonly name = 'scripted';
  private factors: string[] = [];
  private next = 0;

  /** @param env the env (or wrapper stack) the expert acts in, or one made with the same options */
  constructor(private readonly env: Env<string, Action>) {}

  async start(episode: AgentEpisodeStart<string>): Promise<void> {
    const inner = this.env.unwrapped ?? this.env;
    if (!(inner instanceof MathThoughtEnv)) {
      throw new Error(
        'MathThoughtExpert needs a MathThoughtEnv in this process (it looks the problem up by info.taskId).',
      );
    }
    const taskId = episode.info.taskId;
    // Usually the expert acts in the very env it was built for: take its current problem without regenerating.
    const problem =
      inner.taskId === taskId && inner.problem !== undefined
        ? inner.problem
        : typeof taskId === 'number' && Number.isInteger(taskId) && taskId >= 0 && taskId < inner.taskCount
          ? inner.task(taskId)
          : undefined;
    if (problem === undefined || problem.question !== episode.observation) {
      throw new Error(
        `MathThoughtExpert: task ${String(taskId)} of its env does not pose this question; build the expert with an env of the same options.`,
      );
    }
    this.factors = expertFactors(problem, inner.options.calculator);
    this.next = 0;
  }

  async act(): Promise<Action> {
    const factor = this.factors[Math.min(this.next, this.factors.length - 1)] as string;
    this.next += 1;
    return factor;
  }
}
