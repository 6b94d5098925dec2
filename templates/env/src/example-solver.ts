import type { Action, Agent, AgentEpisodeStart } from '@turngym/spec';

/**
 * The scripted expert: reads only the observations (so it also works against a remote env), follows each
 * "see <key>" pointer and submits the first value that is not a pointer.
 */
export class ExampleSolver implements Agent<string, Action> {
  readonly name = 'scripted';
  private next = '';

  async start(episode: AgentEpisodeStart<string>): Promise<void> {
    this.next = /Start with key (\S+?)\.?$/.exec(episode.observation)?.[1] ?? '';
  }

  async act(observation: string): Promise<Action> {
    const found = /^LOOKUP \S+ = (.+)$/.exec(observation);
    if (found) {
      const value = (found[1] as string).trim();
      const pointer = /^see (\S+)$/.exec(value);
      if (!pointer) return `SUBMIT(${value})`;
      this.next = pointer[1] as string;
    }
    return `LOOKUP(${this.next})`;
  }
}
