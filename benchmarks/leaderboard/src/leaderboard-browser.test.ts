import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { faults, temporaryDirectory, testRegistry, tinySuite } from './__fixtures__/test-envs';
import { runSuite } from './run-suite';
import { SUBMISSION_SCHEMA_ID } from './submission';
import { resolveSuiteAgent } from './suite-agent';
import { writeLeaderboard } from './write-leaderboard';

// The pages are checked in a real browser. Skipped where no Chromium is installed, unless
// TURNGYM_REQUIRE_CHROMIUM=1 (CI) makes that a failure.
const chromium = [
  process.env.TURNGYM_CHROMIUM,
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
].find((path): path is string => path !== undefined && path !== '' && existsSync(path));
const describeBrowser = chromium ? describe : describe.skip;
if (!chromium && process.env.TURNGYM_REQUIRE_CHROMIUM === '1') {
  test('Chromium is installed (TURNGYM_REQUIRE_CHROMIUM=1)', () => {
    throw new Error('no Chromium found; set TURNGYM_CHROMIUM or install chromium');
  });
}

const suite = tinySuite([
  { envId: 'turngym/example-v1', seeds: { start: 0, count: 4 } },
  { envId: 'test/faulty-v1', seeds: [10, 11, 12] },
]);

describeBrowser('the leaderboard pages in Chromium', () => {
  let out: string;
  let profile: string;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    out = temporaryDirectory();
    profile = mkdtempSync(join(tmpdir(), 'turngym-chromium-'));
    faults.envFault = new Set([11]);
    for (const agent of ['random', 'scripted', 'faulty']) {
      await runSuite({
        suite,
        agent: resolveSuiteAgent(agent),
        registry: testRegistry(),
        outDir: out,
        resamples: 200,
        only: agent === 'faulty' ? ['test/faulty-v1'] : undefined,
      });
    }
    faults.envFault.clear();
    writeLeaderboard({ inputs: [join(out, 'results')], outDir: out, suites: [suite] });
    browser = await puppeteer.launch({
      executablePath: chromium as string,
      headless: true,
      args: [
        '--no-sandbox',
        '--headless',
        '--disable-gpu',
        '--disable-dev-shm-usage',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--disable-quic',
        '--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE localhost , EXCLUDE 127.0.0.1',
        `--user-data-dir=${profile}`,
      ],
    });
    page = await browser.newPage();
    page.on('pageerror', (error) => pageErrors.push(String(error)));
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    rmSync(out, { recursive: true, force: true });
    rmSync(profile, { recursive: true, force: true });
  });

  const rows = (): Promise<string[][]> =>
    page.$$eval('table.board tbody tr', (trs) =>
      trs.map((tr) =>
        Array.from((tr as HTMLTableRowElement).cells).map((cell) => cell.innerText.replace(/\s+/g, ' ').trim()),
      ),
    );

  it('shows the table, and sorts it when a header is clicked', async () => {
    await page.goto(pathToFileURL(join(out, 'index.html')).href);
    const headers = await page.$$eval('table.board thead th button', (buttons) =>
      buttons.map((button) => button.textContent),
    );
    expect(headers).toEqual([
      '#',
      'Agent',
      'Success',
      'example',
      'test/faulty',
      'Reward',
      'Turns',
      'Tokens',
      'Errored',
      'Wall',
    ]);
    const table = await rows();
    expect(table.map((row) => row.slice(0, 5))).toEqual([
      ['1', 'scripted baseline', '100% 100–100', '100% 100–100', '100% 100–100'],
      ['2', 'random baseline', '0% 0–0', '0% 0–0', '0% 0–0'],
      ['3', 'faulty baseline partial 1 errored', '100% 100–100', 'not run', '100% 100–100'],
    ]);

    await page.click('table.board thead th:nth-child(2) button'); // Agent: A→Z first
    expect((await rows()).map((row) => row[0])).toEqual(['3', '2', '1']);
    expect(await page.$eval('table.board thead th:nth-child(2)', (th) => th.getAttribute('aria-sort'))).toBe(
      'ascending',
    );
    await page.click('table.board thead th:nth-child(2) button');
    expect((await rows()).map((row) => row[0])).toEqual(['1', '2', '3']);
    await page.click('table.board thead th:nth-child(4) button'); // example-v1: best first; "not run" stays last
    expect((await rows()).map((row) => row[1]?.split(' ')[0])).toEqual(['scripted', 'random', 'faulty']);
    await page.click('table.board thead th:nth-child(4) button');
    expect((await rows()).map((row) => row[1]?.split(' ')[0])).toEqual(['random', 'scripted', 'faulty']);
    expect(pageErrors).toEqual([]);
  });

  it('links an env cell to its episodes in the rollout viewer, turn by turn', async () => {
    await page.goto(pathToFileURL(join(out, 'index.html')).href);
    const href = await page.$eval(
      'tr[data-run="tiny-v1--faulty"] td:nth-child(5) a',
      (a) => (a as HTMLAnchorElement).href,
    );
    expect(href).toMatch(/viewer\.html#run=tiny-v1--faulty&env=test%2Ffaulty-v1$/);
    await page.goto(href);
    await page.waitForSelector('.episode-item');
    const items = await page.$$eval('.episode-item', (buttons) =>
      buttons.map((button) => (button as HTMLElement).innerText.replace(/\s+/g, ' ').trim()),
    );
    expect(items).toEqual([
      '✓ seed 10 test/faulty-v1 1.00 · 4 turns',
      '! seed 11 test/faulty-v1 ENV_FAULT',
      '✓ seed 12 test/faulty-v1 1.00 · 4 turns',
    ]);
    const detail = async (): Promise<string> =>
      (await page.$eval('#detail', (node) => (node as HTMLElement).innerText)).replace(/\s+/g, ' ');
    expect(await detail()).toMatch(/^test\/faulty-v1 · seed 10 success reward 1\.00 4 turns/);
    // Each turn: the agent's action (with its fingerprint), then the env's answer (reward, anchor, observation).
    expect(await detail()).toMatch(
      /Turn 1 AGENT LOOKUP\(next\) LOOKUP\((\S+)\) ENV reward 0\.00 at depth-1 LOOKUP \1 = see \S+ Turn 2/,
    );
    expect(await detail()).toMatch(
      /Turn 4 AGENT SUBMIT SUBMIT\((\d+)\) ENV reward 1\.00 at depth-3 terminated Correct: that is the code\. Success · terminated · total reward 1\.00$/,
    );
    await page.click('.episode-item[data-episode*="#11@"]');
    expect(await detail()).toContain('Errored (ENV_FAULT): simulated env fault on seed 11 — excluded from the scores.');
    expect(page.url()).toMatch(/#run=tiny-v1--faulty&env=test%2Ffaulty-v1&episode=/);
    expect(pageErrors).toEqual([]);
  });
  // A submission is anyone's file, and a viewer link is anyone's URL: neither may run script or stop the page.
  it('runs no script from a hostile result or submission, and survives a hostile viewer link', async () => {
    const hostile = JSON.parse(readFileSync(join(out, 'results', 'tiny-v1--scripted.json'), 'utf8'));
    hostile.runId = 'hostile';
    hostile.label = 'evil</script><script>window.__pwned=1</script>\u2028<!--';
    hostile.agent.spec = '<a><img src=x onerror="window.__pwned=2">';
    hostile.records = join(out, 'runs', 'tiny-v1--scripted', 'records.jsonl');
    const inputs = join(out, 'hostile');
    mkdirSync(inputs, { recursive: true });
    writeFileSync(join(inputs, 'hostile.json'), JSON.stringify(hostile));
    const spoofed = { ...structuredClone(hostile), runId: 'spoofed', label: 'plain \u202Eagent' };
    writeFileSync(
      join(inputs, 'spoofed.json'),
      JSON.stringify({
        schema: SUBMISSION_SCHEMA_ID,
        submittedBy: '<img src=y onerror="window.__pwned=3">',
        result: spoofed,
      }),
    );
    const site = join(out, 'hostile-site');
    writeLeaderboard({ inputs: [inputs], outDir: site, suites: [suite] });
    pageErrors.length = 0;
    await page.goto(pathToFileURL(join(site, 'index.html')).href);
    expect(await page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined();
    // A right-to-left override in a label reorders the label, not the tag after it.
    const [label, tag] = await page.$$eval('tr[data-run="spoofed"] td.agent > :is(.label, .tag)', (nodes) =>
      nodes.map((node) => ({ left: node.getBoundingClientRect().left, right: node.getBoundingClientRect().right })),
    );
    expect(tag!.left).toBeGreaterThanOrEqual(label!.right);
    expect(await page.$eval('tr[data-run="spoofed"] td.agent .sub', (node) => node.textContent)).toBe(
      '<a><img src=x onerror="window.__pwned=2"> · by <img src=y onerror="window.__pwned=3">',
    );
    for (const hash of ['run=hostile', 'run=constructor', 'run=__proto__', 'run=%E0%A4%A&env=%']) {
      await page.goto(`${pathToFileURL(join(site, 'viewer.html')).href}#${hash}`);
      await page.waitForFunction(() => !/^(Loading…)?$/.test(document.querySelector('#detail')?.textContent ?? ''));
      expect(await page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined();
    }
    // The malformed link falls back to the first run, whose episodes are listed.
    await page.waitForSelector('.episode-item');
    expect(await page.$eval('#run', (select) => (select as HTMLSelectElement).value)).toBe('hostile');
    expect(pageErrors).toEqual([]);
  });
  // The agent column is sticky: a label as wide as the window would cover every column scrolled beneath it.
  it('wraps a long label within the agent column', async () => {
    const long = JSON.parse(readFileSync(join(out, 'results', 'tiny-v1--scripted.json'), 'utf8'));
    long.runId = 'long';
    long.label = `agent-${'y'.repeat(190)}`; // labels may have 200 characters
    const inputs = join(out, 'long');
    mkdirSync(inputs, { recursive: true });
    writeFileSync(join(inputs, 'long.json'), JSON.stringify(long));
    const site = join(out, 'long-site');
    writeLeaderboard({ inputs: [inputs], outDir: site, suites: [suite] });
    await page.setViewport({ width: 1280, height: 900 });
    await page.goto(pathToFileURL(join(site, 'index.html')).href);
    const box = await page.$eval('tr[data-run="long"] td.agent', (cell) => {
      const [label, tag, own] = [cell.querySelector('.label')!, cell.querySelector('.tag')!, cell].map((node) =>
        node.getBoundingClientRect(),
      );
      return {
        cell: own!.width,
        label: label!.width,
        labelRight: label!.right,
        tag: tag!.left,
        tagRight: tag!.right,
        cellRight: own!.right,
      };
    });
    expect(box.label).toBeLessThanOrEqual(240);
    expect(box.cell).toBeLessThanOrEqual(420); // label, tag and padding: not the 1,400 px of one unbroken line
    // The tag stays beside the label, inside the cell.
    expect(box.tag).toBeGreaterThanOrEqual(box.labelRight);
    expect(box.tagRight).toBeLessThanOrEqual(box.cellRight);
  });

  // The second wall: were a later change to let markup through, the page's policy still runs only its own script.
  it('runs only its own scripts, even with markup injected into the page', async () => {
    for (const name of ['index.html', 'viewer.html']) {
      const injected = join(out, `injected-${name}`);
      writeFileSync(
        injected,
        readFileSync(join(out, name), 'utf8').replace(
          '</header>',
          '</header><img src="x" onerror="window.__pwned=1"><script>window.__pwned=2</script>',
        ),
      );
      await page.goto(pathToFileURL(injected).href);
      expect(await page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined();
    }
    // The viewer's own script and its data file still run: it lists the first run's episodes.
    await page.waitForSelector('.episode-item');
    await page.goto(pathToFileURL(join(out, 'injected-index.html')).href);
    await page.click('table.board thead th:nth-child(2) button');
    expect(await page.$eval('table.board thead th:nth-child(2)', (th) => th.getAttribute('aria-sort'))).toBe(
      'ascending',
    );
  });
});
