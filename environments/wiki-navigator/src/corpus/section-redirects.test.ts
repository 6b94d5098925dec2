import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WikiNavigatorEnv } from '../wiki-navigator-env';
import { buildCorpusStore } from './corpus-store-builder';
import { readJsonlCorpus } from './jsonl-corpus';
import { convertMediaWikiFile } from './mediawiki-converter';
import { openCorpusStore, releaseCorpusStore } from './sqlite-corpus';

// A redirect to a section of another page (`#REDIRECT [[Paris#History]]`, one of Wikipedia's most common kinds)
// leads to that page, as on the wiki. Its target was read as the title "Paris#History", which no article has:
// NAVIGATE and every link to the redirect were dead ends ("a red link").
describe('redirects to a section of a page', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'section-redirects-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('lead to the page, in memory and on a store, from a JSONL corpus and from a converted dump', async () => {
    const page = (title: string, text: string, redirect?: string): string =>
      `<page><title>${title}</title><ns>0</ns><id>1</id>${redirect ? `<redirect title="${redirect}" />` : ''}<revision><id>2</id><text xml:space="preserve">${text}</text></revision></page>`;
    const dump = join(dir, 'dump.xml');
    writeFileSync(
      dump,
      `<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.11/" version="0.11"><siteinfo><sitename>T</sitename></siteinfo>
${page('Paris', "'''Paris''' is in [[France]]. See [[Old Paris]].\n== History ==\nOld.")}
${page('France', "'''France''' has [[Paris]].")}
${page('Old Paris', '#REDIRECT [[Paris#History]]', 'Paris#History')}
${page('Lutetia', '#REDIRECT [[Paris#History]]')}
</mediawiki>`,
    );
    const converted = join(dir, 'converted.jsonl');
    await convertMediaWikiFile(dump, converted);
    const written = join(dir, 'written.jsonl');
    writeFileSync(
      written,
      [
        { title: 'Paris', lead: 'Paris is in [[France]]. See [[Old Paris]].' },
        { title: 'France', lead: 'France has [[Paris]].' },
        { title: 'Old Paris', redirect: 'Paris#History' },
        { title: 'Lutetia', redirect: 'paris#History' },
      ]
        .map((line) => JSON.stringify(line))
        .join('\n'),
    );
    for (const jsonl of [converted, written]) {
      const store = `${jsonl}.sqlite`;
      await buildCorpusStore(jsonl, store);
      const disk = openCorpusStore(store);
      try {
        for (const corpus of [readJsonlCorpus(jsonl), disk]) {
          expect([jsonl, corpus.resolve('Old Paris'), corpus.resolve('Lutetia')]).toEqual([jsonl, 'Paris', 'Paris']);
          expect(corpus.linksOf('France')).toEqual(['Paris']);
        }
      } finally {
        releaseCorpusStore(disk);
      }
      const tasks = join(dir, 'tasks.jsonl');
      writeFileSync(tasks, JSON.stringify({ question: 'Where?', answer: 'France', titles: ['Paris'], split: 'train' }));
      const env = new WikiNavigatorEnv({ corpus: store, tasks });
      try {
        await env.reset({ seed: 1 });
        expect((await env.step('NAVIGATE(Lutetia)')).info.page).toBe('Paris');
        const clicked = await env.step('CLICK(Old Paris)');
        expect(clicked.info.feedback).toMatch(/^Followed \[#\d+ Old Paris\] to "Paris"/);
      } finally {
        await env.close();
      }
    }
  });
});
