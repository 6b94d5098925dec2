import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { PassThrough } from 'node:stream';
import { createGzip } from 'node:zlib';
import { mixSeed, SeededRng } from '@turngym/core';
import { parseLinks, type Article } from './article';
import { generateSyntheticArticles } from './synthetic-encyclopedia';

/**
 * Wikipedia-shaped dumps of the synthetic encyclopedia, for testing and benchmarking the converter and the
 * on-disk store at Wikipedia's sizes without downloading Wikipedia (the real dumps cannot be fetched here).
 *
 * Each article is written as real pages are: `{{Short description}}`, an `{{Infobox …}}` template with
 * snake_case parameters and date/number templates (`{{birth date|1915|3|4}}`, `{{formatnum:…}}`), a bold
 * title, `<ref>{{cite web …}}</ref>` citations, `{{citation needed}}`, References and External links
 * sections, navbox and categories. Around the articles: redirects (`#REDIRECT [[…]]` with `<redirect>`),
 * disambiguation pages (`{{disambiguation}}`), and pages in other namespaces (Talk, File, Template,
 * Category). With `revisions` > 1 every article has that many revisions (a `pages-meta-history` dump), the
 * older ones shorter, with ascending timestamps and ids.
 *
 * Large dumps are made of several synthetic worlds of at most `worldSize` articles (the generator is
 * built for thousands of articles, not hundreds of thousands); world k > 0 suffixes its titles with ` (k)`,
 * as Wikipedia disambiguates titles (`Paris (Texas)`), and its links are piped (`[[Morrow Bay (2)|Morrow
 * Bay]]`), so the link graph stays inside each world.
 */
export interface SyntheticDumpOptions {
  /** Articles in all (redirects, disambiguation and other pages come on top). */
  readonly articles: number;
  readonly seed?: number;
  /** Revisions per article: 1 (`pages-articles`, default) or more (`pages-meta-history`). */
  readonly revisions?: number;
  /** Articles per synthetic world (default 20,000). */
  readonly worldSize?: number;
}

export interface SyntheticDumpStats {
  articles: number;
  redirects: number;
  disambiguation: number;
  /** Pages outside the main namespace (Talk, File, Template, Category). */
  otherNamespaces: number;
  bytes: number;
}

const escapeXml = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Infobox template of a synthetic article (what a real page of that kind uses). */
function templateOf(article: Article): string {
  const kind = article.infobox.find((field) => field.field === 'Type')?.value.toLowerCase();
  if (article.type === 'person') return 'Infobox person';
  if (article.type === 'place') return kind === 'country' ? 'Infobox country' : 'Infobox settlement';
  if (article.type === 'work') {
    return (
      { novel: 'Infobox book', film: 'Infobox film', album: 'Infobox album', painting: 'Infobox artwork' }[
        kind ?? ''
      ] ?? 'Infobox work'
    );
  }
  if (kind === 'company') return 'Infobox company';
  if (kind === 'university') return 'Infobox university';
  return 'Infobox organization';
}

/** Renders synthetic articles of one world as wikitext, real-page style. */
class WikitextWriter {
  private readonly byTitle = new Map<string, Article>();

  constructor(
    articles: readonly Article[],
    private readonly rng: SeededRng,
  ) {
    for (const article of articles) this.byTitle.set(article.title, article);
  }

  private date(year: string): string {
    return `${year}|${this.rng.int(1, 12)}|${this.rng.int(1, 28)}`;
  }

  private cite(title: string): string {
    const year = this.rng.int(1990, 2023);
    return this.rng.bool(0.5)
      ? `<ref>{{cite web |title=${title} |url=https://example.org/${encodeURIComponent(title)} |access-date=${year}-0${this.rng.int(1, 9)}-1${this.rng.int(0, 9)} |publisher=The Gazette}}</ref>`
      : `<ref name="r${this.rng.int(1, 99)}">{{cite book |last=Almanac |title=${title} |year=${year} |page=${this.rng.int(1, 900)}}}</ref>`;
  }

