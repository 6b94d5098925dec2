/**
 * SQuAD's answer normalisation and metrics (the official evaluate-v1.1 script): lower-case, drop
 * punctuation, drop the articles a/an/the, collapse whitespace; EM and token-F1 take the best gold alias.
 * One step first that the script leaves out: Unicode NFC, so that an answer whose accents are combining marks
 * (`Cafe\u0301`, as some tokenizers decode it) matches the precomposed gold `Café` it reads as.
 */
export function normalizeAnswer(text: string): string {
  const lower = text.normalize('NFC').toLowerCase();
  const noPunctuation = lower.replace(/[\p{P}\p{S}]/gu, '');
  const noArticles = noPunctuation.replace(/\b(a|an|the)\b/g, ' ');
  return noArticles.split(/\s+/).filter(Boolean).join(' ');
}

export function exactMatch(prediction: string, golds: readonly string[]): number {
  const normalized = normalizeAnswer(prediction);
  return golds.some((gold) => normalizeAnswer(gold) === normalized) ? 1 : 0;
}

/**
 * F1's tokens: words, and each Chinese, Japanese or Korean character on its own, as MLQA's and CMRC's evaluation
 * scripts count Chinese (`mixed_segmentation`). These scripts put no space between words, so `北京市` against the
 * gold `北京` was one token against another: F1 0, where it shares two characters of three (0.8).
 */
function answerTokens(normalized: string): string[] {
  return normalized
    .split(' ')
    .filter(Boolean)
    .flatMap(
      (word) =>
        word.match(
          /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]|[^\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+/gu,
        ) ?? [],
    );
}

function f1Against(prediction: string, gold: string): number {
  const predicted = answerTokens(normalizeAnswer(prediction));
  const truth = answerTokens(normalizeAnswer(gold));
  if (predicted.length === 0 || truth.length === 0) return predicted.length === truth.length ? 1 : 0;
  const counts = new Map<string, number>();
  for (const token of truth) counts.set(token, (counts.get(token) ?? 0) + 1);
  let common = 0;
  for (const token of predicted) {
    const left = counts.get(token) ?? 0;
    if (left > 0) {
      common += 1;
      counts.set(token, left - 1);
    }
  }
  if (common === 0) return 0;
  const precision = common / predicted.length;
  const recall = common / truth.length;
  return (2 * precision * recall) / (precision + recall);
}

export function tokenF1(prediction: string, golds: readonly string[]): number {
  return golds.reduce((best, gold) => Math.max(best, f1Against(prediction, gold)), 0);
}
