import type { Space } from '@turngym/spec';
import { parsePlayedAction } from './parse-played-action';

describe('parsePlayedAction', () => {
  const discrete: Space = { type: 'discrete', n: 3, labels: ['Left', 'Right', 'Wait'] };
  const tools: Space = { type: 'tools', tools: [{ name: 'LOOKUP', description: '', parameters: { type: 'object' } }] };

  it('reads a discrete option by index or by label (any case); other text goes to the env as text', () => {
    expect(parsePlayedAction('2', discrete)).toBe(2);
    expect(parsePlayedAction(' right ', discrete)).toBe(1);
    expect(parsePlayedAction('Wait', discrete)).toBe(2);
    expect(parsePlayedAction('jump', discrete)).toBe('jump');
  });

  it('reads a JSON function call (arguments as an object or a JSON string) and keeps text syntax as text', () => {
    expect(parsePlayedAction('{"name": "LOOKUP", "arguments": {"key": "a"}}', tools)).toEqual({
      name: 'LOOKUP',
      arguments: { key: 'a' },
    });
    expect(parsePlayedAction('{"name": "LOOKUP", "arguments": "{\\"key\\": \\"a\\"}"}', tools)).toEqual({
      name: 'LOOKUP',
      arguments: { key: 'a' },
    });
    expect(parsePlayedAction('LOOKUP(a)', tools)).toBe('LOOKUP(a)');
    expect(parsePlayedAction('{not json', tools)).toBe('{not json');
    // A JSON object that is not a call is passed on: the env rejects an action of the wrong type.
    expect(parsePlayedAction('{"key": "a"}', tools)).toEqual({ key: 'a' });
  });

  it('sends text spaces the line as typed', () => {
    expect(parsePlayedAction('  {"hello": 1} ', { type: 'text' })).toBe('  {"hello": 1} ');
  });
});
