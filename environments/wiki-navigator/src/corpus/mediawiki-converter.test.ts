import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { WikiExpert } from '../agents/wiki-expert';
import { splitOf } from '../tasks/task-bank';
import { WikiNavigatorEnv } from '../wiki-navigator-env';
import { articleLinks, parseLinks, stripLinks } from './article';
import { parseJsonlCorpus, readJsonlCorpus } from './jsonl-corpus';
import { convertMediaWikiFile, wikitextToArticle } from './mediawiki-converter';

const page = (title: string, ns: number, text: string, redirect?: string): string =>
  `<page><title>${title}</title><ns>${ns}</ns><id>1</id>${redirect ? `<redirect title="${redirect}" />` : ''}<revision><id>2</id><text xml:space="preserve">${text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')}</text></revision></page>`;

const DUMP = `<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.11/" version="0.11" xml:lang="en">
<siteinfo><sitename>Test</sitename></siteinfo>
${page(
  'Ada Lovelace',
  0,
  `{{Infobox person
| name = Ada Lovelace
| birth_date = 1815
| birth_place = [[London]]
| known_for = [[Analytical Engine|the engine]]
}}
'''Augusta Ada King''' was an English [[mathematician]], known for work on [[Analytical Engine|a proposed computer]].<ref>A note</ref>

She was born in [[London]].

== Early life ==
She was the only child of [[Lord Byron|the poet Lord Byron]].
* [[London]]
* A plain item

== References ==
{{reflist}}`,
)}
${page(
  'London',
  0,
  `{{Infobox settlement
| name = London
| population = 8,900,000
| country = [[England]]
}}
'''London''' is a city in [[England]]. [[Ada Lovelace]] was born here.`,
)}
${page('England', 0, `'''England''' is a country. Its capital is [[London]].`)}
${page('Analytical Engine', 0, `The '''Analytical Engine''' was designed by Charles Babbage. See [[Ada Lovelace]].`)}
${page('Ada', 0, '#REDIRECT [[Ada Lovelace]]', 'Ada Lovelace')}
${page('Talk:London', 1, 'A discussion.')}
</mediawiki>`;

