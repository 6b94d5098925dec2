import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseJsonlCorpus } from './jsonl-corpus';
import { convertMediaWikiFile, MAX_PAGE_CHARACTERS, wikitextToArticle } from './mediawiki-converter';
import { boundWikitext, MAX_TEMPLATE_DEPTH, SENTENCE_RUN, templateBudget } from './wikitext-budget';

const page = (title: string, text: string): string =>
  `<page><title>${title}</title><ns>0</ns><id>1</id><revision><id>2</id><text xml:space="preserve">${text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')}</text></revision></page>`;
const dump = (...pages: string[]): string => `<mediawiki><siteinfo><sitename>Test</sitename></siteinfo>
${pages.join('\n')}
</mediawiki>`;
const words = (count: number, prefix = 'word'): string =>
  Array.from({ length: count }, (_, i) => `${prefix}${i}`).join(' ');

describe('bounding the work of one page (boundWikitext)', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'wiki-budget-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  // Each conversion in its own folder: one a timed-out test left running cannot rename another's output.
  const convert = async (...pages: string[]) => {
    const folder = mkdtempSync(join(dir, 'dump-'));
    writeFileSync(join(folder, 'dump.xml'), dump(...pages, page('Plain', 'A plain page links [[Paris]].')));
    const stats = await convertMediaWikiFile(join(folder, 'dump.xml'), join(folder, 'corpus.jsonl'));
    const { articles } = parseJsonlCorpus(readFileSync(join(folder, 'corpus.jsonl'), 'utf8'));
    return { stats, articles: new Map(articles.map((article) => [article.title, article])) };
  };

  it('a page of templates nested 2,000 deep is converted without them, counted and named, and the dump converts on', async () => {
    // wtf_wikipedia recursed once per level and overflowed the stack: the whole conversion failed on this page.
    const nested = `Before. ${'{{x|'.repeat(2000)}y${'}}'.repeat(2000)} After [[Lyon]].`;
    const { stats, articles } = await convert(page('Nested', nested));
    expect(stats).toMatchObject({ articles: 2, degraded: 1 });
    expect(stats.notes).toEqual([`"Nested": converted without 1 templates nested over ${MAX_TEMPLATE_DEPTH} deep`]);
    expect(articles.get('Nested')?.lead).toBe('Before. After [[Lyon]].');
    expect(articles.get('Plain')?.lead).toBe('A plain page links [[Paris]].');
  });

  it('templates past the page budget are left out and counted; the ones before it keep their links', async () => {
    const count = templateBudget(200_000) + 50;
    const text = Array.from({ length: count }, (_, i) => `{{nowrap|[[Place ${i}]]}}.`).join(' ');
    const { stats, articles } = await convert(page('Many', text));
    expect(stats.degraded).toBe(1);
    const budget = templateBudget(text.length);
    expect(stats.notes).toEqual([`"Many": converted without ${count - budget} templates after the ${budget}th`]);
    const lead = articles.get('Many')?.lead ?? '';
    expect(lead.startsWith('[[Place 0]]. [[Place 1]].')).toBe(true);
    expect(lead).toContain(`[[Place ${budget - 1}]]`);
    expect(lead).not.toContain(`[[Place ${budget}]]`);
  }, 120_000); // 5,000 linked templates through wtf_wikipedia: 4.5 s alone, far more beside other suites

  it('a page longer than a wiki may save is counted as not converted, by name', async () => {
    const { stats, articles } = await convert(page('Huge', 'A sentence. '.repeat(MAX_PAGE_CHARACTERS / 12 + 10)));
    expect(stats).toMatchObject({ articles: 1, failed: 1 });
    expect(stats.notes?.[0]).toMatch(/^"Huge": not converted: its wikitext is over 2097152 characters/);
    expect(articles.has('Huge')).toBe(false);
  });

  it('an ordinary page is left as it is, character for character, and reports nothing', () => {
    const text = `{{Infobox person\n| name = A\n}}\n'''A''' is ${words(50)}.\n\n== History ==\n* [[B]]\n{|\n| x || y\n|}`;
    expect(boundWikitext(text)).toEqual({ wikitext: text, leftOut: [] });
  });

  it('a paragraph with no sentence end for 40,000 characters keeps all its text (it is broken where wtf reads a space)', () => {
    // wtf_wikipedia's sentence splitter takes time growing with the square of such a run (190,000 characters: 154 s).
    const text = `'''Long''' ${words(4000)} and [[Paris|the city]] ${words(1000, 'more')} end.`;
    const bounded = boundWikitext(text);
    expect(bounded.leftOut).toEqual([]);
    expect(bounded.wikitext.split('\n').length).toBeGreaterThan(10);
    expect(bounded.wikitext.split('\n').every((line) => line.length <= SENTENCE_RUN + 40)).toBe(true);
    expect(bounded.wikitext.replace(/\n/g, ' ')).toBe(text);
    expect(wikitextToArticle('Long', text).lead).toBe(
      `Long ${words(4000)} and [[Paris|the city]] ${words(1000, 'more')} end.`,
    );
  });

  it('a run it cannot break safely (inside bold, a heading) is left out by line and counted', () => {
    const bold = `Start.\n\n'''${words(1000)}''' end.\n\nKept [[Lyon]].`;
    const bounded = boundWikitext(bold);
    expect(bounded.leftOut).toEqual(['1 lines with over 2000 characters and no sentence end outside markup']);
    // The bold run is left out; what follows its end on the line is kept.
    expect(wikitextToArticle('Bold', bold).lead).toBe('Start.\n\nend.\n\nKept [[Lyon]].');
    const heading = `Lead.\n== ${words(1000)} ==\nText.`;
    expect(boundWikitext(heading).leftOut).toHaveLength(1);
  });
});
