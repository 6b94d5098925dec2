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

describe('titles and text in either Unicode normal form (NFC and NFD)', () => {
  // A precomposed `é` (U+00E9) and `e` + a combining acute (U+0301) read the same: MediaWiki stores titles in NFC,
  // while a peer's dump, a macOS file name or a model's tokenizer may give the decomposed form.
  const NFC = 'Caf\u00e9';
  const NFD = 'Cafe\u0301';
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'wiki-nfc-'));
    const lines = [
      {
        title: 'Hub',
        infobox: { Drink: `[[${NFD}|${NFD} noir]]` },
        lead: `Links: [[${NFD}]] and [[Nai\u0308ve art]].`,
      },
      { title: NFC, lead: 'A coffee house. It serves cr\u00e8me br\u00fbl\u00e9e. Back to [[Hub]].' },
      { title: 'Nai\u0308ve art', lead: 'Art by the untrained. Back to [[Hub]].' },
    ];
    writeFileSync(join(dir, 'corpus.jsonl'), lines.map((line) => JSON.stringify(line)).join('\n'));
    writeFileSync(
      join(dir, 'tasks.jsonl'),
      JSON.stringify({ question: 'What does Hub drink?', answer: `${NFC} noir`, titles: ['Hub'], split: 'train' }),
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a link, NAVIGATE, CLICK, SEARCH, FIND and SUBMIT written in NFD find what is written in NFC, and back', async () => {
    const env = new WikiNavigatorEnv({ corpus: join(dir, 'corpus.jsonl'), tasks: join(dir, 'tasks.jsonl') });
    try {
      expect(env.corpus.linksOf('Hub')).toEqual([NFC, 'Na\u00efve art']);
      await env.reset({ seed: 1 });
      expect((await env.step(`NAVIGATE(${NFD})`)).info.page).toBe(NFC);
      expect((await env.step('NAVIGATE(Na\u00efve art)')).info.page).toBe('Na\u00efve art');
      // A title copied from a URL: percent-escaped UTF-8.
      expect((await env.step('NAVIGATE(Caf%C3%A9)')).info.page).toBe(NFC);
      await env.step('NAVIGATE(Hub)');
      const clicked = await env.step(`CLICK(${NFD})`);
      expect(clicked.info).toMatchObject({ page: NFC, feedback: `Followed [#1 ${NFD}] to "${NFC}".` });
      await env.step('BACK');
      expect((await env.step(`CLICK(${NFC} noir)`)).info.page).toBe(NFC);
      const found = await env.step('FIND(cre\u0300me bru\u0302le\u0301e)');
      expect(found.info.feedback).toMatch(/^FIND "crème brûlée": 1 matching line/);
      const searched = await env.step(`SEARCH(${NFD})`);
      expect(searched.observation).toContain(`[#1 ${NFC}]`);
      const submitted = await env.step(`SUBMIT(${NFD} noir)`);
      expect(submitted).toMatchObject({ reward: 1, info: { success: true } });
    } finally {
      await env.close();
    }
  });
});

describe('text that would read as a link (`&#91;[x]]`, what the converter writes for <nowiki>[[x]]</nowiki>)', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'wiki-escaped-'));
    const lines = [
      { title: 'Markup', lead: 'Write &#91;[Lyon]] to link [[Lyon]]; &#38;#91; is an escape.' },
      { title: 'Lyon', lead: 'A city. Back to [[Markup]].' },
    ];
    writeFileSync(join(dir, 'corpus.jsonl'), lines.map((line) => JSON.stringify(line)).join('\n'));
    writeFileSync(
      join(dir, 'tasks.jsonl'),
      JSON.stringify({ question: 'What links?', answer: 'Lyon', titles: ['Markup'], split: 'train' }),
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('shows the escaped text as written, not as a link, with one link to the page it does link', async () => {
    const env = new WikiNavigatorEnv({ corpus: join(dir, 'corpus.jsonl'), tasks: join(dir, 'tasks.jsonl') });
    try {
      expect(env.corpus.linksOf('Markup')).toEqual(['Lyon']);
      expect(env.corpus.search('Markup', 1)[0]?.snippet).toBe('Write [[Lyon]] to link Lyon; &#91; is an escape.');
      await env.reset({ seed: 1 });
      const page = await env.step('NAVIGATE(Markup)');
      expect(page.observation).toContain('Write [[Lyon]] to link [#1 Lyon]; &#91; is an escape.');
      expect(page.observation).not.toContain('[#2');
    } finally {
      await env.close();
    }
  });
});
