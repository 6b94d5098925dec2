/**
 * Where @huggingface/tokenizers runs a tokenizer.json setting differently from HF's `tokenizers` and the difference
 * can be made up here, it is: the JSON given to the library is rewritten (pre-tokenizers), or a component it built
 * gets HF's method (decoders). Settings that cannot be made up are refused in hf-tokenizer.ts instead.
 */

type Json = Record<string, unknown>;

/**
 * HF's ByteFallback decoder turns a run of `<0xXX>` tokens into text with Rust's `String::from_utf8`: valid bytes as
 * they are (a leading U+FEFF kept), otherwise one U+FFFD per byte token. The library's default TextDecoder gives one
 * U+FFFD per broken sequence and drops a leading byte-order mark, so a reply cut inside a character, or one that
 * writes U+FEFF, decoded to other text than transformers gives.
 */
const rustUtf8 = {
  strict: new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }),
  decode(bytes: Uint8Array): string {
    try {
      return this.strict.decode(bytes);
    } catch {
      return '\uFFFD'.repeat(bytes.length);
    }
  },
};

interface ByteLevelDecoder {
  byte_decoder: Record<string, number>;
  text_decoder: { decode(bytes: Uint8Array): string };
  convert_tokens_to_string(tokens: string[]): string;
}

/**
 * HF's ByteLevel decoder maps a token's characters back to bytes only when all of them are in the byte table, and
 * otherwise takes the token's own UTF-8 bytes. The library mapped each unknown character to byte 0, so a vocabulary
 * token such as "中 文" decoded to NUL bytes.
 */
function rustByteLevel(this: ByteLevelDecoder, tokens: string[]): string {
  const bytes: number[] = [];
  const encoder = new TextEncoder();
  for (const token of tokens) {
    const chars = [...token];
    if (chars.every((char) => Object.hasOwn(this.byte_decoder, char)))
      for (const char of chars) bytes.push(this.byte_decoder[char] as number);
    else bytes.push(...encoder.encode(token));
  }
  return this.text_decoder.decode(Uint8Array.from(bytes));
}

/** Gives the ByteFallback and ByteLevel decoders in `decoder` (or its Sequence members) HF's handling of bytes. */
function useRustByteDecoding(decoder: unknown): void {
  const component = decoder as {
    config?: { type?: unknown };
    text_decoder?: unknown;
    byte_decoder?: unknown;
    convert_tokens_to_string?: unknown;
    decoders?: unknown;
  } | null;
  const type = component?.config?.type;
  if (type === 'ByteFallback' && component?.text_decoder !== undefined) component.text_decoder = rustUtf8;
  if (type === 'ByteLevel' && typeof component?.convert_tokens_to_string === 'function' && component.byte_decoder)
    component.convert_tokens_to_string = rustByteLevel;
  if (Array.isArray(component?.decoders)) component.decoders.forEach(useRustByteDecoding);
}

/**
 * HF's Metaspace decoder turns every replacement character into a space except in the first token, where it drops
 * them, unless the prepend scheme is "never" (then the first token keeps its spaces too). The library dropped only
 * a leading space of the first token, whatever the scheme.
 */
function hfMetaspaceDecode(this: { config: Json }, tokens: string[]): string[] {
  const replacement = typeof this.config.replacement === 'string' ? this.config.replacement : '\u2581';
  const never = prependScheme(this.config) === 'never';
  return tokens.map((token, index) => token.split(replacement).join(index === 0 && !never ? '' : ' '));
}

/** HF's ByteFallback, ByteLevel and Metaspace decoding, given to those decoders in `decoder` (or its Sequence). */
export function useHfDecoding(decoder: unknown): void {
  useRustByteDecoding(decoder);
  const walk = (component: unknown): void => {
    const node = component as { config?: Json; decode_chain?: unknown; decoders?: unknown } | null;
    if (node?.config?.type === 'Metaspace' && typeof node.decode_chain === 'function')
      node.decode_chain = hfMetaspaceDecode;
    if (Array.isArray(node?.decoders)) node.decoders.forEach(walk);
  };
  walk(decoder);
}

/** A Metaspace's prepend scheme as HF reads it: `prepend_scheme`, else the legacy `add_prefix_space` (false: never). */
function prependScheme(config: Json): string {
  if (typeof config.prepend_scheme === 'string') return config.prepend_scheme;
  return config.add_prefix_space === false ? 'never' : 'always';
}

const escapeRegex = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');

/**
 * A Metaspace pre-tokenizer as HF runs it. The library ignores `split` (default true: the text is cut before each
 * replacement character, so BPE merges never cross a word boundary; across one, "Hi  w" gave "▁Hi ▁▁ w" where HF
 * gives "▁Hi ▁ ▁w") and the legacy `add_prefix_space: false`. Rewritten as a Metaspace that does not split, with the
 * prepend scheme spelt out, then an Isolated Split on `▁[^▁]*`, which cuts where HF's MergedWithNext split does.
 */
function hfMetaspace(config: Json): Json {
  const replacement = typeof config.replacement === 'string' ? config.replacement : '\u2581';
  const metaspace = { type: 'Metaspace', replacement, prepend_scheme: prependScheme(config), split: false };
  if (config.split === false) return metaspace;
  const piece = escapeRegex(replacement);
  return {
    type: 'Sequence',
    pretokenizers: [
      metaspace,
      { type: 'Split', pattern: { Regex: `${piece}[^${piece}]*` }, behavior: 'Isolated', invert: false },
    ],
  };
}

function rewritePreTokenizer(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const component = value as Json;
  if (component.type === 'Metaspace') return hfMetaspace(component);
  if (component.type === 'Sequence' && Array.isArray(component.pretokenizers))
    return { ...component, pretokenizers: component.pretokenizers.map(rewritePreTokenizer) };
  return component;
}

/** `tokenizerJson` with its pre-tokenizer rewritten where the library would split text otherwise than HF. */
export function withHfPreTokenizers(tokenizerJson: Json): Json {
  return { ...tokenizerJson, pre_tokenizer: rewritePreTokenizer(tokenizerJson.pre_tokenizer) };
}