describe('MediaWiki XML → JSONL corpus', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'wiki-convert-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('converts articles (infobox, lead, sections, lists, links) and redirects, skipping other namespaces', async () => {
    writeFileSync(join(dir, 'dump.xml'), DUMP);
    const stats = await convertMediaWikiFile(join(dir, 'dump.xml'), join(dir, 'corpus.jsonl'));
    expect(stats).toEqual({ articles: 4, redirects: 1, skipped: 1 });
    const lines = readFileSync(join(dir, 'corpus.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const ada = lines.find((line) => line.title === 'Ada Lovelace');
    expect(ada.type).toBe('person');
    expect(ada.infobox).toEqual([
      { field: 'Birth date', value: '1815' },
      { field: 'Birth place', value: '[[London]]' },
      { field: 'Known for', value: '[[Analytical Engine|the engine]]' },
    ]);
    expect(ada.lead).toBe(
      'Augusta Ada King was an English [[mathematician]], known for work on [[Analytical Engine|a proposed computer]].\n\nShe was born in [[London]].',
    );
    expect(ada.sections).toEqual([
      {
        title: 'Early life',
        text: 'She was the only child of [[Lord Byron|the poet Lord Byron]].\n\n* [[London]]\n* A plain item',
      },
    ]);
    expect(lines).toContainEqual({ title: 'Ada', redirect: 'Ada Lovelace' });
  });

  it('reads gzip dumps and stops at maxArticles', async () => {
    writeFileSync(join(dir, 'dump.xml.gz'), gzipSync(DUMP));
    const stats = await convertMediaWikiFile(join(dir, 'dump.xml.gz'), join(dir, 'two.jsonl'), { maxArticles: 2 });
    expect(stats.articles).toBe(2);
    expect(readFileSync(join(dir, 'two.jsonl'), 'utf8').trim().split('\n')).toHaveLength(2);
  });

  it('rejects malformed XML with an error', async () => {
    writeFileSync(join(dir, 'bad.xml'), '<mediawiki><page><title>x</titl></page>');
    await expect(convertMediaWikiFile(join(dir, 'bad.xml'), join(dir, 'bad.jsonl'))).rejects.toThrow(/malformed/);
  });

  it('serves the converted corpus to the env: redirects resolve, generic infobox questions are answerable', async () => {
    // A tiny corpus: draw from the split its main article falls in.
    const env = new WikiNavigatorEnv({
      corpus: join(dir, 'corpus.jsonl'),
      questionTypes: ['single', 'bridge'],
      split: splitOf('Ada Lovelace'),
    });
    try {
      await env.reset({ seed: 1 });
      const opened = await env.step('NAVIGATE(ada)');
      expect(opened.info.page).toBe('Ada Lovelace');
      expect(opened.observation).toContain('Birth place: [#1 London]');
      // The engine is linked twice, as "the engine" and "a proposed computer": either text clicks it.
      expect(opened.observation).toContain('[#2 the engine]');
      expect(opened.observation).toContain('[#2 a proposed computer]');
      const clicked = await env.step('CLICK(a proposed computer)');
      expect(clicked.info).toMatchObject({
        page: 'Analytical Engine',
        feedback: 'Followed [#2 a proposed computer] to "Analytical Engine".',
      });
      await env.step('BACK');
      const tasks = env.availableTasks();
      expect(tasks.some((task) => task.goldPath[0] === 'Ada Lovelace')).toBe(true);
      for (const task of tasks) {
        const reset = await env.reset({ seed: 0, options: { taskId: task.id } });
        const expert = new WikiExpert(env);
        await expert.start({ seed: 0, spec: env.spec, observation: reset.observation, info: reset.info });
        let step = { observation: reset.observation, info: reset.info, terminated: false, truncated: false, reward: 0 };
        while (!step.terminated && !step.truncated)
          step = await env.step(await expert.act(step.observation, step.info));
        expect({ question: task.question, reward: step.reward }).toEqual({ question: task.question, reward: 1 });
      }
    } finally {
      await env.close();
    }
  });

  it('reads localised redirects in exports without <redirect> (not as empty articles)', async () => {
    // A German or Russian export written without the <redirect> element (older MediaWiki, some exports).
    writeFileSync(
      join(dir, 'de.xml'),
      `<mediawiki xml:lang="de">${page('London', 0, "'''London''' ist eine Stadt.")}` +
        page('Londres', 0, '#WEITERLEITUNG [[London]]') +
        page('Лондон', 0, '#перенаправление [[London#Geschichte]]') +
        page('Abschnitt', 0, '#WEITERLEITUNG [[#Geschichte]]') +
        page('Section', 0, '#REDIRECT [[#History]]\n{{R to section}}\n[[Category:Redirects]]') +
        page('Wikt', 0, '#WEITERLEITUNG [[wikt:London]]') +
        page('Liste', 0, '#Eins [[London]]\n#Zwei [[London]]') +
        '</mediawiki>',
    );
    const stats = await convertMediaWikiFile(join(dir, 'de.xml'), join(dir, 'de.jsonl'));
    const lines = readFileSync(join(dir, 'de.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    // A redirect to a section of itself or to another wiki leads to no article of this one: skipped.
    expect(stats).toEqual({ articles: 2, redirects: 2, skipped: 3 });
    expect(lines).toContainEqual({ title: 'Londres', redirect: 'London' });
    expect(lines).toContainEqual({ title: 'Лондон', redirect: 'London' });
    // A page that is a numbered list is still an article.
    expect(lines.map((line) => line.title)).toEqual(['London', 'Londres', 'Лондон', 'Liste']);
  });

  it('links only articles of this wiki: interwiki links become their label, interlanguage links are dropped', () => {
    const article = wikitextToArticle(
      'Aldric Venn',
      "'''Aldric Venn''' was an [[wikt:explorer|explorer]] from [[Morrow Bay]] who sailed to [[fr:Paris|a French city]]" +
        ' and quoted [[s:Logbook|his logbook]], [[:fr:Lyon|Lyon]] and [[:Category:Explorers|other explorers]].[[es:Aldric Venn]]',
    );
    expect(article.lead).toBe(
      'Aldric Venn was an explorer from [[Morrow Bay]] who sailed to and quoted his logbook, Lyon and [[Category:Explorers|other explorers]].',
    );
  });

  it('decodes HTML character references, named and numeric, as the wiki shows them', () => {
    const article = wikitextToArticle(
      'Café',
      "{{Infobox venue\n| motto = Caf&eacute; &amp; co\n}}\n'''Caf&#233;''' serves 1 &lt; 2 cakes &#x1F600; for R&D.\n\n== Men&uacute; ==\n[[Cr&egrave;me br&ucirc;l&eacute;e|Cr&egrave;me]] only.",
    );
    expect(article.infobox).toEqual([{ field: 'Motto', value: 'Café & co' }]);
    expect(article.lead).toBe('Café serves 1 < 2 cakes 😀 for R&D.');
    expect(article.sections).toEqual([{ title: 'Menú', text: '[[Crème brûlée|Crème]] only.' }]);
  });

  it('keeps the text of unlabelled section links as the wiki shows it ([[#History]], [[Paris#History]], [[C#]])', () => {
    const article = wikitextToArticle(
      'Aldric Venn',
      "'''Aldric Venn''' (see [[#Early life]] and [[#Voyages|his voyages]]) visited [[Paris#History]], [[:Lyon#Old town]]" +
        ' and [[Paris#Museums|its museums]], wrote [[C#]] and ate a [[Caf&#233;]] cake at [[Caf%C3%A9#Menu]].',
    );
    expect(article.lead).toBe(
      'Aldric Venn (see #Early life and his voyages) visited [[Paris|Paris#History]], [[Lyon|Lyon#Old town]] and [[Paris|its museums]], wrote [[C|C#]] and ate a [[Café]] cake at [[Café|Café#Menu]].',
    );
  });

  it("leaves a real infobox's layout parameters and picture file names out (no question asks for a picture)", () => {
    const article = wikitextToArticle(
      'Paris',
      `{{Infobox settlement
| name = Paris
| image_skyline = Paris montage.jpg
| imagesize = 275px
| image_alt = A montage
| image_caption = The city
| image_flag = Flag of Paris.svg
| flag_size = 100px
| image_seal = Seal.png
| pushpin_map = France
| pushpin_label_position = left
| mapsize = 200px
| map_caption = Location
| coordinates = {{coord|48|51|N|2|21|E}}
| population_footnotes = <ref>INSEE</ref>
| signature_alt = x
| logo = Logo.svg
| website = {{URL|paris.fr}}
| photo = File:Paris skyline.png
| country = [[France]]
| population_total = 2,102,650
| elevation_m = 35
| altitude = 35 m
| established_date = 3rd century BC
}}
'''Paris''' is a city.`,
    );
    expect(article.infobox).toEqual([
      { field: 'Country', value: '[[France]]' },
      { field: 'Population total', value: '2,102,650' },
      { field: 'Elevation m', value: '35' },
      { field: 'Altitude', value: '35 m' },
      { field: 'Established date', value: '3rd century BC' },
    ]);
  });

  it('keeps the ideographic full stop 。 of Chinese and Japanese text and titles', () => {
    const article = wikitextToArticle(
      '東京',
      "{{Infobox settlement\n| motto = 和。\n}}\n'''東京'''は[[日本]]の首都である。人口は約1400万人。[[モーニング娘。]]の本拠地。\n\n== 歴史 ==\n江戸と呼ばれた。",
    );
    expect(article.infobox).toEqual([{ field: 'Motto', value: '和。' }]);
    expect(article.lead).toBe('東京は[[日本]]の首都である。人口は約1400万人。[[モーニング娘。]]の本拠地。');
    expect(article.sections).toEqual([{ title: '歴史', text: '江戸と呼ばれた。' }]);
  });

  it('shows the text inside <nowiki> as written, unparsed', () => {
    const article = wikitextToArticle(
      'Markup',
      "'''Markup''' quoted him <nowiki>[</nowiki>sic<nowiki>]</nowiki> and wrote <nowiki>{{t}}</nowiki> and <nowiki>''x'' = a | b &amp; c</nowiki>.",
    );
    expect(article.lead).toBe("Markup quoted him [sic] and wrote {{t}} and ''x'' = a | b & c.");
  });

  it('writes a [[ shown by <nowiki> so that it reads as text, not as a link', () => {
    const article = wikitextToArticle(
      'Markup',
      "'''Markup''' writes <nowiki>[[Paris]]</nowiki> to link [[Lyon]]; <nowiki>&#91;</nowiki> is shown as typed.\n\n" +
        '== Use ==\n* <nowiki>[[</nowiki>[[Rome]]<nowiki>]]</nowiki>',
    );
    expect(parseLinks(article.lead)).toEqual([{ target: 'Lyon', label: 'Lyon' }]);
    expect(stripLinks(article.lead)).toBe('Markup writes [[Paris]] to link Lyon; &#91; is shown as typed.');
    expect(articleLinks(article)).toEqual(['Lyon', 'Rome']);
    expect(stripLinks(article.sections[0]?.text ?? '')).toBe('* [[Rome]]');
    // A bracket in a label ended the link: the whole link was shown as markup.
    expect(parseLinks(wikitextToArticle('L', 'See [[Lyon|the [old] city]] now.').lead)).toEqual([
      { target: 'Lyon', label: 'the [old] city' },
    ]);
  });

  it('keeps the links inside inline templates ({{marriage}}, {{hlist}}, {{nowrap}}, {{lang}})', () => {
    const article = wikitextToArticle(
      'Aldric Venn',
      `{{Infobox person
| name = Aldric Venn
| birth_place = [[Lyon]], France
| spouse = {{marriage|[[Jane Doe]]|1990}}
| occupation = {{hlist|Writer|[[Painter|''painter'']]}}
| image = {{CSS image crop|Image=[[File:Venn.jpg]]}}
}}
'''Aldric Venn''' married {{marriage|[[Jane Doe]]|1990}}, worked {{nowrap|in [[Paris]]}} and {{lang|fr|[[Lyon]]}}.{{efn|See [[Rome]].}}

== {{nowrap|[[Early years|Early]] life}} ==
Born in [[Lyon]].`,
    );
    expect(article.infobox).toEqual([
      { field: 'Birth place', value: '[[Lyon]], France' },
      { field: 'Spouse', value: '[[Jane Doe]] (m. 1990)' },
      { field: 'Occupation', value: 'Writer · [[Painter|painter]]' },
    ]);
    expect(article.lead).toBe('Aldric Venn married [[Jane Doe]] (m. 1990), worked in [[Paris]] and [[Lyon]].');
    expect(article.sections).toEqual([{ title: 'Early life', text: 'Born in [[Lyon]].' }]);
  });

  it('writes {{coord}} with the hemispheres it names, and leaves out one shown beside the title', () => {
    const article = wikitextToArticle(
      'Places',
      "'''Paris''' lies at {{coord|48|51|N|2|21|E}}, Sydney at {{coord|-33.87|151.21}}, New York at" +
        ' {{Coord|40|42|46|N|74|0|22|W|display=inline}} and the equator at {{coord|0|0}}.{{coord|1|2|N|3|4|E|display=title}}',
    );
    expect(article.lead).toBe(
      'Paris lies at 48°51′N 2°21′E, Sydney at 33.87°S 151.21°E, New York at 40°42′46″N 74°0′22″W and the equator at 0°N 0°E.',
    );
  });

  it('reads the namespace from the title prefix in exports without <ns>, and notes a case-sensitive wiki', async () => {
    const untagged = (title: string, text: string): string =>
      `<page><title>${title}</title><id>1</id><revision><id>2</id><text>${text}</text></revision></page>`;
    writeFileSync(
      join(dir, 'old.xml'),
      `<mediawiki version="0.3"><siteinfo><case>case-sensitive</case><namespaces><namespace key="1">Talk</namespace>` +
        `<namespace key="14">Category</namespace></namespaces></siteinfo>` +
        untagged('Old Article', 'Text of [[Old Other]].') +
        untagged('Talk:Old Article', 'A discussion.') +
        untagged('Category:Old Things', 'Old things.') +
        untagged('Mr. Smith: A Life', 'A colon that names no namespace.') +
        '</mediawiki>',
    );
    const articles = await convertMediaWikiFile(join(dir, 'old.xml'), join(dir, 'old.jsonl'));
    expect(articles).toEqual({ articles: 2, redirects: 0, skipped: 2, caseSensitive: true });
    const titles = (path: string): string[] =>
      readFileSync(path, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).title);
    expect(titles(join(dir, 'old.jsonl'))).toEqual(['Old Article', 'Mr. Smith: A Life']);
    await convertMediaWikiFile(join(dir, 'old.xml'), join(dir, 'old-14.jsonl'), { namespaces: [0, 14] });
    expect(titles(join(dir, 'old-14.jsonl'))).toEqual(['Old Article', 'Category:Old Things', 'Mr. Smith: A Life']);
  });

  it('names the line of a bad JSONL corpus line', () => {
    expect(() => parseJsonlCorpus('{"title": "A"}\n{"titel": "B"}\nnot json', 'x.jsonl')).toThrow(
      /x\.jsonl:2.*x\.jsonl:3/s,
    );
    const { articles } = parseJsonlCorpus(
      '// comment\n{"title": "A", "infobox": {"Country": "[[B]]"}}\n\n{"title": "B"}',
    );
    expect(articles[0]?.infobox).toEqual([{ field: 'Country', value: '[[B]]' }]);
    expect(() => readJsonlCorpus(join(dir, 'no-such-file.jsonl'))).toThrow(/no file at/);
  });
});

