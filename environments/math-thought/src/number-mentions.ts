/**
 * The exact values a piece of text mentions, as reduced-fraction keys (`24`, `-3/4`, `43/5` for 8.6), so
 * the env can tell which intermediate quantities a solution has established. Plain float arithmetic on
 * small integers: this runs on every step and must stay cheap (values beyond 2^53 are skipped).
 */
const NUMBER_TOKEN = /(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?(?:[ \t]*\/[ \t]*(\d+)(?![.\d]))?/g;

function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}

function key(numerator: number, denominator: number): string | undefined {
  if (!Number.isSafeInteger(numerator) || !Number.isSafeInteger(denominator) || denominator === 0) return undefined;
  const divisor = gcd(Math.abs(numerator), denominator);
  const n = numerator / divisor;
  const d = denominator / divisor;
  return d === 1 ? String(n) : `${n}/${d}`;
}

/** A minus directly before a number (not after a digit, letter or `)`) makes it negative: `= -22`, `(-3)`. */
function isNegated(text: string, start: number): boolean {
  if (start === 0 || text.charCodeAt(start - 1) !== 45 /* - */) return false;
  const before = start >= 2 ? text[start - 2] : undefined;
  return before === undefined || !/[\w).]/.test(before);
}

export function mentionedValues(text: string, into: Set<string> = new Set()): Set<string> {
  const source = text.includes('\u2212') ? text.replace(/\u2212/g, '-') : text;
  NUMBER_TOKEN.lastIndex = 0;
  for (let match = NUMBER_TOKEN.exec(source); match !== null; match = NUMBER_TOKEN.exec(source)) {
    const integer = (match[1] as string).replace(/,/g, '');
    const decimals = match[2] ?? '';
    let numerator = Number(integer + decimals);
    let denominator = 10 ** decimals.length;
    if (match[3] !== undefined && decimals === '') denominator *= Number(match[3]);
    if (isNegated(source, match.index)) numerator = -numerator;
    const value = key(numerator, denominator);
    if (value !== undefined) into.add(value);
    // "48/2" is also two numbers, 48 and 2: keep them too.
    if (match[3] !== undefined) {
      const whole = key(numerator, 10 ** decimals.length);
      if (whole !== undefined) into.add(whole);
      into.add(String(Number(match[3])));
    }
  }
  return into;
}
