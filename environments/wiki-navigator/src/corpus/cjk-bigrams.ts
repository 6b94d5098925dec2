/**
 * Chinese, Japanese and Korean text for a word index. These scripts write no space between words, so a
 * tokenizer that splits at spaces and punctuation (minisearch's, FTS5's `unicode61`) made a whole clause one
 * "word": `東京は日本の首都である` was one term, and a search for `首都` (capital) found nothing. Each run of these
 * scripts is indexed as its overlapping character pairs (`首都で` → `首都 都で`), as Lucene's CJK analyzer and
 * Elasticsearch's `cjk_bigram` do, and a query is split the same way, so any word of two or more characters
 * matches where it occurs; a run of one character stays as it is. Text with none of these scripts is unchanged.
 */
const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u3005\u30fc]+/gu;
const HAS_CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

/** The text with each run of CJK characters written as its character pairs, separated by spaces. */
export function withCjkBigrams(text: string): string {
  if (!HAS_CJK.test(text)) return text;
  return text.replace(CJK_RUN, (run) => {
    const characters = [...run];
    if (characters.length < 2) return ` ${run} `;
    const pairs: string[] = [];
    for (let i = 0; i + 1 < characters.length; i++) pairs.push(`${characters[i]}${characters[i + 1]}`);
    return ` ${pairs.join(' ')} `;
  });
}