/** One `<revision>` as a `pages-meta-history` dump writes it (contributor and comment included as noise). */
const revision = (fields: {
  id?: number;
  parentid?: number;
  timestamp?: string;
  text?: string;
  deleted?: boolean;
}): string =>
  [
    '<revision>',
    fields.id === undefined ? '' : `<id>${fields.id}</id>`,
    fields.parentid === undefined ? '' : `<parentid>${fields.parentid}</parentid>`,
    fields.timestamp === undefined ? '' : `<timestamp>${fields.timestamp}</timestamp>`,
    '<contributor><username>Editor</username><id>99999</id></contributor><comment>edit</comment>',
    '<model>wikitext</model><format>text/x-wiki</format>',
    fields.deleted
      ? '<text bytes="120" deleted="deleted" />'
      : `<text bytes="${(fields.text ?? '').length}" xml:space="preserve">${(fields.text ?? '')
          .replace(/&/g, '&amp;')
          .replace(/</g, '&lt;')}</text>`,
    '<sha1>x</sha1></revision>',
  ].join('');
const historyPage = (title: string, revisions: string[], redirect?: string): string =>
  `<page><title>${title}</title><ns>0</ns><id>7</id>${redirect ? `<redirect title="${redirect}" />` : ''}${revisions.join('\n')}</page>`;

