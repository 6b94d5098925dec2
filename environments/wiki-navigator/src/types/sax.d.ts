// The part of sax@1's API the MediaWiki converter uses (sax ships no types and @turngym avoids @types/sax).
declare module 'sax' {
  export interface Tag {
    name: string;
    attributes: Record<string, string>;
    isSelfClosing: boolean;
  }
  export interface SAXParser {
    onopentag: (tag: Tag) => void;
    onclosetag: (name: string) => void;
    ontext: (text: string) => void;
    oncdata: (text: string) => void;
    onerror: (error: Error) => void;
    error: Error | null;
    /** The line being read, counted from 0. */
    line: number;
    /** Characters read on the line so far. */
    column: number;
    write(chunk: string): SAXParser;
    close(): SAXParser;
    resume(): SAXParser;
  }
  export function parser(
    strict: boolean,
    options?: { trim?: boolean; normalize?: boolean; lowercase?: boolean; xmlns?: boolean; position?: boolean },
  ): SAXParser;
}
