import type { Options } from 'ajv';

type RegExpEngine = NonNullable<NonNullable<Options['code']>['regExp']>;
type RegExpLike = ReturnType<RegExpEngine>;

/**
 * The regular-expression engine ajv uses for JSON Schema `pattern` and `patternProperties`.
 *
 * Tool arguments come from an agent (untrusted model output) and a tool's schema may come from an env or an MCP
 * server; JavaScript's backtracking engine takes exponential time on some pairs: `^(a+)+$` against `"aaaa…!"` took
 * 2.9 s at 28 characters and hours at 40, with the event loop frozen. No linear-time engine ships with Node (V8's
 * needs a start-up flag), so a pattern is run only when it cannot backtrack exponentially: no repeated group
 * that holds a variable-length part or an alternation, unless each repetition starts with a character that nothing
 * else in the group matches (`(/[a-z]+)*` splits a string one way only; likewise one that ends so), and no back-reference. Any other pattern
 * is not checked here (its match always passes) and a warning names it once: the env or server behind the tool
 * must check it. Polynomial backtracking (`a*a*$`) is not caught; it needs long inputs to hurt.
 */
export const safePatternEngine: RegExpEngine = Object.assign(
  (pattern: string, flags: string): RegExpLike => {
    const native = new RegExp(pattern, flags); // throws on a malformed pattern, as ajv's default engine does
    if (isSafePattern(pattern, flags)) return native;
    warnOnce(pattern);
    // ajv keys compiled patterns by `toString()`: each skipped pattern keeps its own key.
    const skipped = { test: (): boolean => true, toString: () => `/${pattern}/${flags} (not checked)` };
    return skipped;
  },
  { code: 'new RegExp' },
);

const warned = new Set<string>();

function warnOnce(pattern: string): void {
  if (warned.has(pattern)) return;
  warned.add(pattern);
  process.emitWarning(
    `JSON Schema pattern ${JSON.stringify(pattern)} can take exponential time on some inputs (a repeated group ` +
      'that holds a quantifier or an alternation); TurnGym does not check it, the tool or option owner must.',
    { code: 'TURNGYM_UNSAFE_PATTERN' },
  );
}

/** One matcher of a single character (a literal, an escape, a class or `.`), a group, or an assertion. */
type Node =
  | { kind: 'char'; source: string; literal?: string; max: number; min: number }
  | { kind: 'group'; alternatives: Node[][]; max: number; min: number }
  | { kind: 'assert'; max: number; min: number }
  | { kind: 'backref'; max: number; min: number };

class Unsupported extends Error {}

/** Whether `pattern` is free of the shapes that backtrack exponentially (see `safePatternEngine`). */
export function isSafePattern(pattern: string, flags = 'u'): boolean {
  let nodes: Node[][];
  try {
    nodes = new PatternReader(pattern).alternatives(false);
  } catch (error) {
    if (error instanceof Unsupported) return false;
    throw error;
  }
  return nodes.every((sequence) => sequence.every((node) => nodeIsSafe(node, flags)));
}

function nodeIsSafe(node: Node, flags: string): boolean {
  if (node.kind === 'backref') return false;
  if (node.kind !== 'group') return true;
  if (!node.alternatives.every((sequence) => sequence.every((inner) => nodeIsSafe(inner, flags)))) return false;
  if (node.max <= 1 || !isAmbiguous(node)) return true;
  return isGuarded(node, flags);
}

/**
 * A group with more than one alternative, or with a part of variable length inside (`a+`, and `a?` too: `(a?){30}`
 * splits 30 a's 2^30 ways), can split a string several ways.
 */
function isAmbiguous(group: Extract<Node, { kind: 'group' }>): boolean {
  if (group.alternatives.length > 1) return true;
  return group.alternatives.some((sequence) =>
    sequence.some((node) => node.min !== node.max || (node.kind === 'group' && isAmbiguous(node))),
  );
}

/**
 * One alternative that starts or ends with a plain literal character nothing else in the group can match: each
 * repetition is then cut at that character, one way only (`(/[a-z]+)*`, `([^/]+/)*`).
 */
function isGuarded(group: Extract<Node, { kind: 'group' }>, flags: string): boolean {
  if (group.alternatives.length !== 1) return false;
  const sequence = group.alternatives[0] as Node[];
  const guardsAt = (position: number): boolean => {
    const guard = sequence[position];
    if (!guard || guard.kind !== 'char' || guard.literal === undefined || guard.min !== 1 || guard.max !== 1) {
      return false;
    }
    const separator = guard.literal;
    const matchesSeparator = (node: Node): boolean => {
      if (node.kind === 'char') return new RegExp(`^(?:${node.source})$`, flags.replace(/[gy]/g, '')).test(separator);
      if (node.kind === 'group') return node.alternatives.some((each) => each.some(matchesSeparator));
      return false;
    };
    return !sequence.some((node, index) => index !== position && matchesSeparator(node));
  };
  return guardsAt(0) || guardsAt(sequence.length - 1);
}

