import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkEnv, EnvFaultError, formatCheckReport, Registry } from '@turngym/core';
import type { Action, Agent, StepResult } from '@turngym/spec';
import { RandomNavigator } from './agents/random-navigator';
import { WikiExpert } from './agents/wiki-expert';
import { BrowserPool } from './browser/browser-pool';
import { findChromium } from './browser/chromium-executable';
import { chromiumDescendants, processesInGroups } from './browser/chromium-processes';
import { articlePath } from './corpus/article';
import { Corpus } from './corpus/corpus';
import { parseJsonlCorpus } from './corpus/jsonl-corpus';
import { extractPage } from './page/extract-page';
import { parseLightHtml } from './page/light-dom';
import { EXTRACT_IN_PAGE } from './page/page-loader';
import { register } from './register';
import { CorpusServer } from './server/corpus-server';
import { runPoolSoak } from './soak/pool-soak';
import { WikiNavigatorEnv } from './wiki-navigator-env';

// Browser mode, with one browser shared by the whole file (launches are the slow part). Skipped where no
// Chromium is installed, unless TURNGYM_REQUIRE_CHROMIUM=1 (CI) makes that a failure.
const chromium = findChromium();
const describeBrowser = chromium ? describe : describe.skip;
if (!chromium && process.env.TURNGYM_REQUIRE_CHROMIUM === '1') {
  test('Chromium is installed (TURNGYM_REQUIRE_CHROMIUM=1)', () => {
    throw new Error('no Chromium found; set TURNGYM_CHROMIUM or install chromium');
  });
}

const SMALL = { articles: 600, corpusSeed: 3 } as const;
jest.setTimeout(60_000);

/** Plays an agent in two envs side by side and returns both observation sequences. */
async function lockstep(
  a: WikiNavigatorEnv,
  b: WikiNavigatorEnv,
  agent: Agent<string, Action>,
  seed: number,
): Promise<[string[], string[]]> {
  const resetA = await a.reset({ seed });
  const resetB = await b.reset({ seed });
  await agent.start({ seed, spec: a.spec, observation: resetA.observation, info: resetA.info });
  const left = [resetA.observation];
  const right = [resetB.observation];
  let step: StepResult<string> = {
    observation: resetA.observation,
    info: resetA.info,
    reward: 0,
    terminated: false,
    truncated: false,
  };
  while (!step.terminated && !step.truncated) {
    const action = await agent.act(step.observation, step.info);
    step = await a.step(action);
    left.push(step.observation);
    right.push((await b.step(action)).observation);
  }
  return [left, right];
}

/** Chromium processes started by this test process, other than the shared pool's. */
function strayChromium(pool: BrowserPool): number[] {
  const ours = new Set(processesInGroups(pool.launchedProcessGroups));
  return chromiumDescendants().filter((pid) => !ours.has(pid));
}

