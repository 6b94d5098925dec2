import { get } from 'node:http';
import { articlePath } from '../corpus/article';
import type { Corpus } from '../corpus/corpus';
import { loadCorpus } from '../corpus/load-corpus';
import { CorpusServer } from './corpus-server';

function fetchPage(url: string): Promise<{ status: number; html: string }> {
  return new Promise((resolve, reject) => {
    get(url, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, html: Buffer.concat(chunks).toString('utf8') }),
      );
      response.on('error', reject);
    }).on('error', reject);
  });
}

describe('CorpusServer.page (what direct mode reads in-process)', () => {
  const corpus = loadCorpus({ corpus: 'synthetic', corpusSeed: 3, articles: 600 }) as Corpus;
  const server = new CorpusServer(corpus);
  beforeAll(() => server.start());
  afterAll(() => server.stop());

  it('is byte for byte and status for status what a GET of the same path returns', async () => {
    const title = corpus.articles()[0]?.title as string;
    const paths = [
      articlePath(title),
      `/wiki/${encodeURIComponent(title.toLowerCase().replace(/ /g, '_'))}`,
      `/search?q=${encodeURIComponent(title)}`,
      '/search?q=',
      '/wiki/No_such_article',
      '/wiki/%E0%A4%A',
      '/elsewhere?x=1',
    ];
    for (const path of paths) {
      expect(server.page(path)).toEqual(await fetchPage(`${server.origin}${path}`));
    }
    expect(server.page('/wiki/No_such_article').status).toBe(404);
    expect(server.page(articlePath(title)).status).toBe(200);
  });
});
