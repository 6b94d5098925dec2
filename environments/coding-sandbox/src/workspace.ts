/** Limits on what an agent may keep in its workspace. */
export interface WorkspaceLimits {
  readonly maxFiles: number;
  readonly maxFileChars: number;
}

const EXTENSIONS = /\.(ts|js|mjs|cjs|json|md|txt)$/;

/** The outcome of a workspace change: a note for the agent, or why it was refused. */
export type WorkspaceChange = { ok: true; note: string } | { ok: false; feedback: string };

function lineCount(text: string): number {
  return text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

/**
 * Each line without its trailing spaces and tabs (lines end at \n, \r, \r\n, U+2028 or U+2029, as a
 * multiline regex's `$` does). A loop, not `/[ \t]+$/gm`: that regex backtracks over every run of blanks
 * followed by text, quadratic in its length, and an agent's action may be a megabyte of them.
 */
function trimLines(value: string): string {
  const pieces = value.split(/(\r\n|[\n\r\u2028\u2029])/);
  for (let index = 0; index < pieces.length; index += 2) {
    const line = pieces[index] as string;
    let end = line.length;
    while (end > 0 && (line.charCodeAt(end - 1) === 32 || line.charCodeAt(end - 1) === 9)) end -= 1;
    if (end < line.length) pieces[index] = line.slice(0, end);
  }
  return pieces.join('');
}

/**
 * The agent's virtual file system: path → text, nothing else. Plain data, so a fork copies it and a record can
 * hold it; the sandbox receives a snapshot of it for every run.
 */
export class Workspace {
  private files: Map<string, string>;

  constructor(
    initial: Readonly<Record<string, string>>,
    private readonly limits: WorkspaceLimits,
  ) {
    this.files = new Map(Object.entries(initial));
  }

  /** A copy of the files as a plain object, paths sorted. */
  snapshot(): Record<string, string> {
    return Object.fromEntries([...this.files.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }

  paths(): string[] {
    return [...this.files.keys()].sort();
  }

  has(path: string): boolean {
    return this.files.has(path);
  }

  read(path: string): string | undefined {
    return this.files.get(path);
  }

  /** Path rules beyond the tool schema: a known extension. */
  private checkPath(path: string): string | undefined {
    if (!EXTENSIONS.test(path)) return `${path}: use a .ts, .js, .json, .md or .txt file`;
    return undefined;
  }

  write(path: string, content: string): WorkspaceChange {
    const problem = this.checkPath(path);
    if (problem) return { ok: false, feedback: `WRITE_FILE ${problem}.` };
    if (content.length > this.limits.maxFileChars) {
      return {
        ok: false,
        feedback: `WRITE_FILE ${path}: ${content.length} characters is more than the ${this.limits.maxFileChars} a file may hold.`,
      };
    }
    const existed = this.files.has(path);
    if (!existed && this.files.size >= this.limits.maxFiles) {
      return {
        ok: false,
        feedback: `WRITE_FILE ${path}: the workspace already holds ${this.limits.maxFiles} files, the most it may.`,
      };
    }
    this.files.set(path, content);
    return { ok: true, note: `${existed ? 'Wrote' : 'Created'} ${path} (${lineCount(content)} lines).` };
  }

  /** Replaces the single occurrence of `search`; trailing spaces at line ends are forgiven if the exact text is absent. */
  edit(path: string, search: string, replace: string): WorkspaceChange {
    const current = this.files.get(path);
    if (current === undefined)
      return {
        ok: false,
        feedback: `EDIT_FILE: there is no file ${path}. Files: ${this.paths().join(', ') || '(none)'}.`,
      };
    if (search.length > this.limits.maxFileChars) {
      return {
        ok: false,
        feedback: `EDIT_FILE ${path}: the search text has ${search.length} characters, more than the ${this.limits.maxFileChars} a file may hold.`,
      };
    }
    let count = current.split(search).length - 1;
    let text = current;
    let needle = search;
    if (count === 0) {
      // Models often drop or add trailing whitespace; match line by line with it trimmed.
      const trimmed = trimLines(current);
      const trimmedSearch = trimLines(search);
      const relaxed = trimmed.split(trimmedSearch).length - 1;
      if (relaxed === 1 && trimmedSearch.trim() !== '') {
        text = trimmed;
        needle = trimmedSearch;
        count = 1;
      }
    }
    if (count === 0)
      return {
        ok: false,
        feedback: `EDIT_FILE ${path}: the search text was not found. It must match the file exactly (READ_FILE ${path} shows it).`,
      };
    if (count > 1)
      return {
        ok: false,
        feedback: `EDIT_FILE ${path}: the search text occurs ${count} times; include more surrounding lines so that it is unique.`,
      };
    const at = text.indexOf(needle);
    const updated = text.slice(0, at) + replace + text.slice(at + needle.length);
    if (updated.length > this.limits.maxFileChars) {
      return {
        ok: false,
        feedback: `EDIT_FILE ${path}: the result would be ${updated.length} characters, more than the ${this.limits.maxFileChars} a file may hold.`,
      };
    }
    this.files.set(path, updated);
    const firstLine = text.slice(0, at).split('\n').length;
    return {
      ok: true,
      note: `Edited ${path}: replaced ${lineCount(needle) || 1} line(s) at line ${firstLine} with ${lineCount(replace)} line(s).`,
    };
  }
}
