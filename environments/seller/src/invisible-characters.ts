/**
 * Invisible format characters: zero-width spaces and joiners, bidi controls, soft hyphens, the BOM. They are no
 * words: an utterance of "\u200b" alone was not silence, so it dodged the format penalty; a meta-action "\u200b3"
 * was refused as an unknown "3"; and an LLM buyer's was an empty line in the dialogue.
 */
const INVISIBLE = /[\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;

/** The text without invisible format characters. */
export function removeInvisible(text: string): string {
  return text.replace(INVISIBLE, '');
}
