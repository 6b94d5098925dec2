import { ContextLengthError } from './lm-errors';
import type { Tokenizer } from './tokenizer';

/**
 * A prompt refused from its size alone: it has more bytes than `limit` tokens of this tokenizer can stand for, so
 * it cannot fit whatever it tokenizes to. A ContextLengthError (code CONTEXT_LENGTH_EXCEEDED), whose `length` is a
 * lower bound on the prompt's tokens.
 */
export class PromptTooLongError extends ContextLengthError {
  constructor(
    readonly bytes: number,
    atLeast: number,
    limit: number,
    readonly tokenBytes: number,
    what = 'prompt',
  ) {
    super(atLeast, limit, what);
    this.message =
      `The ${what} has at least ${atLeast} tokens (${bytes} bytes, and no token of this tokenizer stands for more ` +
      `than ${tokenBytes}), more than the model's context limit max_position_embeddings = ${limit}.`;
  }
}

/** What a tokenizer allows us to conclude about a text's token count from its bytes. */
interface SizeBound {
  /** The most input bytes one token stands for. */
  readonly tokenBytes: number;
  /** The Unicode normalization the tokenizer applies before splitting, measured as such (it can shrink a text). */
  readonly unicodeForm: 'NFC' | 'NFD' | 'NFKC' | 'NFKD' | null;
  /** Added tokens that swallow the whitespace beside them (`lstrip` / `rstrip`): any amount of it, in one token. */
  readonly absorbing: readonly string[];
}

const bounds = new WeakMap<Tokenizer, SizeBound | null>();

type Json = Record<string, unknown>;
const asObject = (value: unknown): Json | null =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : null;
const listOf = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

const UNICODE_FORMS = new Set(['NFC', 'NFD', 'NFKC', 'NFKD']);

/**
 * The Unicode form of a normalizer that never drops input otherwise (undefined: one that may — BERT's cleaning,
 * accent stripping, a precompiled SentencePiece map, a replacement by something shorter — or two Unicode forms).
 */
function normalizerForm(normalizer: unknown): SizeBound['unicodeForm'] | undefined {
  const forms: SizeBound['unicodeForm'][] = [];
  const safe = (node: unknown): boolean => {
    if (node === null || node === undefined) return true;
    const object = asObject(node);
    if (!object) return false;
    switch (object.type) {
      case 'Sequence':
        return listOf(object.normalizers).every(safe);
      case 'Prepend':
      case 'Append':
        return true;
      case 'Replace': {
        const pattern = asObject(object.pattern)?.String;
        return (
          typeof pattern === 'string' &&
          typeof object.content === 'string' &&
          Buffer.byteLength(object.content) >= Buffer.byteLength(pattern)
        );
      }
      default:
        if (typeof object.type === 'string' && UNICODE_FORMS.has(object.type)) {
          forms.push(object.type as SizeBound['unicodeForm']);
          return true;
        }
        return false;
    }
  };
  if (!safe(normalizer) || forms.length > 1) return undefined;
  return forms[0] ?? null;
}

/** Pre-tokenizers that only split, map bytes or add a prefix: never remove input (Whitespace, BERT's do). */
function preTokenizerKeepsInput(node: unknown): boolean {
  if (node === null || node === undefined) return true;
  const object = asObject(node);
  if (!object) return false;
  switch (object.type) {
    case 'Sequence':
      return listOf(object.pretokenizers).every(preTokenizerKeepsInput);
    case 'ByteLevel':
    case 'Metaspace':
    case 'Digits':
    case 'UnicodeScripts':
      return true;
    case 'Split':
    case 'Punctuation':
      return object.behavior !== 'Removed';
    default:
      return false;
  }
}

/**
 * How far a text's bytes bound its tokens, or null where they do not: a model other than BPE (WordPiece and
 * WordLevel turn any long word into one unknown token), a BPE that fuses unknown characters into one token, or a
 * normalizer / pre-tokenizer that can drop input. Worked out once per tokenizer from its tokenizer.json.
 */
