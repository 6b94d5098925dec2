import { checkEnv, formatCheckReport, InvalidOptionsError, Registry, runEpisode, summarize } from '@turngym/core';
import type { Action, StepResult } from '@turngym/spec';
import { RandomNavigator } from './agents/random-navigator';
import { WikiExpert } from './agents/wiki-expert';
import { chromiumDescendants } from './browser/chromium-processes';
import { runningCorpusServers } from './server/corpus-server';
import { register } from './register';
import { WikiNavigatorEnv } from './wiki-navigator-env';

// Direct mode (no browser): behaviour, rewards, hooks, fork, bad input, the checker. The browser file
// checks that browser mode gives the same observations.
const SMALL = { articles: 600, corpusSeed: 3 } as const;

async function play(env: WikiNavigatorEnv, actions: readonly Action[]): Promise<StepResult<string>[]> {
  const out: StepResult<string>[] = [];
  for (const action of actions) out.push(await env.step(action));
  return out;
}

describe('WikiNavigatorEnv (direct mode)', () => {
  afterAll(() => {
    // Every env below is closed: the shared corpus servers must be gone, and no browser was ever started.
    expect(runningCorpusServers()).toBe(0);
    expect(chromiumDescendants()).toEqual([]);
  });

  it('the scripted expert solves ≥ 95% of test questions and races; the random baseline rarely does', async () => {
    for (const task of ['qa', 'race'] as const) {
      const env = new WikiNavigatorEnv({ ...SMALL, task, split: 'test' });
      try {
        const expert = [];
        const random = [];
        for (let seed = 0; seed < 60; seed++) {
          expert.push(await runEpisode(env, new WikiExpert(env), seed));
          random.push(await runEpisode(env, new RandomNavigator(seed), seed));
        }
        expect(summarize(expert).successRate).toBeGreaterThanOrEqual(0.95);
        expect(summarize(random).successRate).toBeLessThan(0.3);
        expect(expert.every((outcome) => outcome.toolCalls === outcome.turns && outcome.turns <= 10)).toBe(true);
      } finally {
        await env.close();
      }
    }
  });

  it('rewards a correct SUBMIT with 1 (EM), a wrong one with 0, and F1 partial credit with reward "f1"', async () => {
    const env = new WikiNavigatorEnv({ ...SMALL, questionTypes: ['single'] });
    const f1Env = new WikiNavigatorEnv({ ...SMALL, questionTypes: ['single'], reward: 'f1' });
    try {
      const reset = await env.reset({ seed: 4 });
      const task = env.currentTask!;
      const right = await env.step(`SUBMIT(${task.answers[0]})`);
      expect(right).toMatchObject({
        reward: 1,
        terminated: true,
        truncated: false,
        info: { success: true, em: 1, f1: 1, goldAnswers: task.answers },
      });
      expect(reset.info).toMatchObject({
        taskId: task.id,
        taskKind: 'single',
        hops: 1,
        split: 'train',
        toolCallsLeft: 10,
      });
      await env.reset({ seed: 4 });
      expect(await env.step('SUBMIT(certainly not this)')).toMatchObject({
        reward: 0,
        terminated: true,
        info: { success: false, em: 0 },
      });
      // F1: a two-word gold answer, half of it submitted.
      const twoWords = f1Env
        .availableTasks()
        .find((candidate) => (candidate.answers[0] as string).split(' ').length === 2)!;
      await f1Env.reset({ seed: 0, options: { taskId: twoWords.id } });
      const half = await f1Env.step(`SUBMIT(${(twoWords.answers[0] as string).split(' ')[0]})`);
      expect(half.reward).toBeCloseTo(2 / 3);
      expect(half.info.success).toBe(false);
    } finally {
      await env.close();
      await f1Env.close();
    }
  });

  it('counts one tool call per step in info.cost and truncates at the budget with the format penalty', async () => {
    const env = new WikiNavigatorEnv({ ...SMALL, toolBudget: 3 });
    try {
      await env.reset({ seed: 1 });
      const steps = await play(env, ['SCROLL(down)', 'FIND(x)', 'BACK']);
      expect(steps.map((step) => step.info.cost?.toolCalls)).toEqual([1, 1, 1]);
      expect(steps.map((step) => step.info.toolCallsLeft)).toEqual([2, 1, 0]);
      expect(steps[2]).toMatchObject({
        truncated: true,
        terminated: false,
        reward: -0.2,
        info: { truncatedBy: 'tool-calls', success: false },
      });
      expect(steps[2]?.observation).toContain('Out of tool calls without an answer');
      await expect(env.step('BACK')).rejects.toMatchObject({ code: 'RESET_NEEDED' });
    } finally {
      await env.close();
    }
  });

  it('answers bad input with feedback: unknown titles, dead links, empty queries, huge FIND strings, bad lines', async () => {
    const env = new WikiNavigatorEnv({ ...SMALL, toolBudget: 30 });
    try {
      await env.reset({ seed: 2 });
      const noPage = await env.step('CLICK(1)');
      expect(noPage).toMatchObject({ reward: 0, info: { feedback: expect.stringMatching(/no page is open/) } });

      const article = env.corpus
        .articles()
        .find((candidate) => candidate.sections.some((section) => section.title === 'See also'))!;
      const unknown = await env.step(`NAVIGATE(${article.title.slice(0, -2)}zz)`);
      expect(unknown.reward).toBe(0);
      expect(unknown.info.invalidAction).toBeUndefined();
      expect(unknown.observation).toMatch(/no article titled .*Similar titles: /);

      await env.step(`NAVIGATE(${article.title})`);
      const red = env.currentPage!.view.links.findIndex((link) => !env.corpus.has(link.target)) + 1;
      const dead = await env.step(`CLICK(${red})`);
      expect(dead.observation).toMatch(/has no article \(a red link\)/);
      expect(dead.info.page).toBe(article.title);
      expect((await env.step('CLICK(999)')).observation).toMatch(/no link "999" on this page/);

      const empty = await env.step('SEARCH("")');
      expect(empty).toMatchObject({ reward: 0, info: { feedback: expect.stringMatching(/needs words/) } });
      const huge = await env.step({ name: 'FIND', arguments: { text: 'x'.repeat(50_000) } });
      expect(huge).toMatchObject({ reward: 0, info: { feedback: expect.stringMatching(/look for at most 200/) } });
      const hugeQuery = await env.step({
        name: 'SEARCH',
        arguments: { query: `${article.title} ${'filler '.repeat(5000)}` },
      });
      expect(hugeQuery.observation).toMatch(/query cut to its first 200 characters/);
      await env.step('BACK');

      const bad = await env.step('SAVE_LINE_IDS(seven)');
      expect(bad).toMatchObject({ reward: -0.2, info: { invalidAction: true } });
      const beyond = await env.step('SAVE_LINE_IDS(1-2, 5000)');
      expect(beyond.observation).toMatch(/saved 2 lines\. The page has \d+ lines; L5000 do not exist/);
      expect(beyond.observation).toContain(`- ${article.title} L1: ${article.title}`);
      expect((await env.step('SCROLL(sideways)')).info.invalidAction).toBe(true);
      const malformed = await env.step('\u0000}{ not an action ((');
      expect(malformed).toMatchObject({
        reward: -0.2,
        terminated: false,
        info: { invalidAction: true, fingerprint: 'INVALID' },
      });
      expect((await env.step('TELEPORT(home)')).observation).toMatch(/Unknown tool "TELEPORT"/);
    } finally {
      await env.close();
    }
  });

  it('answers text that is not well-formed Unicode (a lone surrogate, an emoji at the cut) with an ordinary step', async () => {
    const env = new WikiNavigatorEnv({ ...SMALL, toolBudget: 30 });
    try {
      await env.reset({ seed: 2 });
      const title = env.corpus.articles()[0]!.title;
      // 199 characters, then an emoji across the 200-character cut: the query keeps the whole emoji.
      const straddling = await env.step(`SEARCH(${title} ${'x'.repeat(198 - title.length)}🦄 more)`);
      expect(straddling).toMatchObject({ reward: 0, terminated: false });
      expect(straddling.observation).toMatch(/query cut to its first 200 characters/);
      for (const action of [
        { name: 'SEARCH', arguments: { query: '\ud800' } },
        { name: 'SEARCH', arguments: { query: `${title} \udc00 bay` } },
        { name: 'NAVIGATE', arguments: { title: `${title}\ud800` } },
        { name: 'FIND', arguments: { text: '\ud800' } },
        { name: 'CLICK', arguments: { link: '\ud800' } },
      ]) {
        const step = await env.step(action);
        expect(step).toMatchObject({ reward: 0, terminated: false });
        expect(step.info.invalidAction).toBeUndefined();
        // What the env echoes is well-formed too (a lone surrogate is shown as U+FFFD).
        expect(step.observation).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
      }
      expect((await env.step(`NAVIGATE(${title})`)).info.page).toBe(title);
    } finally {
      await env.close();
    }
  });

  it('answers at once on long runs in SAVE_LINE_IDS, CLICK and NAVIGATE arguments', async () => {
    const env = new WikiNavigatorEnv({ ...SMALL, toolBudget: 30 });
    try {
      await env.reset({ seed: 2 });
      const title = env.corpus.articles()[0]!.title;
      await env.step(`NAVIGATE(${title})`);
      // Hang guards, ~100× what each step takes: before, a range and 100,000 blanks took 20 s (an ` and ` split
      // retried inside the run), 25,000 unclosed `[#1 ` markers 6 s, and a 50,000-letter title 2.4 s and 2.5 GB
      // (fuzzy title matching allocates the square of a word's length; 100,000 letters threw a RangeError).
      for (const action of [
        `SAVE_LINE_IDS(1${' '.repeat(100_000)}x)`,
        `CLICK(${'[#1 '.repeat(25_000)})`,
        `NAVIGATE(${'a'.repeat(100_000)})`,
      ]) {
        const started = performance.now();
        const step = await env.step(action);
        expect(performance.now() - started).toBeLessThan(1000);
        // Ordinary steps with feedback (an unreadable one pays the format penalty), the episode going on.
        expect(step).toMatchObject({ terminated: false, truncated: false });
        expect(step.observation).toMatch(/SAVE_LINE_IDS: cannot read|CLICK: no link|NAVIGATE: no article/);
      }
      expect((await env.step('SAVE_LINE_IDS(1 and 2)')).observation).not.toMatch(/cannot read/);
    } finally {
      await env.close();
    }
  });

  it('searches with BM25, clicks results, finds text, scrolls, saves notes and goes back', async () => {
    const env = new WikiNavigatorEnv({ ...SMALL, windowLines: 5 });
    try {
      await env.reset({ seed: 3 });
      const article = env.corpus.articles().find((candidate) => candidate.type === 'person')!;
      const search = await env.step(`SEARCH(${article.title})`);
      expect(search.observation).toMatch(new RegExp(`L2 \\[#1 ${article.title}\\]`));
      expect(search.info).toMatchObject({ fingerprint: 'SEARCH', anchor: 'search#lead' });
      const click = await env.step('CLICK(1)');
      expect(click.info).toMatchObject({ page: article.title, fingerprint: 'CLICK(results)', anchor: 'person#lead' });
      expect(click.observation).toContain(`--- ${article.title} (person) · lines 1–5 of`);
      const find = await env.step('FIND(born in)');
      expect(find.observation).toMatch(/FIND "born in": \d+ matching lines? \(L\d+.*showing from L(\d+)/);
      const scrolled = await env.step('SCROLL(top)');
      expect(scrolled.observation).toContain('showing from L1');
      const saved = await env.step('SAVE_LINE_IDS(2)');
      expect(saved.observation).toMatch(/Notes \(1 line\):\n- .* L2: Born: \d+/);
      const back = await env.step('BACK');
      expect(back.info.page).toMatch(/^Search results for/);
      expect(back.observation).toMatch(/Notes \(1 line\)/); // notes survive navigation
    } finally {
      await env.close();
    }
  });

  it('fingerprints the action type and abstract target, anchors at article type and section', async () => {
    const env = new WikiNavigatorEnv({ ...SMALL, windowLines: 5 });
    try {
      await env.reset({ seed: 9 });
      expect(env.anchor()).toBe('start#question');
      const person = env.corpus.articles().find((candidate) => candidate.type === 'person')!;
      expect(env.fingerprint(`NAVIGATE(${person.title})`)).toBe('NAVIGATE(person)');
      expect(env.fingerprint('NAVIGATE(No Such Article Anywhere)')).toBe('NAVIGATE(missing)');
      expect(env.fingerprint('CLICK(1)')).toBe('CLICK(none)');
      expect(env.fingerprint('SUBMIT(x)')).toBe('SUBMIT');
      expect(env.fingerprint(42 as unknown as Action)).toBe('INVALID');
      await env.step(`NAVIGATE(${person.title})`);
      expect(env.fingerprint('CLICK(1)')).toBe('CLICK(infobox)'); // the birthplace link in the infobox
      expect(env.anchor()).toBe('person#lead');
      await env.step('FIND(Born:)');
      expect(env.anchor()).toBe('person#infobox');
      await env.step('SCROLL(bottom)');
      expect(env.anchor()).toMatch(/^person#(works|personal-life|career|early-life|see-also)$/);
    } finally {
      await env.close();
    }
  });

  it('forks natively: the fork continues like the original, and neither affects the other', async () => {
    const env = new WikiNavigatorEnv({ ...SMALL, task: 'race' });
    try {
      const reset = await env.reset({ seed: 12 });
      const expert = new WikiExpert(env);
      await expert.start({ seed: 12, spec: env.spec, observation: reset.observation, info: reset.info });
      const first = await env.step(await expert.act(reset.observation, reset.info));
      const fork = (await env.fork()) as WikiNavigatorEnv;
      const rest = async (target: WikiNavigatorEnv): Promise<StepResult<string>[]> => {
        const agent = new WikiExpert(target);
        await agent.start({ seed: 12, spec: target.spec, observation: reset.observation, info: reset.info });
        const steps: StepResult<string>[] = [];
        let last = first;
        for (;;) {
          last = await target.step(await agent.act(last.observation, last.info));
          steps.push(last);
          if (last.terminated || last.truncated) return steps;
        }
      };
      const forkSteps = await rest(fork);
      const originalSteps = await rest(env);
      const strip = (steps: StepResult<string>[]) =>
        steps.map((step) => ({ ...step, info: { ...step.info, cost: { ...step.info.cost!, wallMs: 0 } } }));
      expect(strip(forkSteps)).toEqual(strip(originalSteps));
      expect(forkSteps.at(-1)?.info.success).toBe(true);
      await fork.close();
      await expect(fork.step('BACK')).rejects.toMatchObject({ code: 'ENV_CLOSED' });
    } finally {
      await env.close();
    }
  });

  it('draws tasks by seed from the chosen split, and validates options', async () => {
    const train = new WikiNavigatorEnv(SMALL);
    const test = new WikiNavigatorEnv({ ...SMALL, split: 'test' });
    try {
      const ids = async (env: WikiNavigatorEnv) => {
        const out: unknown[] = [];
        for (const seed of [1, 2, 3, 1]) out.push((await env.reset({ seed })).info.taskId);
        return out;
      };
      const trainIds = await ids(train);
      expect(trainIds[0]).toBe(trainIds[3]);
      expect(new Set(trainIds).size).toBe(3);
      const testSubjects = new Set(test.availableTasks().map((task) => task.goldPath[0]));
      expect(train.availableTasks().some((task) => testSubjects.has(task.goldPath[0]))).toBe(false);
      await expect(train.reset({ seed: 1, options: { taskId: 'race-000001' } })).rejects.toBeInstanceOf(
        InvalidOptionsError,
      );
      await expect(train.reset({ seed: 1, options: { level: 3 } })).rejects.toThrow(/unknown field "level"/);
    } finally {
      await train.close();
      await test.close();
    }
    expect(() => new WikiNavigatorEnv({ minHops: 4, maxHops: 2 })).toThrow(/minHops/);
    expect(() => new WikiNavigatorEnv({ mode: 'firefox' as never })).toThrow(/options.mode must be one of/);
  });

  it('registers ids that pass the env checker (direct mode, fresh registry)', async () => {
    const registry = new Registry();
    register(registry);
    expect(registry.list()).toEqual(['turngym/wiki-qa-compact-v1', 'turngym/wiki-qa-v1', 'turngym/wiki-race-v1']);
    for (const id of registry.list()) {
      const report = await checkEnv(id, { registry, options: { ...SMALL, mode: 'direct' } });
      if (!report.passed) throw new Error(formatCheckReport(report));
    }
    const env = await registry.make('turngym/wiki-race-v1', { options: SMALL });
    expect(env.spec).toMatchObject({
      id: 'turngym/wiki-race-v1',
      maxTurns: 10,
      rewardRange: [-0.2, 1],
      packageName: '@turngym/env-wiki-navigator',
    });
    expect(env.spec.tools?.map((tool) => tool.name)).toEqual(['CLICK', 'FIND', 'SCROLL', 'BACK']);
    await env.close();
    await expect(registry.make('turngym/wiki-qa-v1', { options: { task: 'race' } })).rejects.toThrow(
      /fixed by this id/,
    );
  });
});
