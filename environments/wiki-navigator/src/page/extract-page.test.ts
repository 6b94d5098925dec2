import { renderArticleHtml, renderSearchHtml } from '../server/article-html';
import type { Article } from '../corpus/article';
import { extractPage, type DomDocument } from './extract-page';

const { parseHTML } = require('linkedom') as { parseHTML(html: string): { document: DomDocument } };
const extract = (html: string) => extractPage(parseHTML(html).document);

describe('extractPage (run over linkedom here; the browser tests run it in Chromium)', () => {
  const article: Article = {
    title: 'Morrow Bay',
    type: 'place',
    infobox: [
      { field: 'Country', value: '[[Veldoria]]' },
      { field: 'Population', value: '48,200' },
    ],
    lead: 'Morrow Bay is a city in [[Veldoria]]. It lies near [[St. Ives|St. Ives. The town]] and the sea! Founded in 1801.',
    sections: [
      {
        title: 'Notable people',
        text: '* [[Aldric Venn]] (1843)\n* [[Missing Person]]\n* [[Aldric Venn|the founder]] again',
      },
      { title: 'Long text', text: `${'word '.repeat(70)}end.` },
    ],
  };
  const exists = (title: string): boolean => title !== 'Missing Person';
  const page = extract(renderArticleHtml(article, exists));

  it('reads title, infobox rows, lead sentences, headings and list items as lines with regions and sections', () => {
    expect(page).toMatchObject({ kind: 'article', type: 'place', title: 'Morrow Bay' });
    expect(page.lines.slice(0, 3)).toEqual([
      { text: 'Morrow Bay', region: 'title', section: 'lead' },
      { text: 'Country: [#1 Veldoria]', region: 'infobox', section: 'infobox' },
      { text: 'Population: 48,200', region: 'infobox', section: 'infobox' },
    ]);
    expect(page.lines.slice(3, 6).map((line) => line.text)).toEqual([
      'Morrow Bay is a city in [#1 Veldoria].',
      'It lies near [#2 St. Ives. The town] and the sea!', // no split inside a link marker
      'Founded in 1801.',
    ]);
    expect(page.lines[6]).toEqual({ text: '== Notable people ==', region: 'heading', section: 'notable-people' });
    expect(page.lines[7]).toEqual({ text: '• [#3 Aldric Venn] (1843)', region: 'body', section: 'notable-people' });
  });

  it('numbers each distinct target once, red links included, with the region of first appearance and every label', () => {
    expect(page.lines[9]).toEqual({ text: '• [#3 the founder] again', region: 'body', section: 'notable-people' });
    expect(page.links).toEqual([
      { target: 'Veldoria', label: 'Veldoria', labels: ['Veldoria'], region: 'infobox' },
      { target: 'St. Ives', label: 'St. Ives. The town', labels: ['St. Ives. The town'], region: 'lead' },
      { target: 'Aldric Venn', label: 'Aldric Venn', labels: ['Aldric Venn', 'the founder'], region: 'body' },
      { target: 'Missing Person', label: 'Missing Person', labels: ['Missing Person'], region: 'body' },
    ]);
  });

  it('wraps long sentences at spaces, at most 160 characters a line', () => {
    const long = page.lines.filter((line) => line.section === 'long-text');
    expect(long.length).toBeGreaterThan(2);
    expect(long.every((line) => line.text.length <= 160)).toBe(true);
    expect(long.map((line) => line.text).join(' ')).toBe(`== Long text == ${'word '.repeat(70)}end.`);
  });

  it('splits Chinese and Japanese sentences at 。！？ and cuts a line with no space at 160 characters', () => {
    // Chinese and Japanese put no space between words or after a full stop: a paragraph was one line.
    const clause = '北京是中华人民共和国的首都，也是全国的政治中心和文化中心';
    const emoji = '🎉'.repeat(200); // 400 UTF-16 units, no space: cut between characters, never inside one
    const cjk = extract(
      renderArticleHtml(
        {
          title: '北京',
          type: 'place',
          infobox: [],
          lead: `${clause}。人口は多い！「本当？」と[[東京]]の人は言った。${clause.repeat(12)}[[中华人民共和国|共和国]]${clause.repeat(3)}`,
          sections: [{ title: 'Party', text: emoji }],
        },
        () => true,
      ),
    );
    const lead = cjk.lines.filter((line) => line.region === 'lead').map((line) => line.text);
    // A closing quote stays with the sentence it closes.
    expect(lead.slice(0, 4)).toEqual([`${clause}。`, '人口は多い！', '「本当？」', 'と[#1 東京]の人は言った。']);
    expect(lead.length).toBeGreaterThan(5);
    expect(lead.every((line) => line.length <= 160)).toBe(true);
    expect(lead.join('')).toBe(
      `${clause}。人口は多い！「本当？」と[#1 東京]の人は言った。${clause.repeat(12)}[#2 共和国]${clause.repeat(3)}`,
    );
    expect(lead.some((line) => line.includes('[#2 共和国]'))).toBe(true); // a marker is never cut
    const party = cjk.lines.filter((line) => line.section === 'party' && line.region === 'body');
    expect(party.map((line) => line.text).join('')).toBe(emoji);
    expect(party.every((line) => line.text.length <= 160 && line.text.isWellFormed())).toBe(true);
  });

  it('reads a search results page as one line per result', () => {
    const results = extract(
      renderSearchHtml('morrow', [
        { title: 'Morrow Bay', snippet: 'A city.', score: 3 },
        { title: 'Aldric Venn', snippet: 'A painter.', score: 1 },
      ]),
    );
    expect(results.kind).toBe('search');
    expect(results.lines.slice(1)).toEqual([
      { text: '[#1 Morrow Bay]: A city.', region: 'results', section: 'results' },
      { text: '[#2 Aldric Venn]: A painter.', region: 'results', section: 'results' },
    ]);
  });

  it('escapes markup in corpus text (a title cannot inject HTML)', () => {
    const evil = extract(
      renderArticleHtml({ ...article, title: '<b>Bold</b> & "x"', lead: 'Text <script>alert(1)</script>.' }, exists),
    );
    expect(evil.title).toBe('<b>Bold</b> & "x"');
    expect(evil.lines.find((line) => line.region === 'lead')?.text).toBe('Text <script>alert(1)</script>.');
  });

  it('names sections by their headings in any script (each heading its own section)', () => {
    const unicode = extract(
      renderArticleHtml(
        {
          title: '北京',
          type: 'place',
          infobox: [],
          lead: 'Lead.',
          sections: [
            { title: '历史', text: 'Old.' },
            { title: '地理', text: 'Land.' },
            { title: 'Économie et société', text: 'Trade.' },
          ],
        },
        () => true,
      ),
    );
    const sectionOf = (text: string): string | undefined => unicode.lines.find((line) => line.text === text)?.section;
    expect([sectionOf('Old.'), sectionOf('Land.'), sectionOf('Trade.')]).toEqual([
      '历史',
      '地理',
      'économie-et-société',
    ]);
  });
});
