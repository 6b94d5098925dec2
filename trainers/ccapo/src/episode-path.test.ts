import { anchorKey, episodePath } from './episode-path';

const steps = (moves: [unknown, unknown][], action = (t: number) => `a${t}`) => ({
  steps: moves.map(([fingerprint, anchor], t) => ({ action: action(t), info: { fingerprint, anchor } })),
});

describe('episodePath', () => {
  it('joins the location reached and the action taken into the next step’s anchor', () => {
    expect(
      episodePath(
        steps([
          ['CLICK(x)', 'page#top'],
          ['NAV(y)', 'page#end'],
        ]),
      ),
    ).toEqual([
      { anchor: '^|^', fingerprint: 'CLICK(x)', loop: false, stepsToEnd: 1 },
      { anchor: 'page#top|CLICK(x)', fingerprint: 'NAV(y)', loop: false, stepsToEnd: 0 },
    ]);
  });

  it('keys an object anchor by its content whatever its key order, so the episode still enters the store', () => {
    const path = episodePath(
      steps(
        [
          ['MOVE', { room: 'hall', floor: 1 }],
          ['MOVE', { floor: 1, room: 'hall' }],
          ['MOVE', { floor: 2, room: 'hall' }],
        ],
        () => 'go',
      ),
    );
    expect(path).not.toBeNull();
    expect(path![1]!.anchor).toBe('{"floor":1,"room":"hall"}|MOVE');
    expect(path![2]!.anchor).toBe(path![1]!.anchor);
    // Same fingerprint, same action text, same location reached: step 1 repeats step 0 (a loop); step 2 moved on.
    expect(path!.map((step) => step.loop)).toEqual([false, true, false]);
  });

  it('gives no path when a step lacks a hook or holds one JSON cannot carry (NaN)', () => {
    expect(
      episodePath(
        steps([
          ['A', 'x'],
          ['B', undefined],
        ]),
      ),
    ).toBeNull();
    expect(
      episodePath(
        steps([
          ['A', 'x'],
          ['B', Number.NaN],
        ]),
      ),
    ).toBeNull();
    expect(episodePath(steps([[null, 'x']]))).toBeNull();
  });

  it('keeps a location and a fingerprint that hold "|" apart in the anchor key', () => {
    // Joined as they were, both pairs were the one key `a|b|c`: two anchors sharing one baseline and one set of edges.
    expect(anchorKey('a|b', 'c')).not.toBe(anchorKey('a', 'b|c'));
    const pairs: [string, string][] = [
      ['a|b', 'c'],
      ['a', 'b|c'],
      ['a\\', '|b'],
      ['a\\|', 'b'],
      ['a', '\\|b'],
      ['|', ''],
      ['', '|'],
      ['a', 'b'],
      ['a\\', 'b'],
    ];
    const keys = pairs.map(([location, fingerprint]) => anchorKey(location, fingerprint));
    expect(new Set(keys).size).toBe(pairs.length);
  });

  it('writes a key whose parts hold no "|" as the plain join, as stores of earlier runs hold it', () => {
    expect(anchorKey('^', '^')).toBe('^|^');
    expect(anchorKey('page#top', 'CLICK(x)')).toBe('page#top|CLICK(x)');
    expect(anchorKey('C:\\dir', '{"a":"\\n"}')).toBe('C:\\dir|{"a":"\\n"}');
    // An object location stays the sorted JSON it was, when nothing in it is a "|".
    const path = episodePath(
      steps(
        [
          ['MOVE', { room: 'hall' }],
          ['MOVE', { room: 'hall' }],
        ],
        () => 'go',
      ),
    );
    expect(path![1]!.anchor).toBe('{"room":"hall"}|MOVE');
  });

  it('keys the path of an episode whose hooks hold "|" apart from one whose split falls elsewhere', () => {
    const first = episodePath(
      steps([
        ['c', 'a|b'],
        ['x', 'y'],
      ]),
    )!;
    const second = episodePath(
      steps([
        ['b|c', 'a'],
        ['x', 'y'],
      ]),
    )!;
    expect(first[1]!.anchor).not.toBe(second[1]!.anchor);
  });
});
