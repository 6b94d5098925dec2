/**
 * Agent text is any JavaScript string, and a string may hold a lone surrogate (a function call's argument,
 * or a cut through an emoji): `encodeURIComponent` throws on one, so text is made well-formed
 * (`String.prototype.toWellFormed`) before it is cut, encoded or echoed, and cut by code points, never
 * between the two halves of a pair.
 */

/** The first `max` code points of a well-formed text (an emoji counts once and is never split). */
export function firstCodePoints(text: string, max: number): string {
  if (text.length <= max) return text;
  return Array.from(text).slice(0, max).join('');
}
