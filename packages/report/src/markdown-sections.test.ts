import { updateMarkdownSections } from './markdown-sections';

describe('updateMarkdownSections', () => {
  const document = [
    '# Performance benchmarks',
    '',
    '## Wiki (old goal)',
    '',
    'A note above, written by hand.',
    '<!-- bench:wiki -->',
    '| old | table |',
    '<!-- /bench:wiki -->',
    '',
    'A note below, written by hand.',
    '',
    '## Sandbox',
    '',
    '| old sandbox |',
    '',
    '## Later section',
    'kept',
  ].join('\n');

  it('replaces a marked section between its markers, updates its title and keeps the notes outside', () => {
    const { text, kept } = updateMarkdownSections(document, [
      { name: 'wiki', title: 'Wiki (new goal)', lines: ['| new |'] },
    ]);
    expect(text).toContain(
      '## Wiki (new goal)\n\nA note above, written by hand.\n<!-- bench:wiki -->\n| new |\n<!-- /bench:wiki -->\n\nA note below, written by hand.',
    );
    expect(text).not.toContain('| old | table |');
    expect(text).toContain('| old sandbox |');
    expect(kept).toEqual([]);
  });

  it('puts the figures of an unmarked section under its title and keeps its old text, naming it', () => {
    const { text, kept } = updateMarkdownSections(document, [
      { name: 'sandbox', title: 'Sandbox', lines: ['| new |'] },
    ]);
    expect(text).toContain('## Sandbox\n\n<!-- bench:sandbox -->\n| new |\n<!-- /bench:sandbox -->\n\n| old sandbox |');
    expect(kept).toEqual(['sandbox']);
  });

  it('appends a section it does not find', () => {
    const { text } = updateMarkdownSections(document, [{ name: 'gpu', title: 'GPU', lines: ['| gpu |'] }]);
    expect(text.endsWith('kept\n\n## GPU\n\n<!-- bench:gpu -->\n| gpu |\n<!-- /bench:gpu -->\n')).toBe(true);
  });
});

describe('updateMarkdownSections with another marker', () => {
  it('replaces only the blocks of its own marker', () => {
    const document = [
      '## math',
      '<!-- bench:math -->',
      '| bench |',
      '<!-- /bench:math -->',
      '<!-- summarize:math -->',
      '| old |',
      '<!-- /summarize:math -->',
    ].join('\n');
    const { text, kept } = updateMarkdownSections(
      document,
      [{ name: 'math', title: 'math', lines: ['| new |'] }],
      'summarize',
    );
    expect(text).toBe(
      [
        '## math',
        '<!-- bench:math -->',
        '| bench |',
        '<!-- /bench:math -->',
        '<!-- summarize:math -->',
        '| new |',
        '<!-- /summarize:math -->',
      ].join('\n'),
    );
    expect(kept).toEqual([]);
  });
});
