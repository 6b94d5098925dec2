import { get } from 'node:http';
import { currentFaultOwner, runOwnedBy, runUnowned, trackEnvFaultOwners, type EnvFaultOwner } from '@turngym/core';
import { articlePath } from '../corpus/article';
import { Corpus } from '../corpus/corpus';
import { parseJsonlCorpus } from '../corpus/jsonl-corpus';
import { loadCorpus } from '../corpus/load-corpus';
import { acquireCorpusServer, CorpusServer } from './corpus-server';

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

describe('CorpusServer pages of text that is not well-formed (a NUL, half an emoji)', () => {
  // JSON allows both ("\u0000", "\ud83d"): a JSONL corpus or a cut dump can hold them. Sent over HTTP, a lone
  // surrogate becomes U+FFFD and Chromium drops a NUL, so the page direct mode reads in-process must already be
  // what the browser gets, or the two modes show different lines.
  const line = (entry: object): string => JSON.stringify(entry);
  const { articles, redirects } = parseJsonlCorpus(
    [
      line({
        title: 'Odd',
        infobox: { Code: 'a\u0000b' },
        lead: 'A nul \u0000 here, half an emoji \ud83d there, see [[Other]].',
        sections: [{ title: 'Cut \ud83d', text: '* item \u0000 \udc00' }],
      }),
      line({ title: 'Other', lead: 'Back to [[Odd]].' }),
    ].join('\n'),
  );
  const server = new CorpusServer(new Corpus(articles, redirects));
  beforeAll(() => server.start());
  afterAll(() => server.stop());

  it('serves the same characters in-process as over HTTP, with no NUL and no lone surrogate', async () => {
    for (const path of [articlePath('Odd'), `/search?q=${encodeURIComponent('nul emoji')}`]) {
      const { html } = server.page(path);
      expect(html).toEqual((await fetchPage(`${server.origin}${path}`)).html);
      expect(html.isWellFormed()).toBe(true);
      expect(html).not.toContain('\u0000');
    }
    expect(server.page(articlePath('Odd')).html).toContain('half an emoji \ufffd there');
  });
});

describe('the corpus server every env on one corpus shares', () => {
  it("serves its pages as no session's code, whichever session's env started it", async () => {
    // As `turngym serve` does: owners are tracked, and each session's env code runs as that session. Before, the
    // server started in session A's env load, so its request handlers were A's: a fault in one, while serving
    // session B's page, closed A.
    const untrack = trackEnvFaultOwners();
    const corpus = loadCorpus({ corpus: 'synthetic', corpusSeed: 5, articles: 50 }) as Corpus;
    const handled: Array<EnvFaultOwner | undefined> = [];
    const prototype = CorpusServer.prototype as unknown as { handle: (...args: unknown[]) => unknown };
    const original = prototype.handle;
    const handle = jest.spyOn(prototype, 'handle').mockImplementation(function (this: unknown, ...args: unknown[]) {
      handled.push(currentFaultOwner());
      return original.apply(this, args);
    });
    const sessionA: EnvFaultOwner = { label: 'session A', fail: jest.fn() };
    try {
      const lease = await runOwnedBy(sessionA, () => acquireCorpusServer(corpus));
      try {
        await runOwnedBy(sessionA, () => fetchPage(`${lease.server.origin}/health`));
      } finally {
        await runOwnedBy(sessionA, () => lease.release());
      }
      expect(handled).toEqual([runUnowned(currentFaultOwner)]);
    } finally {
      handle.mockRestore();
      untrack();
    }
  });
});
