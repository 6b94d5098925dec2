import { SeededRng } from '@turngym/core';
import type { Action, Agent, AgentEpisodeStart, Info } from '@turngym/spec';

const NOTES = [
  'Let me think about what is asked.',
  'I will work out the quantities one by one.',
  'Now combine the results.',
];
const OPERATORS = ['+', '-', '*', '/'] as const;

/**
 * The random baseline: a well-formed but aimless solver. Each turn it either states a random operation on
 * two numbers it has seen (computed correctly, in a claim or a `<calc>`), writes a filler note, or, with
 * probability 1/4, answers with a random number it has seen. Seeded: same seed, same factors.
 */
export class MathThoughtRandomAgent implements Agent<string, Action> {
  readonly name = 'random';
  private readonly rng: SeededRng;
  private numbers: number[] = [];
  private calculator = false;

  constructor(seed: number) {
    this.rng = new SeededRng(seed);
  }

  async start(episode: AgentEpisodeStart<string>): Promise<void> {
    this.numbers = numbersIn(episode.observation);
    if (this.numbers.length === 0) this.numbers = [1, 2];
    this.calculator = episode.info.instructions?.includes('<calc>') ?? false;
  }

  async act(observation: string, _info: Info): Promise<Action> {
    this.numbers.push(...numbersIn(observation));
    const roll = this.rng.next();
    if (roll < 0.25) return `Answer: ${this.rng.pick(this.numbers)}`;
    if (roll < 0.4) return this.rng.pick(NOTES);
    const a = this.rng.pick(this.numbers);
    const b = this.rng.pick(this.numbers);
    const operator = this.rng.pick(OPERATORS);
    if (this.calculator && this.rng.bool()) return `<calc>${a} ${operator} ${b}</calc>`;
    const value = operator === '+' ? a + b : operator === '-' ? a - b : operator === '*' ? a * b : b === 0 ? 0 : a / b;
    const rounded = Math.round(value * 100) / 100;
    this.numbers.push(rounded);
    return `${a} ${operator === '*' ? '×' : operator === '/' ? '÷' : operator} ${b} = ${rounded}.`;
  }
}

function numbersIn(text: string): number[] {
  return (text.match(/\d+(?:\.\d+)?/g) ?? [])
    .map(Number)
    .filter((value) => Number.isFinite(value))
    .slice(0, 20);
}
