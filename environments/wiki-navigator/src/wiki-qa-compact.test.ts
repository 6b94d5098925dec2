import { checkEnv, formatCheckReport, Registry, runEpisode } from '@turngym/core';
import type { Action, Agent, Env } from '@turngym/spec';
import { RandomNavigator } from './agents/random-navigator';
import { WikiExpert } from './agents/wiki-expert';
import { register } from './register';
import { WikiNavigatorEnv } from './wiki-navigator-env';

// The compact variant (`turngym/wiki-qa-compact-v1`, `observation: "compact"`): episodes short enough to be
// packed whole into a tiny byte-level model's 1,024-token context, on the same tasks as wiki-qa-v1.
const SMALL = { articles: 600, corpusSeed: 3 } as const;
const MULTI_HOP = { questionTypes: ['bridge', 'comparison'] as const, minHops: 2 };

interface Played {
  readonly question: string;
  readonly actions: string[];
  readonly observations: string[];
  readonly success: boolean;
  readonly hops: number;
}

/** One episode of `agent`, with every observation, as a trainer would pack it. */
async function play(env: WikiNavigatorEnv, agent: Agent<string, Action>, seed: number): Promise<Played> {
  const reset = await env.reset({ seed });
  await agent.start({ seed, spec: env.spec, observation: reset.observation, info: reset.info });
  const played = {
    question: reset.observation,
    actions: [] as string[],
    observations: [] as string[],
    success: false,
    hops: env.currentTask!.hops,
  };
  let observation = reset.observation;
  let info = reset.info;
  for (;;) {
    const action = String(await agent.act(observation, info));
    const step = await env.step(action);
    played.actions.push(action);
    played.observations.push(step.observation);
    ({ observation, info } = step);
    if (step.terminated || step.truncated) return { ...played, success: step.info.success === true };
  }
}

/**
 * Tokens of the episode packed as ChatML for the byte tokenizer (one token per UTF-8 byte, one per special
 * token), no system prompt: the question, then each action and the observation that follows it (the last
 * one, after the episode ended, is never packed).
 */
function chatMlTokens(episode: Played): number {
  const turn = (role: string, content: string): string => `\u0001${role}\n${content}\u0001\n`;
  let text = turn('user', episode.question);
  episode.actions.forEach((action, i) => {
    text += turn('assistant', action);
    if (i < episode.actions.length - 1) text += turn('user', episode.observations[i] as string);
  });
  return Buffer.byteLength(text);
}