/** Reads a pattern into nodes; anything it does not know is `Unsupported` (and so treated as unsafe). */
class PatternReader {
  private index = 0;

  constructor(private readonly pattern: string) {}

  alternatives(inGroup: boolean): Node[][] {
    const result: Node[][] = [[]];
    while (this.index < this.pattern.length) {
      const char = this.pattern[this.index] as string;
      if (char === ')') {
        if (!inGroup) throw new Unsupported();
        return result;
      }
      if (char === '|') {
        this.index += 1;
        result.push([]);
        continue;
      }
      const node = this.atom();
      this.quantifier(node);
      (result[result.length - 1] as Node[]).push(node);
    }
    if (inGroup) throw new Unsupported();
    return result;
  }

  private atom(): Node {
    const pattern = this.pattern;
    const char = pattern[this.index] as string;
    if (char === '(') {
      this.index += 1;
      if (pattern.startsWith('?:', this.index) || pattern.startsWith('?=', this.index)) this.index += 2;
      else if (pattern.startsWith('?!', this.index)) this.index += 2;
      else if (pattern.startsWith('?<=', this.index) || pattern.startsWith('?<!', this.index)) this.index += 3;
      else if (pattern.startsWith('?<', this.index)) {
        const end = pattern.indexOf('>', this.index);
        if (end < 0) throw new Unsupported();
        this.index = end + 1;
      } else if (pattern[this.index] === '?') throw new Unsupported();
      const alternatives = this.alternatives(true);
      this.index += 1; // ')'
      return { kind: 'group', alternatives, min: 1, max: 1 };
    }
    if (char === '[') {
      const start = this.index;
      this.index += 1;
      if (pattern[this.index] === '^') this.index += 1;
      if (pattern[this.index] === ']') this.index += 1;
      while (this.index < pattern.length && pattern[this.index] !== ']') {
        this.index += pattern[this.index] === '\\' ? 2 : 1;
      }
      if (this.index >= pattern.length) throw new Unsupported();
      this.index += 1;
      return { kind: 'char', source: pattern.slice(start, this.index), min: 1, max: 1 };
    }
    if (char === '\\') {
      const next = pattern[this.index + 1];
      if (next === undefined) throw new Unsupported();
      if (/[1-9]/.test(next) || next === 'k') throw new Unsupported(); // back-references
      if (next === 'b' || next === 'B') {
        this.index += 2;
        return { kind: 'assert', min: 1, max: 1 };
      }
      // \u{…}, \uXXXX, \xXX, \p{…}, \cX: read whole so the next character is not taken for a literal.
      const escape = /^\\(?:u\{[0-9A-Fa-f]+\}|u[0-9A-Fa-f]{4}|x[0-9A-Fa-f]{2}|[pP]\{[^}]*\}|c[A-Za-z]|[\s\S])/.exec(
        pattern.slice(this.index),
      )?.[0] as string;
      this.index += escape.length;
      const literal = /^\\[^\w\s]$/.test(escape) ? escape.slice(1) : undefined;
      return { kind: 'char', source: escape, literal, min: 1, max: 1 };
    }
    if (char === '^' || char === '$') {
      this.index += 1;
      return { kind: 'assert', min: 1, max: 1 };
    }
    if ('*+?{'.includes(char) && !(char === '{' && !/^\{\d+(,\d*)?\}/.test(pattern.slice(this.index)))) {
      throw new Unsupported(); // a quantifier with nothing to repeat
    }
    // One code point, so a surrogate pair stays one character.
    const codePoint = String.fromCodePoint(pattern.codePointAt(this.index) as number);
    this.index += codePoint.length;
    const literal = codePoint === '.' ? undefined : codePoint;
    return { kind: 'char', source: codePoint === '.' ? '.' : escapeLiteral(codePoint), literal, min: 1, max: 1 };
  }

  private quantifier(node: Node): void {
    const rest = this.pattern.slice(this.index);
    const match = /^(?:([*+?])|\{(\d+)(?:(,)(\d*))?\})\??/.exec(rest);
    if (!match) return;
    this.index += match[0].length;
    if (match[1] === '*') [node.min, node.max] = [0, Infinity];
    else if (match[1] === '+') [node.min, node.max] = [1, Infinity];
    else if (match[1] === '?') [node.min, node.max] = [0, 1];
    else {
      const min = Number(match[2]);
      const max = match[3] === undefined ? min : match[4] === '' ? Infinity : Number(match[4]);
      [node.min, node.max] = [min, max];
    }
    if (/^[*+?{]/.test(this.pattern.slice(this.index))) throw new Unsupported(); // `a**` is not a pattern
  }
}

function escapeLiteral(char: string): string {
  // `-` stays bare: `\-` is a syntax error outside a class under the `u` flag.
  return /[\\^$.*+?()[\]{}|/]/.test(char) ? `\\${char}` : char;
}
