import { articlePath } from '../corpus/article';
import type { Corpus } from '../corpus/corpus';
import { loadCorpus } from '../corpus/load-corpus';
import { CorpusServer } from '../server/corpus-server';
import { extractPage, type DomDocument } from './extract-page';
import { parseLightHtml } from './light-dom';

const { parseHTML } = require('linkedom') as { parseHTML(html: string): { document: DomDocument } };

describe('parseLightHtml (direct mode DOM)', () => {
  it('extracts exactly what linkedom does from every page of a corpus, search pages and 404s', () => {
    const corpus = loadCorpus({ corpus: 'synthetic', corpusSeed: 3, articles: 600 }) as Corpus;
    const server = new CorpusServer(corpus);
    const titles = corpus.articles().map((article) => article.title);
    const paths = [
      ...titles.map(articlePath),
      ...titles.slice(0, 40).map((title) => `/search?q=${encodeURIComponent(title.split(' ')[0] as string)}`),
      '/search?q=%26amp%3B%20%3Cb%3E%20%22quoted%22',
      '/search?q=',
      '/wiki/No_such_article',
      '/elsewhere',
    ];
    let compared = 0;
    for (const path of paths) {
      const { html } = server.page(path);
      expect(extractPage(parseLightHtml(html))).toEqual(extractPage(parseHTML(html).document));
      compared += 1;
    }
    expect(compared).toBe(titles.length + 44);
  });

  it('keeps entities, comments, CDATA-free text and nesting as linkedom does', () => {
    const html =
      '<!DOCTYPE html><html><body><div id="content" data-kind="article" data-type="person"><h1>A &amp; B <!-- c --></h1>' +
      '<p class="lead">x &lt;y&gt; <a href="/wiki/C_D">C&nbsp;D</a><br>tail<script>var s = "<p>";</script></p>' +
      '<table><tr><th>F</th><td>v</td></tr></table><ul><li>one<li>two</ul></div></body></html>';
    expect(extractPage(parseLightHtml(html))).toEqual(extractPage(parseHTML(html).document));
  });

  it('answers only the selectors extraction uses', () => {
    const document = parseLightHtml('<div><h1 id="t">T</h1><h1>U</h1></div>');
    expect(document.querySelector('h1')?.textContent).toBe('T');
    expect(document.querySelector('#t')?.textContent).toBe('T');
    expect(document.querySelector('#none')).toBeNull();
  });
});