const HISTORY_DUMP = `<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.11/" version="0.11" xml:lang="en">
<siteinfo><sitename>Test</sitename></siteinfo>
${historyPage('Oldest first', [
  revision({ id: 10, timestamp: '2001-01-01T00:00:00Z', text: "'''Oldest first''' was FIRSTDRAFT." }),
  revision({ id: 11, parentid: 10, timestamp: '2002-01-01T00:00:00Z', text: "'''Oldest first''' was SECONDDRAFT." }),
  revision({ id: 12, parentid: 11, timestamp: '2003-01-01T00:00:00Z', text: "'''Oldest first''' is FINAL." }),
])}
${historyPage('Shuffled', [
  revision({ id: 21, timestamp: '2002-01-01T00:00:00Z', text: "'''Shuffled''' was SECONDDRAFT." }),
  revision({ id: 22, timestamp: '2010-06-01T12:00:00Z', text: "'''Shuffled''' is FINAL." }),
  revision({ id: 20, timestamp: '2001-01-01T00:00:00Z', text: "'''Shuffled''' was FIRSTDRAFT." }),
])}
${historyPage('Same second', [
  revision({ id: 31, timestamp: '2005-05-05T05:05:05Z', text: "'''Same second''' is FINAL." }),
  revision({ id: 30, timestamp: '2005-05-05T05:05:05Z', text: "'''Same second''' was FIRSTDRAFT." }),
])}
${historyPage('No timestamps', [
  revision({ text: "'''No timestamps''' was FIRSTDRAFT." }),
  revision({ text: "'''No timestamps''' is FINAL." }),
])}
${historyPage('Became a redirect', [
  revision({ id: 40, timestamp: '2001-01-01T00:00:00Z', text: "'''Became a redirect''' was FIRSTDRAFT." }),
  revision({ id: 41, timestamp: '2002-01-01T00:00:00Z', text: '#REDIRECT [[Oldest first]]' }),
])}
${historyPage('Was a redirect', [
  revision({ id: 50, timestamp: '2001-01-01T00:00:00Z', text: '#REDIRECT [[Shuffled]]' }),
  revision({ id: 51, timestamp: '2002-01-01T00:00:00Z', text: "'''Was a redirect''' is FINAL." }),
])}
${historyPage('Blanked', [
  revision({ id: 60, timestamp: '2001-01-01T00:00:00Z', text: "'''Blanked''' was FIRSTDRAFT." }),
  revision({ id: 61, timestamp: '2002-01-01T00:00:00Z', text: '' }),
])}
${historyPage('Hidden', [
  revision({ id: 70, timestamp: '2001-01-01T00:00:00Z', text: "'''Hidden''' was FIRSTDRAFT." }),
  revision({ id: 71, timestamp: '2002-01-01T00:00:00Z', deleted: true }),
])}
${historyPage('Hidden in the past', [
  revision({ id: 80, timestamp: '2001-01-01T00:00:00Z', deleted: true }),
  revision({ id: 81, timestamp: '2002-01-01T00:00:00Z', text: "'''Hidden in the past''' is FINAL." }),
])}
</mediawiki>`;

