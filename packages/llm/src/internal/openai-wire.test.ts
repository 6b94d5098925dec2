import { wireToolNames } from './openai-wire';

const WIRE_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

describe('wireToolNames', () => {
  it('leaves valid names alone and maps the others to valid, distinct names that map back', () => {
    const long = `mcp.${'x'.repeat(100)}`;
    const names = ['get_weather', 'files.read', 'github/search', 'files_read', long, 'a'.repeat(65), 'naïve'];
    const map = wireToolNames(names);
    const wire = names.map((name) => map.toWire(name));
    expect(map.toWire('get_weather')).toBe('get_weather');
    expect(map.toWire('files_read')).toBe('files_read');
    for (const name of wire) expect(name).toMatch(WIRE_NAME);
    expect(new Set(wire).size).toBe(names.length);
    expect(wire.map((name) => map.fromWire(name))).toEqual(names);
    // A name the model made up is kept as it came.
    expect(map.fromWire('unknown_tool')).toBe('unknown_tool');
  });

  it('gives a name the same wire name whatever else is offered, in any order', () => {
    const alone = wireToolNames(['files.read']).toWire('files.read');
    expect(wireToolNames(['github/search', 'files.read', 'get_weather']).toWire('files.read')).toBe(alone);
    expect(alone).toMatch(/^files_read_[0-9a-f]{8}$/);
  });

  it('takes a longer name where the mapped one is already a tool of the request', () => {
    const taken = wireToolNames(['files.read']).toWire('files.read');
    const map = wireToolNames([taken, 'files.read']);
    expect(map.toWire(taken)).toBe(taken);
    expect(map.toWire('files.read')).not.toBe(taken);
    expect(map.toWire('files.read')).toMatch(WIRE_NAME);
    expect(map.fromWire(map.toWire('files.read'))).toBe('files.read');
    expect(map.fromWire(taken)).toBe(taken);
  });
});
