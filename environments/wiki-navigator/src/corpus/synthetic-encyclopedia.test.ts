import { parseLinks, stripLinks, type Article } from './article';
import { generateSyntheticArticles, syntheticCorpus } from './synthetic-encyclopedia';

const field = (article: Article, name: string): string | undefined =>
  article.infobox.find((entry) => entry.field === name)?.value;
const linkTarget = (value: string | undefined): string | undefined =>
  value ? parseLinks(value)[0]?.target : undefined;

describe('the synthetic encyclopedia', () => {
  const corpus = syntheticCorpus({ seed: 11, articles: 1500 });
  const articles = corpus.articles();
  const byTitle = (title: string | undefined): Article => corpus.get(title as string) as Article;

  it('is seeded: the same seed gives the same articles, another seed another world', () => {
    const again = generateSyntheticArticles({ seed: 11, articles: 300 });
    expect(generateSyntheticArticles({ seed: 11, articles: 300 })).toEqual(again);
    const other = generateSyntheticArticles({ seed: 12, articles: 300 });
    expect(other.map((article) => article.title)).not.toEqual(again.map((article) => article.title));
  });

  it('has the requested number of articles, unique titles, and every kind of entity', () => {
    expect(corpus.size).toBe(1500);
    expect(new Set(articles.map((article) => article.title)).size).toBe(1500);
    const types = new Set(articles.map((article) => article.type));
    expect([...types].sort()).toEqual(['organisation', 'person', 'place', 'work']);
  });

  it('links only to existing articles, except deliberate red links under "See also"', () => {
    for (const article of articles) {
      const texts = [
        ...article.infobox.map((entry) => entry.value),
        article.lead,
        ...article.sections.filter((section) => section.title !== 'See also').map((section) => section.text),
      ];
      for (const text of texts) for (const link of parseLinks(text)) expect(corpus.has(link.target)).toBe(true);
    }
    const red = articles
      .flatMap((article) => article.sections.filter((section) => section.title === 'See also'))
      .flatMap((section) => parseLinks(section.text));
    expect(red.length).toBeGreaterThan(0);
    expect(red.every((link) => !corpus.has(link.target))).toBe(true);
  });

  it('keeps facts consistent across articles and with the prose', () => {
    const people = articles.filter((article) => article.type === 'person');
    for (const person of people) {
      const born = Number(field(person, 'Born'));
      const birthplace = byTitle(linkTarget(field(person, 'Birthplace')));
      expect(Number(field(birthplace, 'Founded'))).toBeLessThan(born);
      const died = field(person, 'Died');
      if (died) expect(Number(died)).toBeGreaterThan(born);
      const spouse = linkTarget(field(person, 'Spouse'));
      if (spouse) expect(linkTarget(field(byTitle(spouse), 'Spouse'))).toBe(person.title);
      expect(stripLinks(person.lead)).toContain(stripLinks(field(person, 'Birthplace') as string));
    }
    for (const work of articles.filter((article) => article.type === 'work')) {
      const creator = byTitle(linkTarget(field(work, 'Author') ?? field(work, 'Director') ?? field(work, 'Artist')));
      const year = Number(field(work, 'Published') ?? field(work, 'Released') ?? field(work, 'Completed'));
      expect(year).toBeGreaterThanOrEqual(Number(field(creator, 'Born')));
      const died = field(creator, 'Died');
      if (died) expect(year).toBeLessThanOrEqual(Number(died));
    }
    for (const country of articles.filter((article) => field(article, 'Type') === 'Country')) {
      const capital = byTitle(linkTarget(field(country, 'Capital')));
      expect(linkTarget(field(capital, 'Country'))).toBe(country.title);
    }
  });

  it('has a link graph an agent can navigate: every article links out, most are linked to', () => {
    const linkedTo = new Set<string>();
    for (const article of articles) {
      const out = corpus.linksOf(article.title);
      expect(out.length).toBeGreaterThan(0);
      for (const target of out) linkedTo.add(target);
    }
    expect(linkedTo.size / corpus.size).toBeGreaterThan(0.9);
  });

  it('ranks the article whose title matches a query first (BM25 via minisearch)', () => {
    const work = articles.find((article) => article.type === 'work') as Article;
    expect(corpus.search(work.title, 5)[0]?.title).toBe(work.title);
    expect(corpus.search('zzzz qqqq', 5)).toEqual([]);
    expect(corpus.similarTitles(work.title.slice(0, -1), 3)).toContain(work.title);
  });
});
