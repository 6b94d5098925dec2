import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { contentSecurityPolicy } from './content-security-policy';
import { ForeignOutputError } from './errors';
import { assertOwnOutput } from './own-output';

describe('generated output', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'turngym-own-output-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const owner = { writer: 'turngym example', instead: 'another --out file' };

  it('lets a missing file or its own page be written, and refuses anything else untouched', () => {
    const page = join(root, 'page.html');
    expect(() => assertOwnOutput(page, ['<meta name="generator"'], owner)).not.toThrow();
    writeFileSync(page, '<!doctype html><meta name="generator" content="turngym example">');
    expect(() => assertOwnOutput(page, ['<meta name="generator"'], owner)).not.toThrow();
    writeFileSync(page, 'my notes');
    expect(() => assertOwnOutput(page, ['<meta name="generator"'], owner)).toThrow(ForeignOutputError);
    expect(() => assertOwnOutput(page, ['<meta name="generator"'], { ...owner, sayExists: true })).toThrow(
      `${page} exists and was not written by turngym example; it is left alone: move it away, or choose another --out file.`,
    );
    expect(readFileSync(page, 'utf8')).toBe('my notes');
  });

  it('reads only the head: a marker past it does not make the file its own', () => {
    const file = join(root, 'metrics.jsonl');
    writeFileSync(file, `${'x'.repeat(100)}<meta name="generator"`);
    expect(() => assertOwnOutput(file, ['<meta name="generator"'], owner, 64)).toThrow(
      `${file} was not written by turngym example`,
    );
  });

  it('allows exactly the scripts it was given, by hash', () => {
    // sha256 of "a" in base64.
    expect(contentSecurityPolicy(['a'], { self: true })).toBe(
      `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-ypeBEsobvcr6wjGzmiPcTaeG7/gUfE5yuYB3ha/uSLs=' 'self'; img-src data:; base-uri 'none'; form-action 'none'">`,
    );
  });
});
