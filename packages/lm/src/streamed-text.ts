/** What a broken UTF-8 sequence decodes to: the tokens so far end inside a character. */
const REPLACEMENT = '\uFFFD';

/**
 * One completion's text as it is streamed: given the text decoded so far, `next` returns the part that is safe to
 * send now, and `finish` the rest once the completion's final text is known. Held back until later tokens settle
 * them: a trailing U+FFFD (the tokens end inside a multi-byte character, which the next token may complete) and the
 * longest suffix that is the start of a stop sequence (the final text is cut before a stop, so text sent could not
 * be taken back). What was sent is therefore always a prefix of the final text, and all of it is sent in the end.
 */
export class StreamedText {
  private sent = '';
  /** KMP's failure table of each stop: for each prefix, the length of its longest proper border. */
  private readonly fallbacks: readonly number[][];

  constructor(private readonly stops: readonly string[] = []) {
    this.fallbacks = stops.map((stop) => {
      const fallback = [0];
      let border = 0;
      for (let i = 1; i < stop.length; i++) {
        while (border > 0 && stop[i] !== stop[border]) border = fallback[border - 1]!;
        if (stop[i] === stop[border]) border += 1;
        fallback.push(border);
      }
      return fallback;
    });
  }

  /** The text sent so far. */
  get text(): string {
    return this.sent;
  }

  /** The part of `decoded` (the unfinished completion's text so far) that can be sent now; '' when none. */
  next(decoded: string): string {
    // A decoder whose text so far is not a prefix of its later text sends nothing more until the end.
    if (!decoded.startsWith(this.sent)) return '';
    let end = decoded.length;
    while (end > this.sent.length && decoded[end - 1] === REPLACEMENT) end -= 1;
    end -= this.stopPrefixLength(decoded.slice(0, end));
    if (end <= this.sent.length) return '';
    const delta = decoded.slice(this.sent.length, end);
    this.sent = decoded.slice(0, end);
    return delta;
  }

  /** The rest of `final` (the completion's text, cut before its stop) not sent yet. */
  finish(final: string): string {
    if (!final.startsWith(this.sent)) return '';
    const delta = final.slice(this.sent.length);
    this.sent = final;
    return delta;
  }

  /**
   * The length of the longest suffix of `text` that a stop sequence starts with (a stop may be completing): each
   * stop's KMP automaton run over the text, linear in both, where comparing every suffix with every prefix would
   * cost a request with a long stop (the body allows megabytes) quadratic time at every pass.
   */
  private stopPrefixLength(text: string): number {
    let longest = 0;
    this.fallbacks.forEach((fallback, index) => {
      const stop = this.stops[index]!;
      let matched = 0;
      for (let i = 0; i < text.length; i++) {
        while (matched > 0 && (matched === stop.length || text[i] !== stop[matched])) matched = fallback[matched - 1]!;
        if (text[i] === stop[matched]) matched += 1;
      }
      longest = Math.max(longest, matched);
    });
    return longest;
  }
}
