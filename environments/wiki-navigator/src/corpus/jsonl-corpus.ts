import { closeSync, openSync, readFileSync, readSync, statSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ajv, describeErrors, InvalidOptionsError } from '@turngym/core';
import type { Article, InfoboxField, Redirect } from './article';
import { Corpus } from './corpus';

/**
 * The JSONL corpus format: one JSON object per line, either an article
 *   {"title": "Morrow Bay", "type": "place", "infobox": [{"field": "Country", "value": "[[Veldoria]]"}],
 *    "lead": "Morrow Bay is a city in [[Veldoria]].", "sections": [{"title": "History", "text": "…"}]}
 * or a redirect
 *   {"title": "Morrow", "redirect": "Morrow Bay"}.
 * Only `title` is required. `infobox` may also be an object (`{"Country": "[[Veldoria]]"}`); `type` defaults to
 * `article`. Text uses `[[Target]]` / `[[Target|label]]` links, blank lines between paragraphs, `* ` list items;
 * `&#91;` is a `[` that starts no link (`escapeText`).
 * Blank lines and lines starting with `//` are skipped.
 */
const lineSchema = {
  type: 'object',
  required: ['title'],
  additionalProperties: false,
  properties: {
    title: { type: 'string', minLength: 1 },
    redirect: { type: 'string', minLength: 1 },
    type: { type: 'string', minLength: 1 },
    lead: { type: 'string' },
    infobox: {
      anyOf: [
        {
          type: 'array',
          items: {
            type: 'object',
            required: ['field', 'value'],
            additionalProperties: false,
            properties: { field: { type: 'string', minLength: 1 }, value: { type: 'string' } },
          },
        },
        { type: 'object', additionalProperties: { type: 'string' } },
      ],
    },
    sections: {
      type: 'array',
      items: {
        type: 'object',
        required: ['title', 'text'],
        additionalProperties: false,
        properties: { title: { type: 'string' }, text: { type: 'string' } },
      },
    },
  },
};

const validateLine = ajv.compile(lineSchema);

interface CorpusLine {
  title: string;
  redirect?: string;
  type?: string;
  lead?: string;
  infobox?: InfoboxField[] | Record<string, string>;
  sections?: { title: string; text: string }[];
}

/**
 * One line of a JSONL corpus: an article, a redirect, or undefined for a blank or `//` line; a bad line adds
 * its problems (named `where`, e.g. `corpus.jsonl:12`) to `problems`.
 */
export function parseJsonlEntry(raw: string, where: string, problems: string[]): Article | Redirect | undefined {
  const line = raw.trim();
  if (!line || line.startsWith('//')) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    problems.push(`${where}: not JSON (${(error as Error).message})`);
    return undefined;
  }
  if (!validateLine(value)) {
    problems.push(...describeErrors(validateLine.errors, where));
    return undefined;
  }
  const entry = value as unknown as CorpusLine;
  if (entry.redirect !== undefined) return { title: entry.title, redirect: entry.redirect };
  const infobox = Array.isArray(entry.infobox)
    ? entry.infobox
    : Object.entries(entry.infobox ?? {}).map(([field, fieldValue]) => ({ field, value: fieldValue }));
  return {
    title: entry.title,
    type: entry.type ?? 'article',
    infobox,
    lead: entry.lead ?? '',
    sections: entry.sections ?? [],
  };
}

/** Parses the text of a JSONL corpus; a bad line is an error that names its line number. */
export function parseJsonlCorpus(text: string, source = 'corpus'): { articles: Article[]; redirects: Redirect[] } {
  const articles: Article[] = [];
  const redirects: Redirect[] = [];
  const problems: string[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const entry = parseJsonlEntry(lines[i] as string, `${source}:${i + 1}`, problems);
    if (entry && 'redirect' in entry) redirects.push(entry);
    else if (entry) articles.push(entry);
    if (problems.length > 20) break;
  }
  if (problems.length > 0) throw new InvalidOptionsError(`the JSONL corpus ${source}`, problems.slice(0, 20));
  return { articles, redirects };
}

/** One article or redirect as a JSONL line. */
export function formatJsonlLine(entry: Article | Redirect): string {
  return JSON.stringify(entry);
}

export function writeJsonlCorpus(
  path: string,
  articles: readonly Article[],
  redirects: readonly Redirect[] = [],
): void {
  writeFileSync(path, [...articles, ...redirects].map(formatJsonlLine).join('\n') + '\n');
}

/**
 * What a file is when it is a dump rather than JSONL (its first bytes: XML, bzip2 or gzip), else undefined.
 * `corpus: "simplewiki-latest-pages-articles.xml.bz2"` was read whole into memory (a Wikipedia dump: gigabytes,
 * or Node's 2 GiB limit) only to report twenty lines of "not JSON".
 */
export function dumpKind(path: string): string | undefined {
  // A pipe (`--store <(zcat corpus.jsonl.gz) store.sqlite`) cannot be peeked at: a positioned read failed with
  // "invalid seek", and opening it only to close it again left its writer with no reader. Read as JSONL instead.
  if (!statSync(path).isFile()) return undefined;
  const head = Buffer.alloc(64);
  const fd = openSync(path, 'r');
  let read: number;
  try {
    read = readSync(fd, head, 0, head.length, 0);
  } finally {
    closeSync(fd);
  }
  const start = head.subarray(0, read);
  if (start[0] === 0x1f && start[1] === 0x8b) return 'gzip-compressed (a MediaWiki dump?)';
  if (start.toString('latin1', 0, 3) === 'BZh') return 'bzip2-compressed (a MediaWiki dump?)';
  if (/^\uFEFF?\s*</.test(start.toString('utf8'))) return 'XML (a MediaWiki dump?)';
  return undefined;
}

const cache = new Map<string, Corpus>();

/** Loads a JSONL corpus file, once per (path, size, modification time) per process. */
export function readJsonlCorpus(path: string): Corpus {
  const absolute = resolve(path);
  let stat;
  try {
    stat = statSync(absolute);
  } catch {
    throw new InvalidOptionsError('turngym/wiki-navigator', [
      `options.corpus: no file at ${absolute} (use "synthetic" or a JSONL corpus path)`,
    ]);
  }
  if (!stat.isFile())
    throw new InvalidOptionsError('turngym/wiki-navigator', [
      `options.corpus: ${absolute} is not a file (use "synthetic" or a JSONL corpus path)`,
    ]);
  const key = `${absolute}\u0000${stat.size}\u0000${stat.mtimeMs}`;
  let corpus = cache.get(key);
  if (!corpus) {
    const dump = dumpKind(absolute);
    if (dump)
      throw new InvalidOptionsError('turngym/wiki-navigator', [
        `options.corpus: ${absolute} is ${dump}, not a JSONL corpus; convert it first: turngym-wiki-convert ${path} corpus.sqlite`,
      ]);
    const { articles, redirects } = parseJsonlCorpus(readFileSync(absolute, 'utf8'), absolute);
    corpus = new Corpus(articles, redirects, { name: absolute });
    if (cache.size >= 8) cache.delete(cache.keys().next().value as string);
    cache.set(key, corpus);
  }
  return corpus;
}