  private param(article: Article, field: string, value: string): [string, string] | undefined {
    const number = value.replace(/[, ]|m$/g, '');
    switch (field) {
      case 'Type':
        return undefined; // the template name says it
      case 'Born':
        return ['birth_date', `{{birth date|${this.date(value)}}}`];
      case 'Died':
        return ['death_date', `{{death date|${this.date(value)}}}`];
      case 'Population':
        return [article.type === 'place' ? 'population_total' : 'population', `{{formatnum:${number}}}`];
      case 'Elevation':
        return ['elevation_m', number];
      case 'Employees':
        return ['num_employees', `{{formatnum:${number}}}`];
      case 'Founded':
        return [article.type === 'place' ? 'established_date' : 'founded', `{{start date|${value}}}`];
      case 'Birthplace': {
        // As real infoboxes write it: the city, then its country.
        const city = parseLinks(value)[0];
        const country = city && this.byTitle.get(city.target)?.infobox.find((item) => item.field === 'Country');
        return ['birth_place', country ? `${value}, ${country.value}` : value];
      }
      default:
        return [field.toLowerCase().replace(/\s+/g, '_'), value];
    }
  }

  /** The page's wikitext; `share` < 1 writes an older, shorter revision. */
  render(article: Article, share = 1): string {
    const out: string[] = [];
    const kind = article.infobox.find((field) => field.field === 'Type')?.value.toLowerCase() ?? article.type;
    out.push(`{{Short description|${kind.charAt(0).toUpperCase() + kind.slice(1)} in the synthetic world}}`);
    if (this.rng.bool(0.3)) out.push('{{Use dmy dates|date=May 2020}}');
    if (share >= 1 || this.rng.bool(0.5)) {
      out.push(`{{${templateOf(article)}`, `| name = ${article.title}`);
      if (this.rng.bool(0.6)) out.push(`| image = ${article.title.replace(/ /g, '_')}.jpg`, '| caption = A photograph');
      for (const { field, value } of article.infobox) {
        const param = this.param(article, field, value);
        if (param) out.push(`| ${param[0]} = ${param[1]}`);
      }
      if (this.rng.bool(0.3)) out.push(`| website = {{URL|example.org/${encodeURIComponent(article.title)}}}`);
      out.push('}}');
    }
    const lead = article.lead.replace(article.title, `'''${article.title}'''`);
    const firstStop = lead.indexOf('. ');
    out.push(
      firstStop > 0 ? `${lead.slice(0, firstStop + 1)}${this.cite(article.title)}${lead.slice(firstStop + 1)}` : lead,
      '',
    );
    const sections = article.sections.slice(0, Math.max(1, Math.ceil(article.sections.length * share)));
    for (const section of sections) {
      out.push(`== ${section.title} ==`);
      const needed = this.rng.bool(0.2) ? '{{citation needed|date=June 2021}}' : '';
      out.push(section.text.replace(/\.(\n|$)/, `.${needed}$1`), '');
    }
    out.push('== References ==', '{{reflist}}', '');
    if (this.rng.bool(0.5))
      out.push('== External links ==', `* [https://example.org/${article.title.length} Official website]`, '');
    out.push(`{{${templateOf(article).replace('Infobox ', '')} navbox}}`, '{{Authority control}}', '');
    out.push(`[[Category:${kind.charAt(0).toUpperCase() + kind.slice(1)}s]]`);
    if (article.type === 'person') {
      const born = article.infobox.find((field) => field.field === 'Born')?.value;
      if (born) out.push(`[[Category:${born} births]]`);
    }
    return out.join('\n');
  }
}

/** Renames world k's titles `Title (k)` and pipes its links, so worlds never collide. */
function inWorld(articles: readonly Article[], world: number): Article[] {
  if (world === 0) return articles.slice();
  const rename = (title: string): string => `${title} (${world})`;
  const relink = (text: string): string =>
    text.replace(/\[\[([^\]|[]+?)(?:\|([^\][]*?))?\]\]/g, (_, target: string, label: string | undefined) => {
      return `[[${rename(target)}|${label ?? target}]]`;
    });
  return articles.map((article) => ({
    ...article,
    title: rename(article.title),
    lead: relink(article.lead),
    infobox: article.infobox.map((field) => ({ field: field.field, value: relink(field.value) })),
    sections: article.sections.map((section) => ({ title: section.title, text: relink(section.text) })),
  }));
}

