import { readFactor, topOperator } from './thought-factor';

describe('thought factors', () => {
  it.each([
    ['4 * 3', 'mul'],
    ['(12 + 7) * 3', 'mul'],
    ['12 + 7 * 3', 'add'],
    ['-3 + 4', 'add'],
    ['(-22) + 2720', 'add'],
    ['24 / (2 + 4)', 'div'],
    ['((3 - 1))', 'sub'],
    ['2^10', 'pow'],
    ['sqrt(16)', 'fn'],
    ['42', 'num'],
    ['-5', 'num'],
    ['x', undefined],
  ])('topOperator(%j) is %s', (expression, operator) => {
    expect(topOperator(expression)).toBe(operator);
  });

  it.each([
    ['Cost of the pens: 4 × 3 = 12.', 'CLAIM(mul)'],
    ['Subtract 19 from both sides: 2x = 35 - 19 = 16.', 'CLAIM(sub)'],
    ['Divide both sides of 4x = 40 by 4: x = 40 ÷ 4 = 10.', 'CLAIM(div)'],
    ['2/5 + 1/3 = 6/15 + 5/15 = 11/15.', 'CLAIM(add)'],
    ['So the total is = 12', 'CLAIM'],
    ['The cows matter more than the hens.', 'NOTE'],
    ['  answer :  12 ', 'ANSWER'],
    ['The total is 12.\nAnswer: 12', 'ANSWER'],
    ['\n\n\nFirst, 1 + 1 = 2.\n\nAnswer: 2', 'CLAIM(add)'],
    [' \t ', 'EMPTY'],
  ])('%j reads as %s', (action, fingerprint) => {
    expect(readFactor(action, 2000, false).fingerprint).toBe(fingerprint);
  });

  it('reads claims with signs, currency and blanks in any mix, and long runs of blanks or parentheses at once', () => {
    for (const claim of ['x = -3', 'x =( 3', 'x = $ 3', 'x = - $ .5', 'x=+$.5', 'x =\t-\t$\t3'])
      expect(readFactor(claim, 2000, false).kind).toBe('CLAIM');
    for (const note of ['x = y', 'x = $ y', 'x = - - 3', 'x = $$3'])
      expect(readFactor(note, 2000, false).kind).toBe('NOTE');
    // Hang guards, ~100× what each takes: `=` and 2,000 blanks took 4 s per step (a cubic regex); 50,000 nested
    // parentheses took 3.7 s (one rescan per layer).
    const started = performance.now();
    expect(readFactor(`x =${' '.repeat(100_000)}y`, 100_000, false).kind).toBe('NOTE');
    expect(topOperator(`${'('.repeat(25_000)}1 + 2${')'.repeat(25_000)}`)).toBe('num');
    expect(performance.now() - started).toBeLessThan(1000);
    expect(topOperator(`${'('.repeat(32)}1 + 2${')'.repeat(32)}`)).toBe('add');
  });

  it('reads <calc> tags only with the calculator, and at most four per factor', () => {
    expect(readFactor('Cost: <calc>4 * 3</calc>', 2000, true)).toMatchObject({
      kind: 'CALC',
      calcExpressions: ['4 * 3'],
      fingerprint: 'CALC(mul)',
    });
    expect(readFactor('<calc>1+1</calc><calc>2*2</calc>', 2000, true).fingerprint).toBe('CALC(multi)');
    const many = readFactor('<calc>1</calc>'.repeat(6), 2000, true);
    expect(many.calcExpressions).toHaveLength(4);
    expect(many.notes.join(' ')).toMatch(/Only the first 4 <calc> expressions/);
    expect(readFactor('Cost: <calc>4 * 3</calc>', 2000, false)).toMatchObject({ kind: 'NOTE', calcExpressions: [] });
  });

  it('reads a <calc> tag in any case, as it reads its closing tag', () => {
    // `<Calc>` was neither evaluated nor noted: the factor was a plain NOTE.
    expect(readFactor('Cost: <Calc>4 * 3</Calc>', 2000, true)).toMatchObject({
      kind: 'CALC',
      calcExpressions: ['4 * 3'],
    });
    expect(readFactor('Cost: <Calc>4 * 3</Calc>', 2000, false).notes.join(' ')).toMatch(/There is no calculator/);
  });

  it('the answer text is the rest of the Answer: line', () => {
    expect(readFactor('Thus:\nAnswer: 3/4 cups\nDone.', 2000, false).answerText).toBe(' 3/4 cups');
  });

  it('reads the last of several Answer: lines, as graders do, and says so', () => {
    // The first was read, silently: a model that corrected itself (`Answer: 12` … `Answer: 14`) was scored on 12.
    const corrected = readFactor('Answer: 12\nNo wait, 2 * 7 = 14.\nAnswer: 14', 2000, false);
    expect(corrected).toMatchObject({ kind: 'ANSWER', answerText: ' 14' });
    expect(corrected.notes.join(' ')).toMatch(/2 "Answer:" lines: the last one is the final answer/);
    expect(readFactor('Answer: 12\n**Final Answer:**\n\\boxed{14}', 2000, false).answerText).toBe('\\boxed{14}');
    // One answer line: no note.
    expect(readFactor('Thus:\nAnswer: 14\nDone.', 2000, false).notes).toEqual([]);
  });

  it('reads the answer on the line below an Answer: heading that holds only markdown', () => {
    // `**Final Answer:**` over `\boxed{42}` was read as an empty answer: −λ_f for a correct one.
    expect(readFactor('**Final Answer:**\n\\boxed{42}', 2000, false).answerText).toBe('\\boxed{42}');
    expect(readFactor('So 6 * 7 = 42.\nAnswer:\n  42 apples\nDone.', 2000, false).answerText).toBe('  42 apples');
    // Nothing below: still the (empty) text of the line, for the malformed-answer note.
    expect(readFactor('Answer:', 2000, false).answerText).toBe('');
  });
});
