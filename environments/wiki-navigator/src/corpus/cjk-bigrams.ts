/**
 * Chinese, Japanese and Korean text for a word index. These scripts write no space between words, so a
 * tokenizer that splits at spaces and punctuation (minisearch's, FTS5's `unicode61`) made a whole clause one
 * "word": `東京は日本の首都である` was one term, and a search for `首都` (capital) found nothing. Each run of these
 * scripts is indexed as its overlapping character pairs (`首都で` → `首都 都で`), as Lucene's CJK analyzer and
 * Elasticsearch's `cjk_bigram` do, and a query is split the same way, so any word of two or more characters
 * matches where it occurs. The index also holds each run's last character alone (`首都で` → `首都 都で で`), so
 * every character starts some term: a one-character query (`京`, `山`) is searched as a prefix (`京*` matches
 * `京市` and the `京` that ends `北京`), as users search single characters. Text with none of these scripts is
 * unchanged.
 */
const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u3005\u30fc]+/gu;
const HAS_CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
const ONE_CJK_CHARACTER = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u3005\u30fc]$/u;

/** How an index holds runs of CJK characters (a store's meta `search-terms` says which it was built with). */
export type CjkTerms =
  /** As the tokenizer splits them: a whole run is one word (stores built before character pairs). */
  | 'runs'
  /** As character pairs; a run of one character as itself. */
  | 'pairs'
  /** As character pairs and each run's last character: a one-character query is searched as a prefix. */
  | 'pairs-and-last';

function rewriteRuns(text: string, last: boolean): string {
  if (!HAS_CJK.test(text)) return text;
  return text.replace(CJK_RUN, (run) => {
    const characters = [...run];
    if (characters.length < 2) return ` ${run} `;
    const terms: string[] = [];
    for (let i = 0; i + 1 < characters.length; i++) terms.push(`${characters[i]}${characters[i + 1]}`);
    if (last) terms.push(characters.at(-1) as string);
    return ` ${terms.join(' ')} `;
  });
}

/** The text with each run of CJK characters written as its character pairs, separated by spaces (a query). */
export function withCjkBigrams(text: string): string {
  return rewriteRuns(text, false);
}

/** The text as an index of `terms` holds it: pairs and each run's last character for `pairs-and-last`. */
export function withCjkIndexTerms(text: string, terms: CjkTerms): string {
  return terms === 'runs' ? text : rewriteRuns(text, terms === 'pairs-and-last');
}

/** Whether a query word is one CJK character, which an index of `pairs-and-last` is searched by as a prefix. */
export function isOneCjkCharacter(word: string): boolean {
  return ONE_CJK_CHARACTER.test(word);
}