function sizeBound(tokenizer: Tokenizer): SizeBound | null {
  if (bounds.has(tokenizer)) return bounds.get(tokenizer)!;
  let bound: SizeBound | null = null;
  try {
    const json = tokenizer.toHfFiles().tokenizerJson;
    const model = asObject(json.model);
    const unicodeForm = normalizerForm(json.normalizer);
    const fusesUnknown =
      model?.fuse_unk === true &&
      model.unk_token !== null &&
      model.unk_token !== undefined &&
      model.byte_fallback !== true;
    if (
      model?.type === 'BPE' &&
      !fusesUnknown &&
      unicodeForm !== undefined &&
      preTokenizerKeepsInput(json.pre_tokenizer)
    ) {
      let tokenBytes = 1;
      for (let id = 0; id < tokenizer.vocabSize; id++) {
        tokenBytes = Math.max(tokenBytes, Buffer.byteLength(tokenizer.tokenText(id)));
      }
      const absorbing: string[] = [];
      for (const each of listOf(json.added_tokens)) {
        const token = asObject(each);
        if (token && typeof token.content === 'string' && token.content !== '' && (token.lstrip || token.rstrip))
          absorbing.push(token.content);
      }
      // +1: a decoder that strips the space it added (Metaspace, SentencePiece's Strip) shows one byte less than the
      // token stands for.
      bound = { tokenBytes: tokenBytes + 1, unicodeForm, absorbing };
    }
  } catch {
    // A tokenizer that cannot describe itself gets no early refusal: its prompts are tokenized as before.
    bound = null;
  }
  bounds.set(tokenizer, bound);
  return bound;
}

const isSpace = (char: string): boolean => /\s/u.test(char);

/** The bytes of whitespace beside occurrences of `tokens` in `text`: an `lstrip`/`rstrip` token may swallow them. */
function absorbedBytes(text: string, tokens: readonly string[]): number {
  let total = 0;
  // Whitespace up to here is counted already, so a run between two tokens counts once; each scan is linear.
  let counted = 0;
  for (const token of tokens) {
    for (let at = text.indexOf(token); at >= 0; at = text.indexOf(token, at + token.length)) {
      let start = at;
      while (start > counted && isSpace(text[start - 1]!)) start -= 1;
      total += Buffer.byteLength(text.slice(start, at));
      let end = at + token.length;
      while (end < text.length && isSpace(text[end]!)) end += 1;
      total += Buffer.byteLength(text.slice(at + token.length, end));
      counted = Math.max(counted, end);
    }
    counted = 0;
  }
  return total;
}

/**
 * Refuses a text that cannot fit `limit` tokens, without tokenizing it. Tokenizing costs time in proportion to the
 * text (about 25 µs a byte for a long run one BPE word merges, 1M spaces ~25 s), and it blocks the event loop: a
 * server would stall every client behind one huge prompt before finding that it is too long. Every token stands
 * for at most `tokenBytes` bytes of input, so a text of more than `limit × tokenBytes` bytes (measured after the
 * tokenizer's Unicode normalization, without whitespace an added token could swallow) has more than `limit` tokens.
 * Texts under that bound, and tokenizers whose tokens are not bounded so, are left to the tokenizer.
 */
export function refuseUnfittablePrompt(tokenizer: Tokenizer, text: string, limit: number, what = 'prompt'): void {
  const bound = sizeBound(tokenizer);
  if (!bound) return;
  const most = limit * bound.tokenBytes;
  // The common case costs one byte count: a prompt that may fit is tokenized as before.
  let bytes = Buffer.byteLength(text);
  if (bytes <= most) return;
  if (bound.unicodeForm) bytes = Math.min(bytes, Buffer.byteLength(text.normalize(bound.unicodeForm)));
  if (bound.absorbing.length > 0) bytes -= absorbedBytes(text, bound.absorbing);
  if (bytes <= most) return;
  throw new PromptTooLongError(bytes, Math.ceil(bytes / bound.tokenBytes), limit, bound.tokenBytes, what);
}

/** Works out the bound now (a pass over the vocabulary), so a server's first request does not pay for it. */
export function preparePromptSizeBound(tokenizer: Tokenizer): void {
  sizeBound(tokenizer);
}
