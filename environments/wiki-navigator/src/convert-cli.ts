#!/usr/bin/env node
/**
 * `turngym-wiki-convert <dump.xml[.gz]> <corpus.jsonl> [--max-articles N] [--namespaces 0,14]`:
 * a MediaWiki XML export to the JSONL corpus format that `corpus: "<path>"` reads.
 */
import { convertMediaWikiFile } from './corpus/mediawiki-converter';

async function main(argv: readonly string[]): Promise<number> {
  const positional: string[] = [];
  let maxArticles: number | undefined;
  let namespaces: number[] | undefined;
  for (let i = 0; i < argv.length; i++) {
    const argument = argv[i] as string;
    if (argument === '--max-articles') maxArticles = Number(argv[++i]);
    else if (argument === '--namespaces') namespaces = String(argv[++i]).split(',').map(Number);
    else if (argument === '--help' || argument === '-h') positional.length = 99;
    else positional.push(argument);
  }
  if (
    positional.length !== 2 ||
    (maxArticles !== undefined && !(maxArticles > 0)) ||
    namespaces?.some((ns) => !Number.isInteger(ns))
  ) {
    process.stderr.write(
      'usage: turngym-wiki-convert <dump.xml[.gz]> <corpus.jsonl> [--max-articles N] [--namespaces 0,14]\n',
    );
    return 2;
  }
  const [input, output] = positional as [string, string];
  const stats = await convertMediaWikiFile(input, output, {
    ...(maxArticles ? { maxArticles } : {}),
    ...(namespaces ? { namespaces } : {}),
  });
  process.stdout.write(
    `${output}: ${stats.articles} articles, ${stats.redirects} redirects (${stats.skipped} pages skipped)\n`,
  );
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`turngym-wiki-convert: ${(error as Error).message}\n`);
    process.exit(1);
  },
);
