import { formatTable } from './format-table';

describe('formatTable', () => {
  it('aligns columns and leaves plain text as it is', () => {
    expect(
      formatTable(
        ['name', 'n'],
        [
          ['ab', '1'],
          ['c', '22'],
        ],
      ),
    ).toBe('name  n\nab    1\nc     22');
  });

  it('shows control characters and bidi overrides as escapes, so a cell cannot drive the terminal', () => {
    // What a model-chosen fingerprint could hold: a colour, a window-title sequence, a newline, a bidi override.
    const cell = 'T(\x1b[31mRED\x1b]0;pwned\x07)\nnext\u202eevil';
    const table = formatTable(['fingerprint', 'n'], [[cell, '1']]);
    // Only the row separator is a raw control character.
    // eslint-disable-next-line no-control-regex -- matching control characters is the point
    expect(table.replace(/\n/g, '')).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e]/);
    expect(table.split('\n')).toHaveLength(2);
    expect(table).toContain('T(\\u001b[31mRED\\u001b]0;pwned\\u0007)\\u000anext\\u202eevil  1');
  });
});