describe('turngym/wiki-qa-compact-v1', () => {
  it('names the bad field: an unknown style, maxResults out of range, compact races, a fixed option', async () => {
    expect(() => new WikiNavigatorEnv({ observation: 'tiny' as never })).toThrow(
      /options\.observation must be one of.*full.*compact/,
    );
    expect(() => new WikiNavigatorEnv({ maxResults: 0 })).toThrow(/options\.maxResults/);
    expect(() => new WikiNavigatorEnv({ task: 'race', observation: 'compact' })).toThrow(
      /options\.observation "compact" is for QA/,
    );
    const registry = new Registry();
    register(registry);
    await expect(registry.make('turngym/wiki-qa-compact-v1', { options: { observation: 'full' } })).rejects.toThrow(
      /options\.observation is fixed by this id/,
    );
    await expect(registry.make('turngym/wiki-qa-v1', { options: { observation: 'compact' } })).rejects.toThrow(
      /options\.observation is fixed by this id/,
    );
  });

  it('shows the question once, then pages as title and infobox rows with [label] links; five tools', async () => {
    const env = new WikiNavigatorEnv({ ...SMALL, observation: 'compact', questionTypes: ['bridge'] });
    try {
      expect(env.spec.id).toBe('turngym/wiki-qa-compact-v1');
      expect(env.spec.tools?.map((tool) => tool.name)).toEqual(['SEARCH', 'NAVIGATE', 'CLICK', 'BACK', 'SUBMIT']);
      const reset = await env.reset({ seed: 2 });
      const task = env.currentTask!;
      expect(reset.observation).toBe(`Question: ${task.question}`);
      const first = env.corpus.get(task.goldPath[0] as string)!;
      const opened = await env.step(`NAVIGATE(${first.title})`);
      // Exactly the title and the infobox, links as [label]; no confirmation, line numbers, frame or budget.
      const infobox = first.infobox.map(
        ({ field, value }) => `${field}: ${value.replace(/\[\[(?:[^\]|]*\|)?([^\]]*)\]\]/g, '[$1]')}`,
      );
      expect(opened.observation).toBe([`# ${first.title}`, ...infobox].join('\n'));
      expect(opened.observation).not.toContain(task.question);
      // CLICK by the label as shown, with or without its brackets, follows the link.
      const next = task.goldPath[1] as string;
      const clicked = await env.step(`CLICK([${next}])`);
      expect(clicked.info).toMatchObject({ page: next, fingerprint: 'CLICK(infobox)' });
      expect(clicked.observation.split('\n')[0]).toBe(`# ${next}`);
      expect((await env.step('BACK')).observation).toContain(`# ${first.title}`);
      expect((await env.step(`CLICK(${next})`)).info.page).toBe(next);
      // Tools a compact page has no use for are malformed calls.
      expect((await env.step('SCROLL(down)')).info.invalidAction).toBe(true);
    } finally {
      await env.close();
    }
  });

  it('lists at most maxResults search results: titles only when compact, whole results when full', async () => {
    const compact = new WikiNavigatorEnv({ ...SMALL, observation: 'compact', maxResults: 3 });
    const full = new WikiNavigatorEnv({ ...SMALL, maxResults: 3 });
    const fullDefault = new WikiNavigatorEnv(SMALL);
    try {
      for (const env of [compact, full, fullDefault]) await env.reset({ seed: 1 });
      const query = 'SEARCH(painter)';
      const shown = (await compact.step(query)).observation.split('\n');
      expect(shown[0]).toBe('# Search results for "painter"');
      expect(shown.slice(1)).toHaveLength(3);
      expect(shown.slice(1).every((line) => /^\[[^\]#]+\]$/.test(line))).toBe(true);
      const fullView = await full.step(query);
      expect(fullView.observation).toContain('SEARCH "painter": 3 results.');
      expect(fullView.observation).toMatch(/L4 \[#3 [^\]]+\]: .+\n--- end of page ---/);
      expect((await fullDefault.step(query)).observation).toContain('SEARCH "painter": 10 results.');
      // A result's link keeps its number; links beyond maxResults are gone.
      expect((await compact.step('CLICK(1)')).info.page).toBe(shown[1]!.slice(1, -1));
      expect((await full.step('CLICK(4)')).observation).toContain('CLICK: no link "4" on this page.');
    } finally {
      for (const env of [compact, full, fullDefault]) await env.close();
    }
  });

  it('lets the scripted expert solve 60 multi-hop test questions in 300–1,024 tokens (2–3 hops: ≤ 800)', async () => {
    const compact = new WikiNavigatorEnv({ ...SMALL, ...MULTI_HOP, split: 'test', observation: 'compact' });
    const full = new WikiNavigatorEnv({ ...SMALL, ...MULTI_HOP, split: 'test' });
    try {
      const short: number[] = [];
      for (let seed = 0; seed < 60; seed++) {
        const episode = await play(compact, new WikiExpert(compact), seed);
        const tokens = chatMlTokens(episode);
        expect({ seed, success: episode.success }).toEqual({ seed, success: true });
        expect(tokens).toBeGreaterThan(300);
        expect(tokens).toBeLessThanOrEqual(episode.hops <= 3 ? 800 : 1024);
        if (episode.hops <= 3) short.push(tokens);
        // The same task in the full view is several times longer.
        if (seed < 10) expect(chatMlTokens(await play(full, new WikiExpert(full), seed))).toBeGreaterThan(3 * tokens);
      }
      expect(short.reduce((sum, tokens) => sum + tokens, 0) / short.length).toBeLessThanOrEqual(700);
    } finally {
      await compact.close();
      await full.close();
    }
  });

  it('is rarely solved by the random surfer, which clicks compact links by label', async () => {
    const env = new WikiNavigatorEnv({ ...SMALL, split: 'test', observation: 'compact' });
    try {
      const episodes: Played[] = [];
      for (let seed = 0; seed < 40; seed++) episodes.push(await play(env, new RandomNavigator(seed), seed));
      expect(episodes.filter((episode) => episode.success).length / episodes.length).toBeLessThan(0.3);
      const actions = episodes.flatMap((episode) => episode.actions);
      expect(actions.some((action) => /^CLICK\([^\d]/.test(action))).toBe(true);
      expect(actions.some((action) => action.startsWith('SUBMIT('))).toBe(true);
      expect(actions.filter((action) => /^(SCROLL|FIND|SAVE_LINE_IDS)/.test(action))).toEqual([]);
    } finally {
      await env.close();
    }
  });

  it('replays the same episode from the same seed, in a fresh env', async () => {
    const episodes: Played[] = [];
    for (let i = 0; i < 2; i++) {
      const env = new WikiNavigatorEnv({ ...SMALL, ...MULTI_HOP, observation: 'compact' });
      try {
        episodes.push(await play(env, new WikiExpert(env), 17));
      } finally {
        await env.close();
      }
    }
    expect(episodes[1]).toEqual(episodes[0]);
    expect(episodes[0]!.actions.length).toBeGreaterThanOrEqual(3);
  });

  it('offers a few hundred 2–3-hop train questions and ≥ 100 test questions in the default corpus', () => {
    const count = (split: 'train' | 'test'): number =>
      new WikiNavigatorEnv({ ...MULTI_HOP, maxHops: 3, split, observation: 'compact' }).availableTasks().length;
    expect(count('train')).toBeGreaterThanOrEqual(500);
    expect(count('test')).toBeGreaterThanOrEqual(100);
  });

  it('passes the env checker and runs the registered scripted agent', async () => {
    const registry = new Registry();
    register(registry);
    const report = await checkEnv('turngym/wiki-qa-compact-v1', { registry, options: SMALL });
    if (!report.passed) throw new Error(formatCheckReport(report));
    const env: Env<string, Action> = await registry.make('turngym/wiki-qa-compact-v1', { options: SMALL });
    try {
      const agent = registry.makeAgent('turngym/wiki-qa-compact-v1', 'scripted', { env, seed: 0 });
      expect(await runEpisode(env, agent, 5)).toMatchObject({ success: true });
    } finally {
      await env.close();
    }
  });
});
