import { WikiNavigatorEnv } from '@turngym/env-wiki-navigator';
import { compactPage } from './export-pages';

describe('the pages the copy pretraining reads', () => {
  it('are written exactly as turngym/wiki-qa-compact-v1 shows an opened page', async () => {
    const env = new WikiNavigatorEnv({ articles: 300, corpusSeed: 2, observation: 'compact', toolBudget: 20 });
    try {
      await env.reset({ seed: 0 });
      // Articles of every kind: countries, cities, organisations, people and works, each opened in turn.
      const articles = env.corpus.articles().filter((_, i) => i % 25 === 0);
      expect(new Set(articles.map((article) => article.type)).size).toBeGreaterThanOrEqual(4);
      for (const article of articles) {
        const opened = await env.step(`NAVIGATE(${article.title})`);
        expect(opened.observation).toBe(compactPage(article));
      }
    } finally {
      await env.close();
    }
  });
});
