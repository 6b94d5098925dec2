/**
 * Write your own agent against the contract and evaluate it with the standard tools:
 *   npx tsc -b examples && node examples/dist/custom-agent.js
 */
import { checkEnv, formatCheckReport, Registry, runEpisode, summarize } from '@turngym/core';
import { register } from '@turngym/env-example';
import type { Action, Agent, AgentEpisodeStart, Info } from '@turngym/spec';

/** Looks up the start key, then every key it is pointed to, and submits the first non-pointer value. */
class GreedyAgent implements Agent<string, Action> {
  readonly name = 'greedy';
  private next = '';

  async start(episode: AgentEpisodeStart<string>): Promise<void> {
    this.next = /key (\S+?)\.$/.exec(episode.observation)?.[1] ?? '';
  }

  async act(observation: string, info: Info): Promise<Action> {
    if (info.invalidAction) return { name: 'LOOKUP', arguments: { key: this.next } };
    const value = /= (.+)$/.exec(observation)?.[1];
    if (value === undefined) return { name: 'LOOKUP', arguments: { key: this.next } };
    const pointer = /^see (\S+)$/.exec(value);
    if (!pointer) return { name: 'SUBMIT', arguments: { answer: value } };
    this.next = pointer[1] as string;
    return { name: 'LOOKUP', arguments: { key: this.next } };
  }
}

async function main(): Promise<void> {
  const registry = new Registry();
  register(registry);
  console.log(formatCheckReport(await checkEnv('turngym/example-v1', { registry })));
  const env = await registry.make('turngym/example-v1', { options: { chainLength: 5, keys: 30 } });
  const outcomes = [];
  for (let seed = 0; seed < 20; seed++) outcomes.push(await runEpisode(env, new GreedyAgent(), seed));
  await env.close();
  const summary = summarize(outcomes);
  console.log(
    `greedy: success ${(100 * summary.successRate).toFixed(0)}% over ${summary.episodes} episodes, ${summary.meanTurns} turns on average`,
  );
}

void main();
