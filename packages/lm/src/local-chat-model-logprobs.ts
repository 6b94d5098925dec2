import type { ChatTokenLogprob, ChatTopLogprob } from '@turngym/llm';
import { ByteTokenizer } from './byte-tokenizer';
import { bytesToUnicode } from './internal/bytes-to-unicode';
import type { TokenLogprob } from './top-logprobs';
import type { Tokenizer } from './tokenizer';

/** What a token that ends inside a multi-byte character decodes to on its own. */
const REPLACEMENT = '\uFFFD';

/** A token's text in the vocabulary as `tokenizer.json` writes it, by id: built once per tokenizer, when needed. */
const vocabularies = new WeakMap<Tokenizer, Map<number, string> | null>();

function vocabularyOf(tokenizer: Tokenizer): Map<number, string> | null {
  if (vocabularies.has(tokenizer)) return vocabularies.get(tokenizer)!;
  let vocabulary: Map<number, string> | null = null;
  try {
    const { tokenizerJson } = tokenizer.toHfFiles();
    const vocab = (tokenizerJson.model as { vocab?: unknown } | undefined)?.vocab;
    if (typeof vocab === 'object' && vocab !== null && !Array.isArray(vocab)) {
      vocabulary = new Map();
      for (const [text, id] of Object.entries(vocab as Record<string, unknown>))
        if (typeof id === 'number') vocabulary.set(id, text);
    }
  } catch {
    vocabulary = null;
  }
  vocabularies.set(tokenizer, vocabulary);
  return vocabulary;
}

let unicodeToByte: Map<string, number> | undefined;

/** Whether `decoder` (or a member of its Sequence) is HF's ByteLevel: vocabulary text is then bytes, one per char. */
function isByteLevel(decoder: unknown): boolean {
  const node = decoder as { type?: unknown; decoders?: unknown } | null | undefined;
  if (node?.type === 'ByteLevel') return true;
  return Array.isArray(node?.decoders) && node.decoders.some(isByteLevel);
}

/**
 * A token's own UTF-8 bytes (OpenAI's `bytes`): a token holding part of a character decodes on its own to U+FFFD,
 * whose bytes are not the token's; those come from the vocabulary where it tells them (the byte tokenizer's ids
 * below 256, a byte-level BPE's characters, SentencePiece's `<0xNN>` byte fallbacks), and are null where it does not.
 */
export function tokenBytes(tokenizer: Tokenizer, id: number): number[] | null {
  const text = tokenizer.tokenText(id);
  if (!text.includes(REPLACEMENT)) return [...Buffer.from(text, 'utf8')];
  if (tokenizer instanceof ByteTokenizer) return id < 256 ? [id] : null;
  const piece = vocabularyOf(tokenizer)?.get(id);
  if (piece === undefined) return null;
  const fallback = /^<0x([0-9A-Fa-f]{2})>$/.exec(piece);
  if (fallback) return [Number.parseInt(fallback[1]!, 16)];
  let decoder: unknown;
  try {
    decoder = tokenizer.toHfFiles().tokenizerJson.decoder;
  } catch {
    return null;
  }
  if (!isByteLevel(decoder)) return null;
  unicodeToByte ??= new Map(bytesToUnicode().map((char, byte) => [char, byte]));
  const bytes: number[] = [];
  for (const char of piece) {
    const byte = unicodeToByte.get(char);
    if (byte === undefined) return null;
    bytes.push(byte);
  }
  return bytes;
}

/**
 * How many of a reply's generated `tokens` wrote its `content`: the fewest whose text starts with it. A stop token
 * (its text is not in the content) and the tokens of a stop sequence the content was cut before are left out, so the
 * entries' texts add up to the content. Counted back from the end: only those few tokens are decoded again.
 */
export function contentTokenCount(tokenizer: Tokenizer, tokens: readonly number[], content: string): number {
  let count = tokens.length;
  while (count > 0 && tokenizer.decode(tokens.slice(0, count - 1)).startsWith(content)) count -= 1;
  return count;
}

/**
 * How many of `tokens` (a reply still being decoded) have their text all in `sent`, the content streamed so far:
 * at least `from` (those already accounted for). Tokens whose text was held back (part of a character, what may
 * start a stop sequence) wait for a later delta. At most `maxChecks` decodes: held-back text is a few tokens long,
 * and a decoder whose text is no prefix of its later text leaves the rest to the reply's end.
 */
export function settledTokenCount(
  tokenizer: Tokenizer,
  tokens: readonly number[],
  sent: string,
  from: number,
  maxChecks = 8,
): number {
  for (let count = tokens.length, checks = 0; count > from && checks < maxChecks; count--, checks++) {
    if (sent.startsWith(tokenizer.decode(tokens.slice(0, count)))) return count;
  }
  return from;
}

/**
 * Entries `from` to `to` of a generation's tokens in OpenAI's chat shape: each drawn token's logprob and, with
 * `topLogprobs` asked for, the likeliest tokens at its position (the same distribution, so a drawn token among them
 * has its very logprob there).
 */
export function chatLogprobs(
  tokenizer: Tokenizer,
  generated: {
    readonly tokens: readonly number[];
    readonly logprobs: readonly number[];
    readonly topLogprobs?: readonly (readonly TokenLogprob[])[];
  },
  from: number,
  to: number,
): ChatTokenLogprob[] {
  const entry = ({ token, logprob }: TokenLogprob): ChatTopLogprob => ({
    token: tokenizer.tokenText(token),
    logprob,
    bytes: tokenBytes(tokenizer, token),
  });
  const entries: ChatTokenLogprob[] = [];
  for (let i = from; i < to; i++) {
    entries.push({
      ...entry({ token: generated.tokens[i]!, logprob: generated.logprobs[i]! }),
      topLogprobs: (generated.topLogprobs?.[i] ?? []).map(entry),
    });
  }
  return entries;
}
