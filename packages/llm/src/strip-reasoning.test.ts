import { stripReasoning } from './strip-reasoning';

describe('stripReasoning', () => {
  it('removes the reasoning blocks reasoning models write, whatever their markup', () => {
    for (const reply of [
      '<think>My budget is 40 dollars.</think>\nOh, hello.',
      '<Reasoning>My budget is 40 dollars.</Reasoning> Oh, hello.',
      // Magistral and Kimi, served without a reasoning parser: their reasoning reached the dialogue as words.
      '[THINK]My budget is 40 dollars.[/THINK]Oh, hello.',
      '\u25c1think\u25b7My budget is 40 dollars.\u25c1/think\u25b7Oh, hello.',
    ]) {
      expect([reply, stripReasoning(reply)]).toEqual([reply, { text: 'Oh, hello.', hadReasoning: true }]);
    }
  });

  it('keeps a reply without reasoning as it is, and drops an unclosed block or what precedes a lone closing tag', () => {
    expect(stripReasoning(' Oh, hello. ')).toEqual({ text: ' Oh, hello. ', hadReasoning: false });
    expect(stripReasoning('Oh, hello. [THINK]but my budget')).toEqual({ text: 'Oh, hello.', hadReasoning: true });
    expect(stripReasoning('my budget is 40[/THINK] Oh, hello.')).toEqual({ text: 'Oh, hello.', hadReasoning: true });
  });
});
