import { withoutPatterns } from './without-patterns';

describe('withoutPatterns (the schema the env checks arguments with)', () => {
  it('drops the pattern keywords, keeps properties named like them, and data as it is', () => {
    expect(
      withoutPatterns({
        type: 'object',
        properties: {
          pattern: { type: 'string', pattern: '^(a+)+$' },
          patternProperties: { type: 'number' },
          tags: { type: 'array', items: { type: 'string', pattern: '^[a-z]+$', description: 'A tag.' } },
        },
        default: { pattern: 'kept' },
      }),
    ).toEqual({
      type: 'object',
      properties: {
        pattern: { type: 'string', description: 'Must match the pattern ^(a+)+$ (the server checks it).' },
        patternProperties: { type: 'number' },
        tags: {
          type: 'array',
          items: { type: 'string', description: 'A tag. Must match the pattern ^[a-z]+$ (the server checks it).' },
        },
      },
      default: { pattern: 'kept' },
    });
  });

  it('lets the server judge names its patternProperties allowed, instead of refusing them as additional', () => {
    expect(
      withoutPatterns({
        type: 'object',
        patternProperties: { '^x-': { type: 'string' } },
        additionalProperties: false,
      }),
    ).toEqual({ type: 'object' });
  });
});
