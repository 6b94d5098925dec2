import { anchorText } from './anchor-text';

describe('anchorText', () => {
  it('keeps a string, and writes any other anchor as JSON with every object’s keys sorted', () => {
    expect(anchorText('hall#top')).toBe('hall#top');
    expect(anchorText(3)).toBe('3');
    expect(anchorText({ b: [{ y: 1, x: 2 }], a: true })).toBe(anchorText({ a: true, b: [{ x: 2, y: 1 }] }));
    expect(anchorText({ b: [{ y: 1, x: 2 }], a: true })).toBe('{"a":true,"b":[{"x":2,"y":1}]}');
    // Order inside an array is part of the state.
    expect(anchorText([1, 2])).not.toBe(anchorText([2, 1]));
    // A key whose value is undefined is dropped, as JSON drops it on the wire.
    expect(anchorText({ a: 1, b: undefined })).toBe(anchorText({ a: 1 }));
  });

  it('is null for no anchor, or one JSON cannot carry (it would make different states equal)', () => {
    expect(anchorText(undefined)).toBeNull();
    expect(anchorText(null)).toBeNull();
    expect(anchorText(Number.NaN)).toBeNull();
    expect(anchorText({ floor: Number.POSITIVE_INFINITY })).toBeNull();
    expect(anchorText([1, () => 2])).toBeNull();
    expect(anchorText(BigInt(1))).toBeNull();
  });
});
