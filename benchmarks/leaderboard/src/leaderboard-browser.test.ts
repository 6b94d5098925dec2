import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { faults, temporaryDirectory, testRegistry, tinySuite } from './__fixtures__/test-envs';
import { runSuite } from './run-suite';
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
});