describe('MediaWiki history dumps (several revisions per page)', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'wiki-history-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const convert = async (
    name: string,
    contents: string | Buffer,
  ): Promise<{ stats: unknown; lines: Array<Record<string, unknown>> }> => {
    writeFileSync(join(dir, name), contents);
    const stats = await convertMediaWikiFile(join(dir, name), join(dir, `${name}.jsonl`));
    const lines = readFileSync(join(dir, `${name}.jsonl`), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    return { stats, lines };
  };

  it.each([
    ['plain', 'history.xml', HISTORY_DUMP],
    ['gzip', 'history.xml.gz', gzipSync(HISTORY_DUMP)],
  ])('keeps only the latest revision of each page (%s)', async (_kind, name, contents) => {
    const { stats, lines } = await convert(name, contents);
    // Blanked and Hidden: their latest revision has no text, so they are skipped, not rebuilt from an older one.
    expect(stats).toEqual({ articles: 6, redirects: 1, skipped: 2 });
    const leads = Object.fromEntries(lines.filter((line) => 'lead' in line).map((line) => [line.title, line.lead]));
    expect(leads).toEqual({
      'Oldest first': 'Oldest first is FINAL.',
      Shuffled: 'Shuffled is FINAL.',
      'Same second': 'Same second is FINAL.',
      'No timestamps': 'No timestamps is FINAL.',
      'Was a redirect': 'Was a redirect is FINAL.',
      'Hidden in the past': 'Hidden in the past is FINAL.',
    });
    expect(lines).toContainEqual({ title: 'Became a redirect', redirect: 'Oldest first' });
    expect(JSON.stringify(lines)).not.toMatch(/DRAFT/);
  });
});