describeBrowser('WikiNavigatorEnv in browser mode (Chromium through Puppeteer)', () => {
  let pool: BrowserPool;
  beforeAll(() => {
    pool = new BrowserPool({ size: 4 });
  });
  afterAll(async () => {
    await pool.close();
    expect(processesInGroups(pool.launchedProcessGroups)).toEqual([]);
    expect(chromiumDescendants()).toEqual([]);
  });

  it('gives the same observations as direct mode over scripted and random episodes', async () => {
    for (const task of ['qa', 'race'] as const) {
      const browser = new WikiNavigatorEnv({ ...SMALL, task, mode: 'browser' }, { browserPool: pool });
      const direct = new WikiNavigatorEnv({ ...SMALL, task, mode: 'direct', pageCache: 0 });
      try {
        for (const seed of [0, 1, 2]) {
          for (const agent of [new WikiExpert(direct), new RandomNavigator(seed)]) {
            const [inBrowser, inDirect] = await lockstep(browser, direct, agent, seed);
            expect(inBrowser).toEqual(inDirect);
            expect(inBrowser.length).toBeGreaterThan(1);
          }
        }
      } finally {
        await browser.close();
        await direct.close();
      }
    }
    expect(pool.stats().tasks).toBeGreaterThan(20); // the pages really came through the browser
  });

  it('gives the same observations as direct mode on corpus text with a NUL or half an emoji', async () => {
    // JSON allows "\u0000" and a lone "\ud83d"; Chromium drops the first and receives the second as U+FFFD.
    const dir = mkdtempSync(join(tmpdir(), 'wiki-odd-'));
    const corpus = join(dir, 'odd.jsonl');
    const tasks = join(dir, 'tasks.jsonl');
    const odd = 'A nul \u0000 here, half an emoji \ud83d there.';
    writeFileSync(
      corpus,
      `${JSON.stringify({ title: 'Odd', infobox: { Code: 'a\u0000b' }, lead: `${odd} See [[Other]].`, sections: [{ title: 'Cut \ud83d', text: `* ${odd}` }] })}\n${JSON.stringify({ title: 'Other', lead: 'Back to [[Odd]].' })}\n`,
    );
    writeFileSync(
      tasks,
      `${JSON.stringify({ question: 'What code?', answer: 'ab', titles: ['Odd'], split: 'train' })}\n`,
    );
    const options = { corpus, tasks, pageCache: 0 };
    const browser = new WikiNavigatorEnv({ ...options, mode: 'browser' }, { browserPool: pool });
    const direct = new WikiNavigatorEnv({ ...options, mode: 'direct' });
    try {
      const seen: string[][] = [];
      for (const env of [browser, direct]) {
        await env.reset({ seed: 1 });
        const observations: string[] = [];
        for (const action of ['NAVIGATE(Odd)', 'SEARCH(nul emoji)', 'CLICK(1)', 'CLICK(Other)'])
          observations.push((await env.step(action)).observation);
        seen.push(observations);
      }
      expect(seen[0]).toEqual(seen[1]);
      expect(seen[1]?.[0]).toContain('half an emoji \ufffd there');
      expect(seen[1]?.every((observation) => observation.isWellFormed() && !observation.includes('\u0000'))).toBe(true);
    } finally {
      await browser.close();
      await direct.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('opens articles whose titles are URL syntax (`.`, `..`, `/`, `?`, `%`, a section link) as direct mode does', async () => {
    // Chromium removes dot segments from a URL (`/wiki/..` is `/`), as Node's URL parser does.
    const dir = mkdtempSync(join(tmpdir(), 'wiki-url-titles-'));
    const titles = ['.', '..', 'AC/DC', 'What?', '100%', 'Foo/..'];
    const corpus = join(dir, 'titles.jsonl');
    const tasks = join(dir, 'tasks.jsonl');
    writeFileSync(
      corpus,
      [
        { title: 'Hub', lead: `${titles.map((title) => `[[${title}]]`).join(', ')}, [[Hub#Top|top]].` },
        ...titles.map((title) => ({ title, lead: `About ${title}. [[Hub]]` })),
      ]
        .map((line) => JSON.stringify(line))
        .join('\n'),
    );
    writeFileSync(tasks, JSON.stringify({ question: 'Hub?', answer: 'x', titles: ['Hub'], split: 'train' }));
    const options = { corpus, tasks, pageCache: 0, toolBudget: 40 };
    const browser = new WikiNavigatorEnv({ ...options, mode: 'browser' }, { browserPool: pool });
    const direct = new WikiNavigatorEnv({ ...options, mode: 'direct' });
    try {
      const opened: string[][] = [];
      for (const env of [browser, direct]) {
        await env.reset({ seed: 1 });
        const pages: string[] = [];
        for (let link = 1; link <= titles.length + 1; link++) {
          await env.step('NAVIGATE(Hub)');
          await env.step(`CLICK(${link})`);
          pages.push(env.currentPage?.view.title ?? '');
        }
        opened.push(pages);
      }
      expect(opened[0]).toEqual([...titles, 'Hub']);
      expect(opened[1]).toEqual(opened[0]);
    } finally {
      await browser.close();
      await direct.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('registers ids that pass the env checker in browser mode (fresh registry, shared pool)', async () => {
    const registry = new Registry();
    register(registry);
    for (const id of registry.list()) {
      const report = await checkEnv(id, {
        registry,
        options: { ...SMALL, mode: 'browser' },
        dependencies: { browserPool: pool },
      });
      if (!report.passed) throw new Error(formatCheckReport(report));
    }
  });

  it('forks natively: no page is loaded to fork, and the fork continues on its own', async () => {
    const env = new WikiNavigatorEnv({ ...SMALL, task: 'race', mode: 'browser' }, { browserPool: pool });
    try {
      const reset = await env.reset({ seed: 5 });
      const tasks = pool.stats().tasks;
      const fork = (await env.fork()) as WikiNavigatorEnv;
      expect(pool.stats().tasks).toBe(tasks);
      expect(fork.anchor()).toBe(env.anchor());
      const agent = new WikiExpert(fork);
      await agent.start({ seed: 5, spec: fork.spec, observation: reset.observation, info: reset.info });
      const step = await fork.step(await agent.act(reset.observation, reset.info));
      expect(step.info.page).not.toBe(env.currentPage?.view.title);
      expect(env.currentPage?.view.title).toBe(env.currentTask?.start);
      await fork.close();
    } finally {
      await env.close();
    }
  });

  it('shows escaped link syntax (`&#91;[x]]`, a <nowiki>[[x]]</nowiki>) as text, as direct mode does', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wiki-escaped-'));
    const corpus = join(dir, 'escaped.jsonl');
    const tasks = join(dir, 'tasks.jsonl');
    writeFileSync(
      corpus,
      [
        { title: 'Markup', infobox: { Syntax: '&#91;[x]]' }, lead: 'Write &#91;[Lyon]] to link [[Lyon]].' },
        { title: 'Lyon', lead: 'A city. Back to [[Markup]].' },
      ]
        .map((line) => JSON.stringify(line))
        .join('\n'),
    );
    writeFileSync(
      tasks,
      `${JSON.stringify({ question: 'Syntax?', answer: '[[x]]', titles: ['Markup'], split: 'train' })}\n`,
    );
    const options = { corpus, tasks, pageCache: 0 };
    const browser = new WikiNavigatorEnv({ ...options, mode: 'browser' }, { browserPool: pool });
    const direct = new WikiNavigatorEnv({ ...options, mode: 'direct' });
    try {
      const seen: string[] = [];
      for (const env of [browser, direct]) {
        await env.reset({ seed: 1 });
        seen.push((await env.step('NAVIGATE(Markup)')).observation);
      }
      expect(seen[0]).toEqual(seen[1]);
      expect(seen[0]).toContain('Write [[Lyon]] to link [#1 Lyon].');
      expect(seen[0]).toContain('[[x]]');
      expect(seen[0]).not.toContain('[#2');
    } finally {
      await browser.close();
      await direct.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('gives the same observations as direct mode on Chinese, Arabic and emoji pages (long lines with no space cut)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wiki-cjk-'));
    const corpus = join(dir, 'cjk.jsonl');
    const tasks = join(dir, 'tasks.jsonl');
    const clause = '北京是中华人民共和国的首都，也是全国的政治中心和文化中心';
    writeFileSync(
      corpus,
      [
        { title: '北京', infobox: { 国家: '[[中国]]' }, lead: `${clause}。${clause.repeat(10)}[[القاهرة|开罗]]。` },
        {
          title: 'القاهرة',
          lead: 'القاهرة هي عاصمة [[مصر]]. وهي قرب [[北京]].',
          sections: [{ title: '🎉', text: '🎉'.repeat(300) }],
        },
        { title: '中国', lead: '中国位于东亚。首都是[[北京]]。' },
      ]
        .map((line) => JSON.stringify(line))
        .join('\n'),
    );
    writeFileSync(
      tasks,
      `${JSON.stringify({ question: '首都?', answer: '北京', titles: ['中国'], split: 'train' })}\n`,
    );
    const options = { corpus, tasks, pageCache: 0 };
    const browser = new WikiNavigatorEnv({ ...options, mode: 'browser' }, { browserPool: pool });
    const direct = new WikiNavigatorEnv({ ...options, mode: 'direct' });
    try {
      const seen: string[][] = [];
      for (const env of [browser, direct]) {
        await env.reset({ seed: 1 });
        const observations: string[] = [];
        for (const action of [
          'NAVIGATE(北京)',
          'SCROLL(bottom)',
          'CLICK(开罗)',
          'SCROLL(bottom)',
          'CLICK(北京)',
          'SEARCH(政治中心)',
        ])
          observations.push((await env.step(action)).observation);
        seen.push(observations);
      }
      expect(seen[0]).toEqual(seen[1]);
      const lines = (seen[1] ?? []).flatMap((observation) =>
        observation.split('\n').filter((line) => /^L\d+ /.test(line)),
      );
      expect(lines.filter((line) => line.includes('政治中心')).length).toBeGreaterThan(3);
      expect(lines.every((line) => line.replace(/^L\d+ /, '').length <= 160)).toBe(true);
    } finally {
      await browser.close();
      await direct.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('restarts a browser killed mid-step and retries the step', async () => {
    // A race: every expert action is a CLICK, so every step loads a page through the pool.
    const browser = new WikiNavigatorEnv({ ...SMALL, task: 'race', mode: 'browser' }, { browserPool: pool });
    const direct = new WikiNavigatorEnv({ ...SMALL, task: 'race', mode: 'direct', pageCache: 0 });
    try {
      const task = browser.availableTasks().find((candidate) => candidate.hops >= 3)!;
      const reset = await browser.reset({ seed: 8, options: { taskId: task.id } });
      expect((await direct.reset({ seed: 8, options: { taskId: task.id } })).observation).toBe(reset.observation);
      const expert = new WikiExpert(direct);
      await expert.start({ seed: 8, spec: direct.spec, observation: reset.observation, info: reset.info });
      const opening = await expert.act(reset.observation, reset.info);
      let expected = await direct.step(opening);
      expect((await browser.step(opening)).observation).toBe(expected.observation);
      const launches = pool.stats().launches;
      const victim = pool.browserPid as number;
      const action = await expert.act(expected.observation, expected.info);
      expect(action).toMatch(/^CLICK\(/);
      // Mid-step: the step's page task has its page and is about to load; the browser dies under it.
      const withTab = pool.withTab.bind(pool);
      let killed = 0;
      const spy = jest.spyOn(pool, 'withTab').mockImplementation((task) =>
        withTab(async (tab) => {
          if (killed++ === 0) process.kill(victim, 'SIGKILL');
          return task(tab);
        }),
      );
      let recovered: StepResult<string>;
      try {
        recovered = await browser.step(action);
      } finally {
        spy.mockRestore();
      }
      expected = await direct.step(action);
      expect(recovered.observation).toBe(expected.observation);
      expect(killed).toBe(2); // the task that met the dead browser, and its retry
      expect(pool.stats().launches).toBe(launches + 1);
      expect(pool.stats().retries).toBeGreaterThan(0);
      await pool.settled(); // the dead browser's shutdown runs beside the retry
      expect(processesInGroups([victim])).toEqual([]); // the crashed browser's helpers were killed too
    } finally {
      await browser.close();
      await direct.close();
    }
  });

  it('replaces a hung page and retries once; a page that hangs twice is an EnvFaultError', async () => {
    let hangs = 1;
    const server: Server = createServer((request, response) => {
      if (request.url === '/hang' && hangs-- > 0) return; // never answers
      response
        .writeHead(200, { 'content-type': 'text/html' })
        .end('<html><body><main id="content" data-kind="article"><h1>Answered</h1></main></body></html>');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const impatient = new BrowserPool({ size: 1, taskTimeoutMs: 2500 });
    try {
      const title = await impatient.withPage(async (page) => {
        await page.goto(`${origin}/hang`, { waitUntil: 'domcontentloaded' });
        return page.evaluate('document.querySelector("h1").textContent');
      });
      expect(title).toBe('Answered');
      expect(impatient.stats()).toMatchObject({ retries: 1, pagesCreated: 2, launches: 1 });
      hangs = 2;
      await expect(
        impatient.withPage((page) => page.goto(`${origin}/hang`).then(() => 'loaded')),
      ).rejects.toBeInstanceOf(EnvFaultError);
      expect(impatient.stats().openPages).toBeLessThanOrEqual(1);
    } finally {
      await impatient.close();
      server.closeAllConnections();
      server.close();
    }
    expect(processesInGroups(impatient.launchedProcessGroups)).toEqual([]);
  });

  it('closes a tab whose renderer crashed while idle instead of leaving its dead target in the browser', async () => {
    // The OOM killer picks renderers first: a long run under memory pressure loses idle tabs this way.
    const crashy = new BrowserPool({ size: 2, taskTimeoutMs: 5000 });
    try {
      for (let crash = 0; crash < 3; crash++) {
        const tab = await crashy.withTab(async (lent) => {
          expect(await lent.load('about:blank', '1 + 1')).toBe(2);
          return lent;
        });
        const group = crashy.browserPid as number;
        for (const pid of processesInGroups([group]))
          if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('--type=renderer')) process.kill(pid, 'SIGKILL');
        for (let i = 0; i < 100 && !tab.isClosed(); i++) await new Promise((wait) => setTimeout(wait, 20));
        expect(tab.isClosed()).toBe(true);
      }
      const pages = await crashy.withPage(
        async (page) => (await page.browser().targets()).filter((target) => target.type() === 'page').length,
      );
      // This page, and at most the blank tab Chromium opens at launch: no crashed tab left behind.
      expect(pages).toBeLessThanOrEqual(2);
      expect(crashy.stats()).toMatchObject({ launches: 1, openPages: 1 });
    } finally {
      await crashy.close();
    }
    expect(processesInGroups(crashy.launchedProcessGroups)).toEqual([]);
  });

  it('lends pages that take screenshots when its compositor runs on its own thread (mainThreadCompositing: false)', async () => {
    const server: Server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' }).end('<html><body><h1>Shot</h1></body></html>');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    // With the main-thread compositing flags (the default, a page-load speed-up) this screenshot never returns.
    const pool = new BrowserPool({ size: 1, taskTimeoutMs: 10_000, mainThreadCompositing: false });
    try {
      const png = await pool.withPage(async (page) => {
        await page.goto(`${origin}/`);
        return page.screenshot({ type: 'png' });
      });
      expect(Buffer.from(png).subarray(1, 4).toString('latin1')).toBe('PNG');
    } finally {
      await pool.close();
      server.closeAllConnections();
      server.close();
    }
  });

  it('loads pages in bare tabs: the script answers from each new document, errors reject, pages and tabs share the pool', async () => {
    const server: Server = createServer((request, response) => {
      const name = (request.url ?? '/').slice(1);
      if (name === 'forged') {
        // Calls every global function whose name looks like a binding with a forged answer, before the body.
        const forge = `for (const key of Object.getOwnPropertyNames(window)) if (key.startsWith('__turngym')) window[key](JSON.stringify({ value: 'forged' }));`;
        response
          .writeHead(200, { 'content-type': 'text/html' })
          .end(`<html><head><script>${forge}</script></head><body><h1>forged-page</h1></body></html>`);
        return;
      }
      response.writeHead(200, { 'content-type': 'text/html' }).end(`<html><body><h1>${name}</h1></body></html>`);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const heading = 'document.querySelector("h1").textContent';
    const small = new BrowserPool({ size: 1, taskTimeoutMs: 5000 });
    try {
      expect(await small.withTab((tab) => tab.load(`${origin}/first`, heading))).toBe('first');
      // The next document's answer, never the previous one's; a fragment change (same document) still answers.
      expect(await small.withTab((tab) => tab.load(`${origin}/second`, heading))).toBe('second');
      expect(await small.withTab((tab) => tab.load(`${origin}/second#part`, `${heading} + location.hash`))).toBe(
        'second#part',
      );
      await expect(
        small.withTab((tab) => tab.load(`${origin}/third`, '(() => { throw new Error("no such node"); })()')),
      ).rejects.toThrow(/failed twice: the page script threw: no such node/);
      await expect(small.withTab((tab) => tab.load('http://127.0.0.1:1/', heading))).rejects.toThrow(
        /failed twice: navigation to http:\/\/127\.0\.0\.1:1\/ failed: net::ERR_/,
      );
      // A page's own script cannot answer in the extraction's place through the tab's binding.
      expect(await small.withTab((tab) => tab.load(`${origin}/forged`, heading))).toBe('forged-page');
      // One slot: a Puppeteer page takes the tab's place, and a tab the page's.
      const title = await small.withPage(async (page) => {
        await page.goto(`${origin}/fourth`);
        return page.evaluate(heading);
      });
      expect(title).toBe('fourth');
      expect(await small.withTab((tab) => tab.load(`${origin}/fifth`, heading))).toBe('fifth');
      expect(small.stats()).toMatchObject({ openPages: 1, launches: 1 });
    } finally {
      await small.close();
      server.closeAllConnections();
      server.close();
    }
    expect(processesInGroups(small.launchedProcessGroups)).toEqual([]);
  });

  it('hides a page once it is extracted, so that Chromium does not lay out and paint what nobody reads', async () => {
    // A long page (a 30,000-row table) laid out after the extraction held the tab's next navigation 1–2 s.
    const server = new CorpusServer(
      new Corpus(
        parseJsonlCorpus(
          JSON.stringify({
            title: 'Long',
            lead: 'A long page about [[Hub]].',
            sections: [{ title: 'A', text: '* one' }],
          }),
        ).articles,
      ),
    );
    await server.start();
    try {
      const url = `${server.origin}${articlePath('Long')}`;
      const [page, after] = await pool.withTab(async (tab) => [
        await tab.load(url, EXTRACT_IN_PAGE),
        // A fragment change evaluates in the same document: what the tab holds after the extraction.
        await tab.load(`${url}#after`, 'getComputedStyle(document.documentElement).display + " " + document.title'),
      ]);
      expect(page).toEqual(extractPage(parseLightHtml(server.page(articlePath('Long')).html)));
      expect(after).toBe('none Long — TurnGym Wiki');
    } finally {
      await server.stop();
    }
  });

  it('reports a browser that cannot start as an EnvFaultError from step(), leaving the episode intact', async () => {
    const env = new WikiNavigatorEnv({ ...SMALL, mode: 'browser', executablePath: '/bin/false' });
    try {
      const reset = await env.reset({ seed: 1 }); // QA starts with no page: nothing to launch yet
      expect(reset.observation).toContain('(No page is open.)');
      const error = await env.step(`NAVIGATE(${env.currentTask?.goldPath[0]})`).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(EnvFaultError);
      expect((error as EnvFaultError).message).toMatch(/failed twice: could not launch \/bin\/false/);
      expect((await env.step('SUBMIT(guess)')).terminated).toBe(true); // the failed step changed nothing
    } finally {
      await env.close();
    }
  });

  it('launches lazily and leaves no Chromium process behind on close()', async () => {
    const env = new WikiNavigatorEnv({ ...SMALL, mode: 'browser', poolSize: 2 });
    const twin = new WikiNavigatorEnv({ ...SMALL, mode: 'browser', poolSize: 2 });
    try {
      await env.reset({ seed: 2 });
      expect(strayChromium(pool)).toEqual([]);
      await env.step(`NAVIGATE(${env.currentTask?.goldPath[0]})`);
      await twin.reset({ seed: 3 });
      await twin.step(`NAVIGATE(${twin.currentTask?.goldPath[0]})`);
      expect(strayChromium(pool).length).toBeGreaterThan(0);
      await env.close();
      expect(strayChromium(pool).length).toBeGreaterThan(0); // the twin still holds the shared browser
    } finally {
      await env.close();
      await twin.close();
    }
    expect(strayChromium(pool)).toEqual([]);
  });

  it('survives a short soak: 24 episodes, 6 envs sharing 2 pages, no error, no leftover', async () => {
    const report = await runPoolSoak({
      episodes: 24,
      poolSize: 2,
      concurrency: 6,
      articles: SMALL.articles,
      recycleAfter: 20,
      sampleEvery: 6,
    });
    expect(report).toMatchObject({ episodes: 24, errors: 0, launches: 1, leftoverProcesses: 0 });
    expect(report.maxOpenPages).toBeLessThanOrEqual(2);
    expect(report.pagesRecycled).toBeGreaterThan(0);
    expect(report.nodeHeapGrowthMb).toBeLessThan(50);
  });
});
