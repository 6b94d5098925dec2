import { SeededRng } from '@turngym/core';
import type { Action, Agent, AgentEpisodeStart, Info } from '@turngym/spec';

const STOP_WORDS = new Set([
  'what',
  'which',
  'who',
  'when',
  'where',
  'was',
  'is',
  'the',
  'of',
  'in',
  'year',
  'did',
  'does',
  'how',
  'many',
  'or',
  'and',
  'a',
  'an',
]);

/**
 * The random baseline: a seeded random surfer. It clicks a random visible link most of the time, sometimes
 * scrolls or goes back; in QA it searches a random word of the question when no page is open and submits a
 * random capitalised phrase or number from the page near the end of its budget. Reading only observations,
 * it works against remote envs too.
 */
export class RandomNavigator implements Agent<string, Action> {
  readonly name = 'random';
  private rng: SeededRng;
  private race = false;
  private question = '';

  constructor(seed: number) {
    this.rng = new SeededRng(seed);
  }

  async start(episode: AgentEpisodeStart<string>): Promise<void> {
    this.race = episode.info.taskKind === 'race';
    this.question = /^Question: (.*)$/m.exec(episode.observation)?.[1] ?? '';
  }

  async act(observation: string, info: Info): Promise<Action> {
    const left = typeof info.toolCallsLeft === 'number' ? info.toolCallsLeft : 10;
    // A compact page (wiki-qa-compact-v1) is every line after its `# Title` header, its links `[label]`.
    const compactHeader = /^# /m.exec(observation);
    const windowText = compactHeader
      ? observation.slice(compactHeader.index).split('\n').slice(1).join('\n')
      : observation
          .split('\n')
          .filter((line) => /^L\d+ /.test(line))
          .join('\n');
    const links: (number | string)[] = compactHeader
      ? [...new Set([...windowText.matchAll(/\[([^\]]+)\]/g)].map((match) => match[1] as string))]
      : [...new Set([...windowText.matchAll(/\[#(\d+) /g)].map((match) => Number(match[1])))];
    if (!this.race) {
      if (!windowText) {
        const words = this.question
          .split(/[^A-Za-z0-9]+/)
          .filter((word) => word.length > 2 && !STOP_WORDS.has(word.toLowerCase()));
        return `SEARCH(${words.length > 0 ? this.rng.pick(words) : 'history'})`;
      }
      if (left <= 1 || this.rng.bool(0.15)) {
        const candidates = [...windowText.matchAll(/\b([A-Z][a-z]+(?: [A-Z][a-z]+)*|\d[\d,]*)\b/g)]
          .map((match) => match[1] as string)
          .filter((text) => !/^L\d/.test(text));
        return `SUBMIT(${candidates.length > 0 ? this.rng.pick(candidates) : 'unknown'})`;
      }
    }
    const roll = this.rng.next();
    if (links.length > 0 && roll < 0.7) return `CLICK(${this.rng.pick(links)})`;
    if (roll < 0.85 && !compactHeader) return 'SCROLL(down)'; // a compact page has no window to scroll
    return 'BACK';
  }
}
