import { Parser } from 'htmlparser2';
import type { DomDocument, DomNode } from './extract-page';

/**
 * Direct mode's DOM: just what the extraction function reads (DomNode: `nodeType`, `childNodes`, `tagName`,
 * `getAttribute`, `textContent`; the document's `querySelector` for `#id` and a tag name), built from the
 * same htmlparser2 events with the same options as linkedom's `parseHTML`, so it is the same tree. linkedom
 * builds a full DOM (event targets, attribute nodes, linked-list siblings) that extraction never reads: it
 * was about two thirds of a direct-mode page load once the HTTP hop was gone (issue 32's profile).
 */
class LightNode implements DomNode {
  readonly childNodes: LightNode[] = [];
  constructor(
    readonly nodeType: number,
    readonly tagName: string | undefined,
    private readonly attributes: Record<string, string> | undefined,
    private readonly text: string | null,
    readonly parent: LightNode | undefined,
  ) {}

  get textContent(): string | null {
    if (this.nodeType !== 1) return this.text;
    let out = '';
    const collect = (node: LightNode): void => {
      for (const child of node.childNodes) {
        if (child.nodeType === 3 || child.nodeType === 4) out += child.text ?? '';
        else if (child.nodeType === 1) collect(child);
      }
    };
    collect(this);
    return out;
  }

  getAttribute(name: string): string | null {
    return this.attributes?.[name] ?? null;
  }
}

class LightDocument implements DomDocument {
  constructor(private readonly root: LightNode) {}

  /** `#id` or a tag name (the only selectors extraction uses; any other finds nothing): the first match in document order. */
  querySelector(selector: string): DomNode | null {
    const id = selector.startsWith('#') ? selector.slice(1) : undefined;
    const tag = id === undefined ? selector.toUpperCase() : undefined;
    const find = (node: LightNode): LightNode | null => {
      for (const child of node.childNodes) {
        if (child.nodeType !== 1) continue;
        if (id !== undefined ? child.getAttribute('id') === id : child.tagName === tag) return child;
        const found = find(child);
        if (found) return found;
      }
      return null;
    };
    return find(this.root);
  }
}

/** Parses HTML into the light DOM: linkedom's parse (same parser, options and tree steps), without its DOM. */
export function parseLightHtml(html: string): DomDocument {
  const root = new LightNode(9, undefined, undefined, null, undefined);
  let node = root;
  let cdata = false;
  const append = (child: LightNode): LightNode => {
    node.childNodes.push(child);
    return child;
  };
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        // linkedom upper-cases HTML tag names (svg children keep their case: extraction lower-cases them).
        node = append(new LightNode(1, name.toUpperCase(), attributes, null, node));
      },
      oncomment(data) {
        append(new LightNode(8, undefined, undefined, data, node));
      },
      ontext(text) {
        append(new LightNode(cdata ? 4 : 3, undefined, undefined, text, node));
      },
      oncdatastart() {
        cdata = true;
      },
      oncdataend() {
        cdata = false;
      },
      onclosetag() {
        node = node.parent ?? root;
      },
    },
    { lowerCaseAttributeNames: false, decodeEntities: true, xmlMode: false },
  );
  parser.write(html);
  parser.end();
  return new LightDocument(root);
}
