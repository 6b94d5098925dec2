import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CHROMIUM_ARGS, findChromium, isHeadlessShell } from '@turngym/env-wiki-navigator';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { HOSTILE_ACTION, writeFakeExperiment } from './__fixtures__/fake-runs';
import { writeReport } from './render-report';

// The page is checked in a real browser. Skipped where no Chromium is installed, unless
// TURNGYM_REQUIRE_CHROMIUM=1 (CI) makes that a failure. TURNGYM_SCREENSHOT_DIR keeps the screenshots.
const chromium = findChromium();
const describeBrowser = chromium ? describe : describe.skip;
if (!chromium && process.env.TURNGYM_REQUIRE_CHROMIUM === '1') {
  test('Chromium is installed (TURNGYM_REQUIRE_CHROMIUM=1)', () => {
    throw new Error('no Chromium found; set TURNGYM_CHROMIUM or install chromium');
  });
}

describeBrowser('the training report in Chromium', () => {
  let root: string;
  let profile: string;
  let screenshots: string;
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];

  const count = (selector: string): Promise<number> => page.$$eval(selector, (nodes) => nodes.length);
  const chart = (metric: string): string => `.chart-card[data-metric="${metric}"]`;
  const selectOption = async (id: string, label: RegExp): Promise<void> => {
    const options = await page.$$eval(`#${id} option`, (nodes) =>
      nodes.map((node) => ({ value: (node as HTMLOptionElement).value, text: node.textContent ?? '' })),
    );
    const option = options.find((candidate) => label.test(candidate.text));
    if (!option)
      throw new Error(`#${id} has no option matching ${String(label)}: ${options.map((o) => o.text).join(' | ')}`);
    await page.select(`#${id}`, option.value);
  };

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'turngym-report-browser-'));
    profile = mkdtempSync(join(tmpdir(), 'turngym-chromium-'));
    screenshots = process.env.TURNGYM_SCREENSHOT_DIR ?? join(root, 'screenshots');
    mkdirSync(screenshots, { recursive: true });
    writeFakeExperiment(join(root, 'runs'));
    // One run with a critic's held-out predictions: 40 states, V = i/40, R = 1 for the top half.
    writeFileSync(
      join(root, 'runs', 'grpo-s2', 'critic-calibration.json'),
      JSON.stringify({
        split: 'test',
        episodes: 20,
        source: 'a fake critic',
        pairs: Array.from({ length: 40 }, (_, i) => [i / 40, i >= 20 ? 1 : 0]),
      }),
    );
    const file = join(root, 'report.html');
    await writeReport(file, { runs: [join(root, 'runs')], title: 'Fake runs' });
    browser = await puppeteer.launch({
      executablePath: chromium!,
      headless: isHeadlessShell(chromium!) ? 'shell' : true,
      args: [...CHROMIUM_ARGS, `--user-data-dir=${profile}`],
    });
    page = await browser.newPage();
    await page.setViewport({ width: 1400, height: 1000 });
    page.on('pageerror', (error) => problems.push(`pageerror: ${String(error)}`));
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warn') problems.push(`console: ${message.text()}`);
    });
    page.on('request', (request) => {
      if (!request.url().startsWith('file:')) problems.push(`request: ${request.url()}`);
    });
    await page.goto(pathToFileURL(file).href);
    await page.waitForSelector('body[data-ready="true"]');
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    rmSync(root, { recursive: true, force: true });
    rmSync(profile, { recursive: true, force: true });
  });

  it('draws a chart per logged metric, unknown names included, known names first', async () => {
    const metrics = await page.$$eval('.chart-card', (cards) =>
      cards.map((card) => (card as HTMLElement).dataset.metric),
    );
    expect(metrics).toEqual([
      'eval/success_rate',
      'charts/success_rate',
      'charts/episodic_return',
      'losses/policy_loss',
      'budget/generated_tokens',
      'custom/odd_metric',
    ]);
    expect(await count('svg.curve-chart')).toBe(6);
  });

  it('draws per group a mean line and a std band, and a thin line per seed', async () => {
    // Two groups: grpo (3 seeds) and tree-grpo (2 seeds).
    expect(await count(`${chart('charts/success_rate')} path.mean`)).toBe(2);
    expect(await count(`${chart('charts/success_rate')} path.band`)).toBe(2);
    expect(await count(`${chart('charts/success_rate')} path.seed-line`)).toBe(5);
    // Only the grpo runs logged the made-up metric.
    expect(await count(`${chart('custom/odd_metric')} path.mean`)).toBe(1);
    expect(await count(`${chart('custom/odd_metric')} path.seed-line`)).toBe(3);
    // Evaluations at iterations 4 and 9: a two-point mean per group.
    const evalMeans = await page.$$eval(`${chart('eval/success_rate')} path.mean`, (paths) =>
      paths.map((path) => (path.getAttribute('d') ?? '').split('L').length),
    );
    expect(evalMeans).toEqual([2, 2]);
  });

  it('has a legend and a summary table ranked by final eval success', async () => {
    const legend = await page.$$eval('.legend-item', (items) =>
      items.map((item) => [
        item.querySelector('.legend-name')!.textContent,
        item.querySelector('.legend-seeds')!.textContent,
      ]),
    );
    expect(legend).toEqual([
      ['grpo · turngym/example-v1', '3 seeds'],
      ['tree-grpo · turngym/example-v1', '2 seeds'],
    ]);
    const rows = await page.$$eval('.summary-table tbody tr', (trs) =>
      trs.map((tr) => [...tr.querySelectorAll('td')].slice(0, 3).map((td) => td.textContent)),
    );
    // Final eval success (iteration 9): 0.1 + 0.72 + 0.05·seed → grpo 0.87 ± 0.05, tree-grpo 0.845 ± 0.0354.
    expect(rows).toEqual([
      ['grpo · turngym/example-v1', '3', '0.87 ± 0.05'],
      ['tree-grpo · turngym/example-v1', '2', '0.845 ± 0.0354'],
    ]);
  });

  it('hides a group everywhere when its legend entry is clicked, and shows values on hover', async () => {
    await page.click('.legend-item[data-group="0"]');
    expect(await count('.curve[data-group="0"][style*="display: none"]')).toBe(6);
    await page.click('.legend-item[data-group="0"]');
    expect(await count('.curve[data-group="0"][style*="display: none"]')).toBe(0);
    const box = (await page.$(`${chart('charts/success_rate')} rect.overlay`))!;
    const bounds = (await box.boundingBox())!;
    await page.mouse.move(bounds.x + bounds.width / 2, bounds.y + bounds.height / 2);
    expect(await page.$eval('#tooltip', (tooltip) => (tooltip as HTMLElement).hidden)).toBe(false);
    expect(await page.$eval('#tooltip', (tooltip) => tooltip.textContent)).toMatch(
      /grpo · turngym\/example-v1: .* ± .* \(3 seeds\)/,
    );
    await page.mouse.move(1, 1);
  });

  it('draws a tree run’s prompt group as trees: shared prefixes once, leaves coloured by reward', async () => {
    await selectOption('viewer-run', /tree-grpo-s0/);
    // 10 iterations, 8 kept, spread from the first to the last; the last is shown first.
    expect(
      await page.$$eval('#viewer-iteration option', (options) => options.map((option) => option.textContent)),
    ).toEqual([0, 1, 3, 4, 5, 6, 8, 9].map((iteration) => `iteration ${iteration}`));
    expect(
      await page.$eval('#viewer-iteration', (select) => (select as HTMLSelectElement).selectedOptions[0]!.textContent),
    ).toBe('iteration 9');
    await selectOption('viewer-group', /^group 0 /);
    expect(await count('svg.rollout-tree')).toBe(1);
    // M = 2 trees of 1 root + 7 turns; 6 leaves; 14 edges, 2 of them shared (root → n1 in each tree).
    expect(await count('svg.rollout-tree rect.tree-root')).toBe(2);
    expect(await count('svg.rollout-tree circle.tree-node')).toBe(14);
    expect(await count('svg.rollout-tree circle.leaf')).toBe(6);
    expect(await count('svg.rollout-tree path.tree-edge')).toBe(14);
    expect(await count('svg.rollout-tree path.tree-edge.shared')).toBe(2);
    const fills = await page.$$eval('svg.rollout-tree circle.leaf', (leaves) =>
      leaves.map((leaf) => getComputedStyle(leaf).fill),
    );
    // Rewards at iteration 9 are 1 where (tree + leaf + 9) % 3 == 0: leaves (0,0), (1,2) green, the rest red.
    expect(fills).toEqual([
      'rgb(31, 138, 91)',
      'rgb(192, 57, 43)',
      'rgb(192, 57, 43)',
      'rgb(192, 57, 43)',
      'rgb(192, 57, 43)',
      'rgb(31, 138, 91)',
    ]);
    await page.screenshot({ path: join(screenshots, 'report-tree.png'), fullPage: true });
  });

  it('shows a node’s action and observation on click, as text, never as markup', async () => {
    // The second leaf of tree 0 is branch A's answer: a model that wrote HTML and a script.
    const leaves = await page.$$('svg.rollout-tree circle.leaf');
    await leaves[1]!.click();
    expect(await page.$eval('#node-detail .text-block.action pre', (pre) => pre.textContent)).toBe(HOSTILE_ACTION);
    expect(await page.$eval('#node-detail', (detail) => detail.textContent)).toMatch(
      /rollout it9\/g0\/t0\/r1\/b0 ends here/,
    );
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await count('img')).toBe(0);
    // The path from the root to the node is marked: root, n1, n4, n5.
    expect(await count('svg.rollout-tree .tree-node.on-path, svg.rollout-tree .tree-root.on-path')).toBe(4);
    // A shared node says how many rollouts pass through it.
    const shared = await page.$$('svg.rollout-tree circle.tree-node');
    await shared[0]!.click();
    expect(await page.$eval('#node-detail .text-block.action pre', (pre) => pre.textContent)).toBe('t0 first move');
    expect(await page.$eval('#node-detail', (detail) => detail.textContent)).toMatch(/2 rollouts through here/);
    await page.screenshot({ path: join(screenshots, 'report-node.png'), fullPage: true });
  });

  it('lists a chain run’s group as rollouts and shows a rollout’s turns on click', async () => {
    await selectOption('viewer-run', /grpo-s1 /);
    await selectOption('viewer-iteration', /^iteration 4$/);
    await selectOption('viewer-group', /^group 1 /);
    expect(await count('svg.rollout-tree')).toBe(0);
    expect(await page.$$eval('.rollout-item .rollout-id', (ids) => ids.map((id) => id.textContent))).toEqual([
      'it4/g1/r0',
      'it4/g1/r1',
      'it4/g1/r2',
      'it4/g1/r3',
    ]);
    await page.click('.rollout-item:nth-child(2)');
    expect(
      await page.$$eval('#node-detail .text-block.action pre', (pres) => pres.map((pre) => pre.textContent)),
    ).toEqual(['chain 1 look', 'chain 1 answer']);
  });

  it('draws a calibration plot for the run with a critic: a dot per bin of V, the diagonal, the explained variance', async () => {
    expect(
      await page.$$eval('.calibration-card', (cards) => cards.map((card) => (card as HTMLElement).dataset.run)),
    ).toEqual(['runs/grpo-s2']);
    expect(await count('.calibration-card circle.calibration-dot')).toBe(10);
    expect(await count('.calibration-card line.calibration-diagonal')).toBe(1);
    // Bins of 4 states: the lower five all R = 0, the upper five R = 1; dots higher on the page for higher R.
    const heights = await page.$$eval('.calibration-card circle.calibration-dot', (dots) =>
      dots.map((dot) => Number(dot.getAttribute('cy'))),
    );
    expect(new Set(heights.slice(0, 5)).size).toBe(1);
    expect(new Set(heights.slice(5)).size).toBe(1);
    expect(heights[9]!).toBeLessThan(heights[0]!);
    // 1 − Var(R − V)/Var(R) for V = i/40 against the step at 20: 0.666875, shown to 3 digits.
    expect(await page.$eval('.calibration-meta', (meta) => meta.textContent)).toBe(
      '40 test states of 20 episodes · explained variance 0.667',
    );
    await page.$eval('.calibration-card', (card) => card.scrollIntoView());
    await page.screenshot({ path: join(screenshots, 'report-calibration.png'), fullPage: true });
  });

  // The second wall: were a later change to let markup through, the page's policy still runs only its own script.
  it('runs only its own script, even with markup injected into the page', async () => {
    const injected = join(root, 'injected.html');
    writeFileSync(
      injected,
      readFileSync(join(root, 'report.html'), 'utf8').replace(
        '</header>',
        '</header><img src="x" onerror="window.__pwned=1"><script>window.__pwned=2</script>',
      ),
    );
    const other = await browser.newPage(); // its CSP reports must not count as this page's console errors
    try {
      await other.goto(pathToFileURL(injected).href);
      await other.waitForSelector('body[data-ready="true"]');
      expect(await other.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    } finally {
      await other.close();
    }
  });

  // A label is anyone's text and a diverged loss reaches 1e30: neither may push the page wider than the window or
  // cut an axis label off at the chart's edge (a long name once made the summary scroll sideways, and 1.5e301 was
  // drawn as "1.5e+292G", its first digits clipped, reading "5e+292G").
  it('keeps a long run label and huge metric values inside the page and the charts', async () => {
    const dir = join(root, 'wide-runs', 'run-0');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'run.json'),
      JSON.stringify({
        algorithm: 'grpo',
        envId: 'turngym/math-thought-v1',
        seed: 0,
        label: `lr-3e-4-${'x'.repeat(240)}`,
        args: {},
        startedAt: '2026-01-01T00:00:00.000Z',
      }),
    );
    const lines = Array.from({ length: 10 }, (_, i) => ({
      iteration: i,
      global_step: i,
      'losses/diverged': (i + 1) * 2e300,
    }));
    writeFileSync(join(dir, 'metrics.jsonl'), lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
    // A label of a page's length (a config pasted into --label) in a second group.
    const pasted = join(root, 'wide-runs', 'run-1');
    mkdirSync(pasted, { recursive: true });
    const longLabel = Array.from({ length: 2000 }, (_, i) => `option${i}=value`).join(' ');
    writeFileSync(
      join(pasted, 'run.json'),
      JSON.stringify({
        algorithm: 'ppo',
        envId: 'turngym/math-thought-v1',
        seed: 0,
        label: longLabel,
        args: {},
        startedAt: '',
      }),
    );
    writeFileSync(join(pasted, 'metrics.jsonl'), '{"iteration": 0, "global_step": 0, "losses/diverged": 1}\n');
    const file = join(root, 'wide.html');
    await writeReport(file, { runs: [join(root, 'wide-runs')], title: 'Wide' });
    const other = await browser.newPage();
    try {
      await other.setViewport({ width: 1280, height: 1000 });
      await other.goto(pathToFileURL(file).href);
      await other.waitForSelector('body[data-ready="true"]');
      const width = await other.evaluate(() => ({
        page: document.documentElement.scrollWidth,
        window: document.documentElement.clientWidth,
      }));
      expect(width.page).toBeLessThanOrEqual(width.window);
      // The long label is cut to a few lines in the legend and the summary, and whole in their tooltips.
      const names = await other.$$eval('.legend-name, .summary-table .group-name', (nodes) =>
        nodes.map((node) => ({ height: node.getBoundingClientRect().height, title: (node as HTMLElement).title })),
      );
      expect(names).toHaveLength(4);
      for (const name of names) expect(name.height).toBeLessThan(80);
      expect(names.filter((name) => name.title === `ppo · turngym/math-thought-v1 · ${longLabel}`)).toHaveLength(2);
      const ticks = await other.$$eval('.chart-card[data-metric="losses/diverged"] text.tick', (labels) =>
        labels.map((label) => ({ text: label.textContent, left: (label as SVGTextElement).getBBox().x })),
      );
      const yTicks = ticks.filter((tick) => /e/.test(tick.text ?? ''));
      expect(yTicks.map((tick) => tick.text)).toEqual(['5e300', '1e301', '1.5e301', '2e301']);
      for (const tick of yTicks) expect(tick.left).toBeGreaterThanOrEqual(0);
      await other.screenshot({ path: join(screenshots, 'report-wide.png'), fullPage: true });
    } finally {
      await other.close();
    }
  });

  // Trainers evaluate at the last iteration only, and seeds stop a few tokens apart: each seed's eval curve is one
  // point, at 24,576 and 24,523 steps. The chart of it came out empty (one-point lines have no length, and the band of
  // seeds that never overlap was a path "Z", a console error), with its x axis labelled "24.5k 24.5k 24.6k …".
  it('draws one-point seeds that never overlap as dots, and labels every tick differently', async () => {
    const runs = join(root, 'final-eval-runs');
    for (const [seed, last] of [
      [0, 24576],
      [1, 24523],
    ] as const) {
      const dir = join(runs, `grpo-s${seed}`);
      mkdirSync(dir, { recursive: true });
      writeFileSync(
        join(dir, 'run.json'),
        JSON.stringify({ algorithm: 'grpo', envId: 'turngym/math-thought-v1', seed, args: {}, startedAt: '' }),
      );
      const lines = [
        { iteration: 0, global_step: 8192, 'charts/success_rate': 0 },
        { iteration: 1, global_step: last, 'charts/success_rate': 0.5, 'eval/success_rate': 0.25 * (seed + 1) },
      ];
      writeFileSync(join(dir, 'metrics.jsonl'), lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
    }
    const file = join(root, 'final-eval.html');
    await writeReport(file, { runs: [runs], title: 'Final evaluation only' });
    const other = await browser.newPage();
    const errors: string[] = [];
    other.on('pageerror', (error) => errors.push(String(error)));
    other.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warn') errors.push(message.text());
    });
    try {
      await other.goto(pathToFileURL(file).href);
      await other.waitForSelector('body[data-ready="true"]');
      const evalChart = '.chart-card[data-metric="eval/success_rate"]';
      const dots = await other.$$eval(`${evalChart} circle.seed-dot`, (nodes) =>
        nodes.map((node) => node.querySelector('title')?.textContent),
      );
      expect(dots).toEqual(['grpo · turngym/math-thought-v1, seed 0', 'grpo · turngym/math-thought-v1, seed 1']);
      expect(await other.$$eval(`${evalChart} path.band, ${evalChart} path.mean`, (nodes) => nodes.length)).toBe(0);
      const xTicks = await other.$$eval(`${evalChart} text.tick[text-anchor="middle"]`, (labels) =>
        labels.map((label) => label.textContent),
      );
      expect(xTicks.length).toBeGreaterThan(1);
      expect(new Set(xTicks).size).toBe(xTicks.length);
      expect(errors).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it('made no console errors and no network requests', () => {
    expect(problems).toEqual([]);
  });
});