/**
 * Writes a synthetic MediaWiki XML dump to `output` (not ended), with backpressure; returns what it wrote.
 */
export async function writeSyntheticDump(output: Writable, options: SyntheticDumpOptions): Promise<SyntheticDumpStats> {
  const seed = options.seed ?? 1;
  const revisions = Math.max(1, options.revisions ?? 1);
  const worldSize = Math.max(50, options.worldSize ?? 20_000);
  const stats: SyntheticDumpStats = { articles: 0, redirects: 0, disambiguation: 0, otherNamespaces: 0, bytes: 0 };
  let pageId = 1;
  let revisionId = 1;
  const write = async (text: string): Promise<void> => {
    stats.bytes += Buffer.byteLength(text);
    if (!output.write(text)) await once(output, 'drain');
  };
  const page = async (title: string, ns: number, texts: readonly string[], redirect?: string): Promise<void> => {
    const id = pageId++;
    const parts = [`  <page>\n    <title>${escapeXml(title)}</title>\n    <ns>${ns}</ns>\n    <id>${id}</id>\n`];
    if (redirect) parts.push(`    <redirect title="${escapeXml(redirect).replace(/"/g, '&quot;')}" />\n`);
    let parent: number | undefined;
    texts.forEach((text, i) => {
      const revision = revisionId++;
      const month = String(1 + ((id + i) % 12)).padStart(2, '0');
      parts.push(
        `    <revision>\n      <id>${revision}</id>\n${parent === undefined ? '' : `      <parentid>${parent}</parentid>\n`}` +
          `      <timestamp>${2004 + i + (revisions > 1 ? 0 : 15)}-${month}-0${1 + (id % 9)}T12:00:00Z</timestamp>\n` +
          `      <contributor>\n        <username>Editor${(id * 7 + i) % 997}</username>\n        <id>${(id * 7 + i) % 997}</id>\n      </contributor>\n` +
          `      <comment>${i === 0 ? 'new page' : 'expanded'}</comment>\n      <model>wikitext</model>\n      <format>text/x-wiki</format>\n` +
          `      <text bytes="${Buffer.byteLength(text)}" xml:space="preserve">${escapeXml(text)}</text>\n` +
          `      <sha1>${(revision * 2654435761).toString(36).padStart(31, '0').slice(-31)}</sha1>\n    </revision>\n`,
      );
      parent = revision;
    });
    parts.push('  </page>\n');
    await write(parts.join(''));
  };

  await write(
    `<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.11/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" version="0.11" xml:lang="en">\n` +
      `  <siteinfo>\n    <sitename>Synthetipedia</sitename>\n    <dbname>synthwiki</dbname>\n    <base>https://synth.example.org/wiki/Main_Page</base>\n    <generator>TurnGym synthetic dump</generator>\n    <case>first-letter</case>\n    <namespaces>\n` +
      [
        [-2, 'Media'],
        [-1, 'Special'],
        [0, ''],
        [1, 'Talk'],
        [6, 'File'],
        [10, 'Template'],
        [14, 'Category'],
      ]
        .map(([key, name]) => `      <namespace key="${key}" case="first-letter">${name}</namespace>\n`)
        .join('') +
      '    </namespaces>\n  </siteinfo>\n',
  );
  const templates = ['person', 'settlement', 'country', 'company', 'university', 'organization', 'book', 'film'];
  for (const template of templates) {
    await page(`Template:Infobox ${template}`, 10, [
      `{{Infobox\n| title = {{{name|}}}\n| label1 = Name | data1 = {{{name|}}}\n}}<noinclude>\n{{Documentation}}\n[[Category:Infobox templates]]\n</noinclude>`,
    ]);
    stats.otherNamespaces += 1;
  }

  for (let world = 0, left = options.articles; left > 0; world++) {
    const size = Math.min(worldSize, left);
    left -= size;
    const rng = new SeededRng(mixSeed('synthetic-dump', seed, world));
    // The generator needs at least 50 articles; a smaller last world is cut after generation.
    const articles = inWorld(
      generateSyntheticArticles({ seed: mixSeed(seed, world), articles: Math.max(50, size) }),
      world,
    ).slice(0, size);
    const writer = new WikitextWriter(articles, rng);
    const byGivenName = new Map<string, string[]>();
    for (const article of articles) {
      const texts: string[] = [];
      for (let i = 1; i <= revisions; i++) texts.push(writer.render(article, i / revisions));
      await page(article.title, 0, texts);
      stats.articles += 1;
      if (article.type === 'person') {
        const given = article.title.split(' ')[0] as string;
        const list = byGivenName.get(given) ?? [];
        if (list.length < 12) list.push(article.title);
        byGivenName.set(given, list);
        if (rng.bool(0.3)) {
          // "Treigryby, Zelda"-style sort-name redirect.
          const [first, ...rest] = article.title.replace(/ \(\d+\)$/, '').split(' ');
          const alias = `${rest.join(' ')}, ${first}${world > 0 ? ` (${world})` : ''}`;
          await page(
            alias,
            0,
            [`#REDIRECT [[${article.title}]]\n\n{{Redirect category shell|{{R from sort name}}}}`],
            article.title,
          );
          stats.redirects += 1;
        }
      } else if (rng.bool(0.15)) {
        await page(
          `${article.title} (${article.type})`,
          0,
          [`#REDIRECT [[${article.title}]] {{R from disambiguation}}`],
          article.title,
        );
        stats.redirects += 1;
      }
      if (rng.bool(0.2)) {
        await page(`Talk:${article.title}`, 1, [
          `{{WikiProject banner shell|class=Start}}\n== Sources ==\nIs the population figure for [[${article.title}]] current? ~~~~`,
        ]);
        stats.otherNamespaces += 1;
      }
      if (rng.bool(0.02)) {
        await page(`File:${article.title.replace(/ /g, '_')}.jpg`, 6, [
          `== Summary ==\nA photograph of [[${article.title}]].\n== Licensing ==\n{{cc-by-sa-4.0}}`,
        ]);
        await page(`Category:${article.type.charAt(0).toUpperCase() + article.type.slice(1)}s`, 14, [
          `{{Category diffuse}}\nArticles about ${article.type}s.`,
        ]);
        stats.otherNamespaces += 2;
      }
    }
    for (const [given, titles] of byGivenName) {
      if (titles.length < 2) continue;
      const items = titles.map((title) => `* [[${title}]]`).join('\n');
      await page(`${given}${world > 0 ? ` (${world})` : ''} (disambiguation)`, 0, [
        `'''${given}''' may refer to:\n\n${items}\n\n==See also==\n* {{lookfrom|${given}}}\n\n{{disambiguation|given name}}`,
      ]);
      stats.disambiguation += 1;
    }
  }
  await write('</mediawiki>\n');
  return stats;
}

/**
 * Writes a synthetic dump to a file: `.gz` through zlib, `.bz2` through the system's `bzip2` (Wikipedia's
 * own format; only the test and benchmark tooling compresses, the converter reads `.bz2` in-process).
 */
export async function writeSyntheticDumpFile(path: string, options: SyntheticDumpOptions): Promise<SyntheticDumpStats> {
  const file = createWriteStream(path);
  const source = new PassThrough({ highWaterMark: 1 << 20 });
  let done: Promise<unknown>;
  if (path.endsWith('.bz2')) {
    const bzip2 = spawn('bzip2', ['-c'], { stdio: ['pipe', 'pipe', 'inherit'] });
    const exited = once(bzip2, 'close');
    done = Promise.all([
      pipeline(source, bzip2.stdin),
      pipeline(bzip2.stdout, file),
      exited.then(([code]) => {
        if (code !== 0) throw new Error(`bzip2 exited with ${String(code)}`);
      }),
    ]);
    bzip2.on('error', (error) => source.destroy(error));
  } else if (path.endsWith('.gz')) {
    done = pipeline(source, createGzip(), file);
  } else {
    done = pipeline(source, file);
  }
  const stats = await writeSyntheticDump(source, options);
  source.end();
  await done;
  return stats;
}
