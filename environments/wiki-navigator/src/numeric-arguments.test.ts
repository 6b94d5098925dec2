import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Action } from '@turngym/spec';
import { WikiNavigatorEnv } from './wiki-navigator-env';

// A model calling functions sends the link number the page shows, a line or a year as a JSON number; the text
// syntax cannot tell CLICK(3) from CLICK("3"). Both forms must do the same thing.
const SMALL = { articles: 600, corpusSeed: 3 } as const;

describe('numbers as tool arguments', () => {
  it('CLICK, SCROLL and SAVE_LINE_IDS take an integer as they take its text; a fraction is refused with feedback', async () => {
    const env = new WikiNavigatorEnv({ ...SMALL, toolBudget: 40 });
    try {
      await env.reset({ seed: 2 });
      const article = env.corpus.articles()[5]!;
      await env.step(`NAVIGATE(${article.title})`);
      const target = env.currentPage!.view.links[0]!.target;
      const clicks: Action[] = [
        'CLICK(1)',
        'CLICK({"link": 1})',
        { name: 'CLICK', arguments: { link: 1 } },
        { name: 'CLICK', arguments: '{"link": 1}' } as unknown as Action,
      ];
      for (const click of clicks) {
        const step = await env.step(click);
        expect({ click, reward: step.reward, page: step.info.page }).toEqual({ click, reward: 0, page: target });
        await env.step('BACK');
      }
      const fraction = await env.step({ name: 'CLICK', arguments: { link: 1.5 } });
      expect(fraction).toMatchObject({
        reward: -0.2,
        info: { invalidAction: true, feedback: 'CLICK: arguments.link must be string or integer (got 1.5).' },
      });

      const scrolled = await env.step({ name: 'SCROLL', arguments: { to: 3 } });
      expect(scrolled).toMatchObject({ reward: 0, info: { feedback: 'SCROLL 3: showing from L3.' } });
      const saved = await env.step({ name: 'SAVE_LINE_IDS', arguments: { ranges: 3 } });
      expect(saved).toMatchObject({ reward: 0, info: { feedback: 'SAVE_LINE_IDS: saved 1 line.' } });
    } finally {
      await env.close();
    }
  });

  it('keeps feedback short for a line number of 100,000 digits, in SCROLL and in SAVE_LINE_IDS', async () => {
    const env = new WikiNavigatorEnv({ ...SMALL, toolBudget: 40 });
    try {
      await env.reset({ seed: 2 });
      await env.step(`NAVIGATE(${env.corpus.articles()[5]!.title})`);
      const huge = '9'.repeat(100_000);
      for (const action of [`SCROLL(${huge})`, `SAVE_LINE_IDS(${huge}-1)`, `SAVE_LINE_IDS(${huge}x)`]) {
        const feedback = String((await env.step(action)).info.feedback);
        expect({ action: action.slice(0, 20), long: feedback.length > 200 }).toEqual({
          action: action.slice(0, 20),
          long: false,
        });
      }
    } finally {
      await env.close();
    }
  });

  it('SUBMIT takes a numeric answer as a number', async () => {
    const env = new WikiNavigatorEnv(SMALL);
    try {
      let seed = 0;
      await env.reset({ seed });
      while (!/^\d+$/.test(env.currentTask!.answers[0]!)) await env.reset({ seed: ++seed });
      const answer = Number(env.currentTask!.answers[0]);
      const step = await env.step({ name: 'SUBMIT', arguments: { answer } });
      expect(step).toMatchObject({ reward: 1, terminated: true, info: { success: true, answer: String(answer) } });
    } finally {
      await env.close();
    }
  });
});

describe('CLICK by a number that is also a label', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'wiki-number-labels-'));
    const lines = [
      { title: 'Hub', lead: 'Founded in [[1843]], near [[Alpha]], on road [[2]].' },
      { title: 'River', lead: 'It first ran by [[Alpha|the mill]], then by [[Beta|the mill]].' },
      ...['1843', 'Alpha', 'Beta', '2'].map((title) => ({ title, lead: `The article ${title} links to [[Hub]].` })),
    ];
    writeFileSync(join(dir, 'corpus.jsonl'), lines.map((line) => JSON.stringify(line)).join('\n'));
    writeFileSync(
      join(dir, 'tasks.jsonl'),
      JSON.stringify({ question: 'When was Hub founded?', answer: '1843', titles: ['Hub'], split: 'train' }),
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('follows the year link [#1 1843] as CLICK(1843), in text and as an integer: no link has that number', async () => {
    const env = new WikiNavigatorEnv({ corpus: join(dir, 'corpus.jsonl'), tasks: join(dir, 'tasks.jsonl') });
    try {
      await env.reset({ seed: 1 });
      for (const click of ['CLICK(1843)', { name: 'CLICK', arguments: { link: 1843 } }] as const) {
        await env.step('NAVIGATE(Hub)');
        const step = await env.step(click);
        expect({ click, page: step.info.page, feedback: step.info.feedback }).toEqual({
          click,
          page: '1843',
          feedback: 'Followed [#1 1843] to "1843".',
        });
      }
      // A number that names a link is that link, as the page writes it: [#2 Alpha].
      await env.step('NAVIGATE(Hub)');
      expect((await env.step('CLICK(2)')).info.page).toBe('Alpha');
    } finally {
      await env.close();
    }
  });

  it('follows a link copied whole, [#2 the mill] or #2 the mill, to link 2, not the first link with that label', async () => {
    const env = new WikiNavigatorEnv({ corpus: join(dir, 'corpus.jsonl'), tasks: join(dir, 'tasks.jsonl') });
    try {
      await env.reset({ seed: 1 });
      expect((await env.step('NAVIGATE(River)')).observation).toContain('[#1 the mill], then by [#2 the mill]');
      for (const click of ['CLICK([#2 the mill])', 'CLICK(#2 The Mill)', 'CLICK([#1 the mill])', 'CLICK(the mill)']) {
        const step = await env.step(click);
        expect({ click, page: step.info.page }).toEqual({ click, page: click.includes('#2') ? 'Beta' : 'Alpha' });
        await env.step('BACK');
      }
    } finally {
      await env.close();
    }
  });

  it('in the compact style, which shows no numbers, CLICK(2) follows the link labelled [2]', async () => {
    const env = new WikiNavigatorEnv({
      corpus: join(dir, 'corpus.jsonl'),
      tasks: join(dir, 'tasks.jsonl'),
      observation: 'compact',
    });
    try {
      await env.reset({ seed: 1 });
      expect((await env.step('NAVIGATE(Hub)')).observation).toContain('[1843]');
      expect((await env.step({ name: 'CLICK', arguments: { link: 2 } })).info.page).toBe('2');
      await env.step('BACK');
      // No label is "1": the number still names the first link.
      expect((await env.step('CLICK(1)')).info.page).toBe('1843');
    } finally {
      await env.close();
    }
  });
});