describe('dump files that cannot be converted: one error naming the file, and the previous output kept', () => {
  let dir: string;
  let good: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'wiki-refuse-'));
    writeFileSync(join(dir, 'dump.xml'), DUMP);
    good = join(dir, 'good.jsonl');
    await convertMediaWikiFile(join(dir, 'dump.xml'), good);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** Converts `contents` over the good corpus: the conversion must fail and leave that corpus as it was. */
  const refused = async (name: string, contents: string | Buffer | undefined): Promise<string> => {
    const before = readFileSync(good, 'utf8');
    if (contents !== undefined) writeFileSync(join(dir, name), contents);
    const message = await convertMediaWikiFile(join(dir, name), good).then(
      () => 'converted',
      (error: Error) => error.message,
    );
    expect(readFileSync(good, 'utf8')).toBe(before);
    expect(readdirSync(dir).filter((file) => file.includes('.converting'))).toEqual([]);
    return message;
  };

  it.each([
    ['missing.xml', undefined],
    ['missing.xml.gz', undefined],
    ['missing.xml.bz2', 'process'],
    ['missing.xml.bz2', 'js'],
  ] as const)('reports a missing input %s (bzip2 %s) as such', async (name, bzip2) => {
    const converting = convertMediaWikiFile(join(dir, name), join(dir, 'out.jsonl'), bzip2 ? { bzip2 } : {});
    await expect(converting).rejects.toThrow(`${join(dir, name)}: no such file or directory`);
  });

  it('reports a missing output folder as such, naming the output', async () => {
    const output = join(dir, 'no-such-folder', 'out.jsonl');
    await expect(convertMediaWikiFile(join(dir, 'dump.xml'), output)).rejects.toThrow(
      `${output}: no such file or directory`,
    );
  });

  it('refuses a file that is not a MediaWiki export of pages, or that has no article', async () => {
    expect(await refused('empty.xml', '')).toBe(
      `${join(dir, 'empty.xml')}: not a MediaWiki XML export: the file is empty`,
    );
    expect(await refused('404.xml', '<html><head><title>404 Not Found</title></head><body></body></html>')).toMatch(
      /404\.xml: not a MediaWiki XML export: its root element is <html>, not <mediawiki>$/,
    );
    expect(await refused('feed.xml', '<?xml version="1.0"?><rss><channel><title>x</title></channel></rss>')).toMatch(
      /its root element is <rss>/,
    );
    expect(await refused('no-pages.xml', '<mediawiki><siteinfo><sitename>X</sitename></siteinfo></mediawiki>')).toMatch(
      /no-pages\.xml: a MediaWiki XML export with no <page>/,
    );
    expect(await refused('talk-only.xml', `<mediawiki>${page('Talk:London', 1, 'A discussion.')}</mediawiki>`)).toMatch(
      /talk-only\.xml: no article in namespace 0 \(0 redirects, 1 pages skipped\)/,
    );
  });

  it('names the file and the line of the first XML error (lines from 1), and wraps gzip errors', async () => {
    // The bad close tag is on line 3; the errors sax reports after it (at the end of the file) do not count.
    const bad = `<mediawiki>\n${page('London', 0, 'A city.')}\n<page><title>Paris</titel>\n${page('England', 0, 'x')}\n</mediawiki>`;
    expect(await refused('bad.xml', bad)).toMatch(
      /^.*bad\.xml: MediaWiki XML is malformed at line 3, column \d+: Unexpected close tag$/,
    );
    // Cut after the first page: the error is at the end of the file, on its last line.
    const truncated = DUMP.slice(0, DUMP.indexOf('</page>') + '</page>'.length);
    expect(await refused('truncated.xml', truncated)).toMatch(
      `truncated.xml: MediaWiki XML is malformed at line ${truncated.split('\n').length}, column`,
    );
    expect(await refused('plain.xml.gz', DUMP)).toBe(
      `${join(dir, 'plain.xml.gz')}: not a valid gzip file (incorrect header check)`,
    );
    expect(await refused('cut.xml.gz', gzipSync(DUMP).subarray(0, 600))).toMatch(
      /cut\.xml\.gz: not a valid gzip file \(unexpected end of file\)/,
    );
  });

  it('says that a dump cut inside a page is cut short, naming the page it stops in', async () => {
    // A download killed mid-page: the file stops inside London's text.
    const killed = DUMP.slice(0, DUMP.indexOf('is a city in'));
    const message = await refused('killed.xml', killed);
    expect(message).toMatch(/killed\.xml: MediaWiki XML is malformed at line \d+, column \d+: /);
    expect(message).toMatch(
      /the file ends inside the <page> of "London" \(page 2\) before its XML does: is it cut short/,
    );
  });

  const hasBzip2 = spawnSync('bzip2', ['--help'], { stdio: 'ignore' }).status === 0;
  (hasBzip2 ? it : it.skip)('says a cut .bz2 is cut or damaged in one line, with either decoder', async () => {
    const whole = execFileSync('bzip2', ['-c'], { input: DUMP });
    const cut = whole.subarray(0, whole.length >> 1);
    writeFileSync(join(dir, 'cut.xml.bz2'), cut);
    const js = await convertMediaWikiFile(join(dir, 'cut.xml.bz2'), good, { bzip2: 'js' }).catch(
      (error: Error) => error,
    );
    // unbzip2-stream failed inside itself: "Cannot read properties of undefined (reading '0')".
    expect((js as Error).message).toBe(
      `${join(dir, 'cut.xml.bz2')}: not a valid bzip2 file (the compressed data ends early or is damaged)`,
    );
    const process = await convertMediaWikiFile(join(dir, 'cut.xml.bz2'), good, { bzip2: 'process' }).catch(
      (error: Error) => error,
    );
    // bzip2's advice on bzip2recover and ioctls is not what a user needs to read.
    expect((process as Error).message).toBe(
      `${join(dir, 'cut.xml.bz2')}: not a valid bzip2 file (bzip2: Compressed file ends unexpectedly)`,
    );
  });

  it('refuses to write the corpus over the dump, and names a JSONL corpus given as a dump', async () => {
    writeFileSync(join(dir, 'self.xml'), DUMP);
    await expect(convertMediaWikiFile(join(dir, 'self.xml'), join(dir, 'self.xml'))).rejects.toThrow(
      `${join(dir, 'self.xml')}: the corpus would be written over the dump it is converted from`,
    );
    expect(readFileSync(join(dir, 'self.xml'), 'utf8')).toBe(DUMP);
    // `turngym-wiki-convert corpus.jsonl store.sqlite` (meant: --store): its text holds a tag, `<b>`.
    const jsonl = '{"title": "C++", "lead": "A language & more <b>."}\n';
    expect(await refused('corpus.jsonl', jsonl)).toBe(
      `${join(dir, 'corpus.jsonl')}: a JSONL corpus, not a MediaWiki XML export: build a store from it with turngym-wiki-convert --store <corpus.jsonl> <store.sqlite>`,
    );
    writeFileSync(join(dir, 'store.sqlite.jsonl'), jsonl);
    await expect(
      convertMediaWikiFile(join(dir, 'store.sqlite.jsonl'), join(dir, 'store.sqlite.jsonl')),
    ).rejects.toThrow('store.sqlite.jsonl: a JSONL corpus, not a MediaWiki XML export');
    expect(readFileSync(join(dir, 'store.sqlite.jsonl'), 'utf8')).toBe(jsonl);
  });
});

describe('links as the wiki shows them', () => {
  it('the pipe trick ([[Paris, Texas|]]) shows the target without its prefix, final parenthesis or comma part', () => {
    const article = wikitextToArticle(
      'Towns',
      'See [[Paris, Texas|]], [[Pipe (computing)|]], [[Wikipedia:Manual of Style (headings)|]], [[Talk:Lyon|]] and [[北京市 (中国)|]].',
    );
    expect(article.lead).toBe(
      'See [[Paris, Texas|Paris]], [[Pipe (computing)|Pipe]], Manual of Style, [[Talk:Lyon|Lyon]] and [[北京市 (中国)|北京市]].',
    );
  });
});
