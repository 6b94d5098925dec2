import { removeInvisible } from './invisible-characters';

/**
 * Cyrillic, Greek and Armenian letters that look like Latin ones (Unicode's confusables.txt, the letters a reader
 * cannot tell apart in most fonts), each over the Latin letter it shows; and Latin letters that stand in for others.
 */
const LOOK_ALIKE_PAIRS: readonly (readonly [string, string])[] = [
  ['авеёһіїјкмнорстухѕԁԛԝүӏ', 'abeehiijkmhopctyxsdqwyl'], // Cyrillic, small
  ['АВЕЁНІЇЈКМОРСТУХЅԀԚԜҮӀ', 'ABEEHIIJKMOPCTYXSDQWYI'], // Cyrillic, capital
  ['αβγεικνορτυχϲϳ', 'abyeikvoptuxcj'], // Greek, small
  ['ΑΒΕΖΗΙΚΜΝΟΡΤΥΧϹ', 'ABEZHIKMNOPTYXC'], // Greek, capital
  ['օսհոցզ', 'ouhngq'], // Armenian
  ['ıȷɑɡʏᴅ', 'ijagyd'], // Latin
];

const LOOK_ALIKES: Readonly<Record<string, string>> = Object.fromEntries(
  LOOK_ALIKE_PAIRS.flatMap(([from, to]) => [...from].map((letter, index) => [letter, to[index] as string])),
);

const LOOK_ALIKE = new RegExp(`[${Object.keys(LOOK_ALIKES).join('')}]`, 'gu');

/**
 * The text as a reader sees it, for the keyword readers (the buyer reply reader, the utterance classifier, the
 * judge's verdict): NFKC (full-width `ｄｅａｌ`, mathematical `𝐝𝐞𝐚𝐥`, ligatures), look-alike letters of other
 * scripts made Latin (`DЕAL` with a Cyrillic Е is DEAL), invisible characters removed. Without it a reply whose
 * "not" was spelt with a Cyrillic о slipped past the reader's "I'm not paying" and read as an order, and an
 * order spelt with one was missed. Only what is read changes: the words shown and recorded stay as written.
 */
export function foldLookAlikes(text: string): string {
  return removeInvisible(text.normalize('NFKC')).replace(LOOK_ALIKE, (letter) => LOOK_ALIKES[letter] as string);
}
