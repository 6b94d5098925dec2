import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { articlePath } from './corpus/article';
import { Corpus } from './corpus/corpus';
import { parseJsonlCorpus } from './corpus/jsonl-corpus';
import { escapeHtml } from './server/article-html';
import { CorpusServer } from './server/corpus-server';
import { WikiNavigatorEnv } from './wiki-navigator-env';

// Titles that are URL syntax: a dot segment, a path separator, a query, an escape. Each must open its own
// article, by NAVIGATE and by CLICK, in direct mode (the browser file holds browser mode to the same pages).
const ODD = ['.', '..', 'AC/DC', 'What?', '100%', 'Foo/..', 'C++'];

describe('articles whose titles are URL syntax', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'wiki-odd-titles-'));
    const lines = [
      { title: 'Hub', infobox: { Founded: '1901' }, lead: `Links: ${ODD.map((title) => `[[${title}]]`).join(', ')}.` },
      ...ODD.map((title) => ({ title, lead: `The article ${title} links back to [[Hub]].` })),
      { title: 'Sectioned', lead: "See [[Hub#Founding|Hub's founding]], [[hub#Links]] and [[#Top|the top]]." },
    ];
    writeFileSync(join(dir, 'corpus.jsonl'), lines.map((line) => JSON.stringify(line)).join('\n'));
    writeFileSync(
      join(dir, 'tasks.jsonl'),
      JSON.stringify({ question: 'When was Hub founded?', answer: '1901', titles: ['Hub'], split: 'train' }),
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('the server serves each under its own path (`.` and `..` are not dot segments of the URL)', () => {
    const server = new CorpusServer(
      new Corpus(
        parseJsonlCorpus(ODD.map((title) => JSON.stringify({ title, lead: `About ${title}.` })).join('\n')).articles,
      ),
    );
    for (const title of ODD) {
      const page = server.page(articlePath(title));
      expect({ title, status: page.status }).toEqual({ title, status: 200 });
      expect(page.html).toContain(`<h1 id="firstHeading">${escapeHtml(title)}</h1>`);
    }
  });

  it('NAVIGATE and CLICK open them', async () => {
    const env = new WikiNavigatorEnv({ corpus: join(dir, 'corpus.jsonl'), tasks: join(dir, 'tasks.jsonl') });
    try {
      await env.reset({ seed: 1 });
      for (const title of ODD) {
        const navigated = await env.step(`NAVIGATE(${title})`);
        expect({ title, opened: env.currentPage?.view.title, feedback: navigated.info.feedback }).toEqual({
          title,
          opened: title,
          feedback: `Opened "${title}".`,
        });
        await env.step('NAVIGATE(Hub)');
        const number = ODD.indexOf(title) + 1;
        const clicked = await env.step({ name: 'CLICK', arguments: { link: String(number) } });
        expect({ title, opened: env.currentPage?.view.title, reward: clicked.reward }).toEqual({
          title,
          opened: title,
          reward: 0,
        });
        await env.reset({ seed: 1 }); // a fresh budget for the next title
      }
    } finally {
      await env.close();
    }
  });

  it('follows a link to a section of a page to that page, and NAVIGATE(Page#Section) opens it', async () => {
    // MediaWiki links: `#` starts a section of the target (no title holds one); `[[#Top]]` is this page's own.
    const env = new WikiNavigatorEnv({ corpus: join(dir, 'corpus.jsonl'), tasks: join(dir, 'tasks.jsonl') });
    try {
      expect(env.corpus.linksOf('Sectioned')).toEqual(['Hub']);
      await env.reset({ seed: 1 });
      const navigated = await env.step('NAVIGATE(Hub#Founding)');
      expect(navigated.info).toMatchObject({ page: 'Hub', feedback: 'Opened "Hub".' });
      const sectioned = await env.step('NAVIGATE(Sectioned)');
      expect(sectioned.observation).toContain("See [#1 Hub's founding], [#1 hub#Links] and the top.");
      const clicked = await env.step("CLICK(Hub's founding)");
      expect(clicked.info).toMatchObject({ page: 'Hub', feedback: `Followed [#1 Hub's founding] to "Hub".` });
    } finally {
      await env.close();
    }
  });
});
