import { parseToolCall, type ToolCallParse } from '@turngym/core';
import type { ToolCall } from '@turngym/spec';
import { CODING_TOOLS, PATH_PATTERN } from './coding-tools';

const HEADER_NAME = /^[ \t]*(WRITE_FILE|EDIT_FILE|READ_FILE|RUN)/i;
const TARGET = /^[^\s()]*/;
const FENCE_OPEN = /^[ \t]*(`{3,}|~{3,})[^`]*$/;

/**
 * A block action's header line, `[ \t]*NAME(?:[ \t]+|[ \t]*\()?TARGET\)?[ \t]*` with TARGET `[^\s()]*`
 * (`RUN main.ts`, `READ_FILE(main.ts)`): its name and target, or null. Read step by step rather than by that
 * one regex, whose overlapping runs of blanks backtracked quadratically on a header followed by a long run of
 * them (50,000 blanks took 5 s, blocking the host's event loop).
 */
function parseHeader(line: string): [name: string, target: string] | null {
  const name = HEADER_NAME.exec(line);
  if (!name) return null;
  let at = name[0].length;
  while (line[at] === ' ' || line[at] === '\t') at += 1;
  if (line[at] === '(') at += 1;
  const target = TARGET.exec(line.slice(at))![0];
  at += target.length;
  if (line[at] === ')') at += 1;
  while (line[at] === ' ' || line[at] === '\t') at += 1;
  return at === line.length ? [name[1] as string, target] : null;
}

interface Fenced {
  readonly content: string;
  /** Line index just past the closing fence. */
  readonly end: number;
}

/** The first fenced block starting at or after `from` (CommonMark rules: the closing fence is at least as long). */
function fencedBlock(lines: readonly string[], from: number): Fenced | undefined {
  let start = from;
  while (start < lines.length && (lines[start] as string).trim() === '') start += 1;
  const open = FENCE_OPEN.exec(lines[start] ?? '');
  if (!open) return undefined;
  const marker = open[1] as string;
  for (let i = start + 1; i < lines.length; i++) {
    const line = (lines[i] as string).trim();
    if (line.length >= marker.length && line === (marker[0] as string).repeat(line.length)) {
      return { content: lines.slice(start + 1, i).join('\n'), end: i + 1 };
    }
  }
  return undefined;
}

/** `<<<<<<< SEARCH` / `=======` / `>>>>>>> REPLACE` (aider's format), optionally inside a fence. */
function searchReplace(lines: readonly string[], from: number): { search: string; replace: string } | undefined {
  const body = fencedBlock(lines, from)?.content.split('\n') ?? lines.slice(from);
  const open = body.findIndex((line) => /^<{5,}\s*SEARCH\s*$/.test(line.trim()));
  if (open < 0) return undefined;
  const middle = body.findIndex((line, i) => i > open && /^={5,}\s*$/.test(line.trim()));
  if (middle < 0) return undefined;
  const close = body.findIndex((line, i) => i > middle && /^>{5,}\s*REPLACE\s*$/.test(line.trim()));
  if (close < 0) return undefined;
  return { search: body.slice(open + 1, middle).join('\n'), replace: body.slice(middle + 1, close).join('\n') };
}

type TextCall = { ok: true; call: ToolCall } | { ok: false; feedback: string } | undefined;

/** Reads the block syntax: a header line (`WRITE_FILE path`) followed by a fenced block or SEARCH/REPLACE markers. */
function parseBlockSyntax(text: string): TextCall {
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const header = parseHeader(lines[i] as string);
    if (!header) continue;
    const name = header[0].toUpperCase();
    const target = header[1];
    switch (name) {
      case 'WRITE_FILE': {
        const block = fencedBlock(lines, i + 1);
        if (!block)
          return {
            ok: false,
            feedback:
              'WRITE_FILE: put the file content in a fenced code block (```ts … ```) on the lines after "WRITE_FILE <path>".',
          };
        if (!target)
          return { ok: false, feedback: 'WRITE_FILE: name the file on the header line: WRITE_FILE solution.ts' };
        return { ok: true, call: { name, arguments: { path: target, content: `${block.content}\n` } } };
      }
      case 'EDIT_FILE': {
        const edit = searchReplace(lines, i + 1);
        if (!edit)
          return {
            ok: false,
            feedback:
              'EDIT_FILE: after "EDIT_FILE <path>" write <<<<<<< SEARCH, the exact lines to replace, =======, the new lines, >>>>>>> REPLACE.',
          };
        if (!target)
          return { ok: false, feedback: 'EDIT_FILE: name the file on the header line: EDIT_FILE src/cart.ts' };
        return { ok: true, call: { name, arguments: { path: target, ...edit } } };
      }
      case 'RUN': {
        const block = fencedBlock(lines, i + 1);
        if (block) return { ok: true, call: { name, arguments: { code: block.content } } };
        if (target) return { ok: true, call: { name, arguments: { path: target } } };
        return {
          ok: false,
          feedback: 'RUN: give a file (RUN solution.ts) or code in a fenced block on the lines after "RUN".',
        };
      }
      case 'READ_FILE':
        if (target) return { ok: true, call: { name, arguments: { path: target } } };
        return { ok: false, feedback: 'READ_FILE: name the file: READ_FILE solution.ts' };
    }
  }
  return undefined;
}

// ajv's words for a path outside PATH_PATTERN quote the pattern, lookaheads and all, which tells an agent
// nothing about what to write instead: the rule in words replaces them.
const PATH_PATTERN_WORDS = `must match pattern "${PATH_PATTERN}"`;
const PATH_RULE =
  'must be a workspace path: relative, ASCII letters, digits, "_", "." and "-" between "/", no "." or ".." part, ' +
  'not starting with "__" (e.g. solution.ts, src/cart.ts)';

/**
 * Reads an action as one of the coding tools. Accepted forms, tried in this order:
 * 1. a structured call `{ name, arguments }` or `NAME({"json": …})`, `NAME(path)`, `NAME()` / `NAME` (core's syntax);
 * 2. the block syntax, after any amount of prose: a header line `WRITE_FILE path`, `EDIT_FILE path`, `RUN`,
 *    `RUN path`, `READ_FILE path`, then a fenced code block (WRITE_FILE, RUN) or SEARCH/REPLACE markers (EDIT_FILE);
 * 3. a last line that is `RUN_TESTS` or `SUBMIT` (with or without `()`), after prose.
 */
export function parseCodingAction(action: string | ToolCall): ToolCallParse {
  const parse = readCodingAction(action);
  if (parse.ok || !parse.feedback.includes(PATH_PATTERN_WORDS)) return parse;
  return { ok: false, feedback: parse.feedback.split(PATH_PATTERN_WORDS).join(PATH_RULE) };
}

function readCodingAction(action: string | ToolCall): ToolCallParse {
  if (typeof action !== 'string') return parseToolCall(action, CODING_TOOLS);
  const text = action.replace(/\r\n/g, '\n');
  const direct = parseToolCall(text, CODING_TOOLS);
  if (direct.ok) return direct;
  const block = parseBlockSyntax(text);
  if (block) return block.ok ? parseToolCall(block.call, CODING_TOOLS) : block;
  const lastLine = text.trimEnd().split('\n').pop()?.trim() ?? '';
  if (/^(RUN_TESTS|SUBMIT)(\(\s*\))?$/i.test(lastLine)) return parseToolCall(lastLine, CODING_TOOLS);
  return direct;
}
