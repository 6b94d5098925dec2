import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { runEpisode, summarize } from '@turngym/core';
import { WikiExpert } from '../agents/wiki-expert';
import { DISAMBIGUATION_TYPE, taskBankFor } from '../tasks/task-bank';
import { WikiNavigatorEnv } from '../wiki-navigator-env';
import { readJsonlCorpus } from './jsonl-corpus';
import { convertMediaWikiFile } from './mediawiki-converter';
import { writeSyntheticDump } from './synthetic-dump';

// A pages-meta-history dump of 120 synthetic articles in two worlds, written Wikipedia-style (infobox
// templates, citations, redirects, disambiguation pages, Talk/File/Template/Category pages, 2 revisions per
// article) and compressed by bzip2, as Wikipedia ships its dumps:
//   turngym-wiki-convert --synthetic-dump src/corpus/__fixtures__/synthetic-history.xml.bz2 --articles 120 --revisions 2 --seed 7
// (with worldSize 60, through writeSyntheticDumpFile).
const FIXTURE = join(__dirname, '__fixtures__', 'synthetic-history.xml.bz2');
const hasBzip2 = spawnSync('bzip2', ['--help'], { stdio: 'ignore' }).status === 0;

describe('Wikipedia-shaped dumps: .bz2, history, redirects, disambiguation, other namespaces', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'wiki-dump-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('decompresses .bz2 in process (unbzip2-stream) and through bzip2 alike, keeping latest revisions', async () => {
    const decoders = hasBzip2 ? (['js', 'process'] as const) : (['js'] as const);
    const outputs: string[] = [];
    for (const bzip2 of decoders) {
      const output = join(dir, `${bzip2}.jsonl`);
      const stats = await convertMediaWikiFile(FIXTURE, output, { bzip2 });
      // 120 articles + 8 disambiguation pages; 38 Talk/File/Template/Category pages skipped.
      expect(stats).toEqual({ articles: 128, redirects: 30, skipped: 38 });
      outputs.push(readFileSync(output, 'utf8'));
    }
    expect(new Set(outputs).size).toBe(1);
    const lines = (outputs[0] as string)
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { title: string; type?: string; redirect?: string; lead?: string });
    const disambiguation = lines.filter((line) => line.type === DISAMBIGUATION_TYPE);
    expect(disambiguation).toHaveLength(8);
    expect(disambiguation[0]?.lead).toMatch(/may refer to:\n\n\* \[\[/);
    // Templates, citations and categories leave no markup behind.
    expect(outputs[0]).not.toMatch(/\{\{|<ref|Category:|cite web|Talk:/);
    expect(lines.filter((line) => line.redirect)).toHaveLength(30);
  });

  it('a corrupt .bz2 is an error naming the file, not a short corpus', async () => {
    const bad = join(dir, 'bad.xml.bz2');
    writeFileSync(bad, readFileSync(FIXTURE).subarray(0, 4000));
    await expect(convertMediaWikiFile(bad, join(dir, 'bad.jsonl'), { bzip2: 'js' })).rejects.toThrow();
    if (hasBzip2)
      await expect(convertMediaWikiFile(bad, join(dir, 'bad.jsonl'), { bzip2: 'process' })).rejects.toThrow(
        /bad\.xml\.bz2: not a valid bzip2 file/,
      );
  });

  it('generates questions and races from real-shaped pages, which the expert solves', async () => {
    const output = join(dir, 'tasks.jsonl');
    await convertMediaWikiFile(FIXTURE, output, { bzip2: 'js' });
    const corpus = readJsonlCorpus(output);
    const tasks = taskBankFor(corpus).all();
    for (const kind of ['single', 'bridge', 'comparison', 'race'])
      expect(tasks.filter((task) => task.kind === kind && task.split === 'train').length).toBeGreaterThan(10);
    // No task starts from or ends on a disambiguation page; phrasing comes from the infobox parameter names.
    for (const task of tasks) {
      expect(corpus.get(task.goldPath[0] as string)?.type).not.toBe(DISAMBIGUATION_TYPE);
      expect(corpus.get(task.goldPath[task.goldPath.length - 1] as string)?.type).not.toBe(DISAMBIGUATION_TYPE);
    }
    // `birth_place = [[City]], [[Country]]`: the first link is the relation, as on real infoboxes.
    expect(
      tasks.some(
        (task) => task.kind === 'bridge' && task.evidence.some((evidence) => evidence.field === 'Birth place'),
      ),
    ).toBe(true);
    expect(tasks.some((task) => /^What is the birth place of /.test(task.question))).toBe(true);
    for (const task of ['qa', 'race'] as const) {
      const env = new WikiNavigatorEnv({ corpus: output, task, split: 'test' });
      try {
        const outcomes = [];
        for (let seed = 0; seed < 20; seed++) outcomes.push(await runEpisode(env, new WikiExpert(env), seed));
        expect(summarize(outcomes).successRate).toBeGreaterThanOrEqual(0.95);
      } finally {
        await env.close();
      }
    }
  });

  it('writes a pages-articles dump with one revision per page and the MediaWiki header', async () => {
    const sink = new PassThrough();
    const chunks: Buffer[] = [];
    sink.on('data', (chunk: Buffer) => chunks.push(chunk));
    const stats = await writeSyntheticDump(sink, { articles: 60, seed: 3 });
    const xml = Buffer.concat(chunks).toString('utf8');
    expect(stats.articles).toBe(60);
    expect(stats.bytes).toBe(Buffer.byteLength(xml));
    expect(xml).toMatch(/^<mediawiki xmlns="http:\/\/www\.mediawiki\.org\/xml\/export-0\.11\/"/);
    expect(xml.match(/<page>/g)).toHaveLength(
      stats.articles + stats.redirects + stats.disambiguation + stats.otherNamespaces,
    );
    expect(xml.match(/<revision>/g)).toHaveLength(xml.match(/<page>/g)?.length ?? 0);
  });
});
