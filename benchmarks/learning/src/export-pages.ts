#!/usr/bin/env node
/**
 * Writes the pages of a synthetic encyclopedia as `turngym/wiki-qa-compact-v1` shows them (`# Title`, then
 * one `Field: value` line per infobox row, links as `[label]`), one JSON object `{ title, text }` per line:
 * the page half of the copy pretraining corpus (pretrain/README.md). Use another world than the tasks' own
 * (`--corpus-seed 2`; the tasks use 1), so pretraining never sees a page a test question is about.
 *
 *   node benchmarks/learning/dist/export-pages.js --out pages.jsonl [--articles 20000] [--corpus-seed 2]
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { parseArgs } from 'node:util';
import { generateSyntheticArticles, splitLinks, type Article } from '@turngym/env-wiki-navigator';

/** Links as the compact observation writes them: `[label]`. */
function compactValue(value: string): string {
  return splitLinks(value)
    .map((part) => (typeof part === 'string' ? part : `[${part.label}]`))
    .join('');
}

export function compactPage(article: Article): string {
  return [`# ${article.title}`, ...article.infobox.map((row) => `${row.field}: ${compactValue(row.value)}`)].join('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      out: { type: 'string' },
      articles: { type: 'string', default: '20000' },
      'corpus-seed': { type: 'string', default: '2' },
    },
  });
  if (!values.out) throw new Error('export-pages: --out <file.jsonl> is required');
  const articles = Number(values.articles);
  const seed = Number(values['corpus-seed']);
  if (!Number.isInteger(articles) || articles < 50)
    throw new Error(`export-pages: --articles must be an integer ≥ 50, got ${values.articles}`);
  if (!Number.isInteger(seed))
    throw new Error(`export-pages: --corpus-seed must be an integer, got ${values['corpus-seed']}`);
  const out = createWriteStream(values.out);
  let count = 0;
  for (const article of generateSyntheticArticles({ articles, seed })) {
    if (!out.write(`${JSON.stringify({ title: article.title, text: compactPage(article) })}\n`))
      await once(out, 'drain');
    count++;
  }
  out.end();
  await once(out, 'finish');
  console.log(`export-pages: ${count} pages (corpus seed ${seed}) → ${values.out}`);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
