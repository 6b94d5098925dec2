import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runEpisode, SeededRng } from '@turngym/core';
import { finalLine, lastNumber, loadGsm8kFile, parseGsm8k, SAMPLE_TASKS_PATH } from './gsm8k-loader';
import { MathThoughtEnv } from './math-thought-env';
import { MathThoughtExpert } from './math-thought-expert';
import { TaskFileError } from './task-file-error';

const good = JSON.stringify({
  question: 'Ann has 3 bags of 4 apples. How many apples?',
  answer: 'She has 3 * 4 = <<3*4=12>>12 apples.\n#### 12',
});

describe('GSM8K loader', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'math-thought-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, text: string): string => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };

  it('reads `#### 25%` as a gold answer in percent, which `25%`, `25` and `0.25` all answer', async () => {
    // It was refused as "not a number", so a file of percent questions with their sign could not load.
    const text = JSON.stringify({
      question: 'A price fell from 40 to 30. By how much?',
      answer: '10/40 = 25%.\n#### 25%',
    });
    const [problem] = parseGsm8k(text, 'f.jsonl');
    expect(problem).toMatchObject({ answer: '25', answerKind: 'percent', answerText: '25%' });
    const env = new MathThoughtEnv({ source: file('percent.jsonl', text), split: 'all' });
    for (const [answer, solved] of [
      ['25%', true],
      ['25', true],
      ['0.25', true],
      ['0.5', false],
    ] as const) {
      await env.reset({ seed: 0, options: { taskId: 0 } });
      const step = await env.step(`Answer: ${answer}`);
      expect([answer, step.info.success]).toEqual([answer, solved]);
    }
    await env.close();
  });

  it('reads GSM8K lines as the dataset writes them: a worked solution of any length, then "#### <number>"', () => {
    // GSM8K's first training line, and one whose solution runs to many lines and its gold to thousands.
    const natalia = {
      question:
        'Natalia sold clips to 48 of her friends in April, and then she sold half as many clips in May. How many ' +
        'clips did Natalia sell altogether in April and May?',
      answer:
        'Natalia sold 48/2 = <<48/2=24>>24 clips in May.\nNatalia sold 48+24 = <<48+24=72>>72 clips altogether in ' +
        'April and May.\n#### 72',
    };
    const steps = Array.from({ length: 40 }, (_, i) => `Week ${i + 1} adds 40 * 3 = <<40*3=120>>120 dollars.`);
    const long = {
      question: 'A shop earns 120 dollars a week for 40 weeks, and 1,200 more in a bonus. How much in all?',
      answer: `${steps.join('\n')}\nThe bonus adds 1,200, so 4,800 + 1,200 = <<4800+1200=6000>>6,000.\n#### 6,000`,
    };
    const problems = parseGsm8k(`${JSON.stringify(natalia)}\n${JSON.stringify(long)}\n`, 'train.jsonl');
    expect(problems.map((problem) => [problem.answerText, problem.steps.length])).toEqual([
      ['72', 2],
      ['6000', 41],
    ]);
    expect(problems[0]?.steps.map((step) => step.value)).toEqual(['24', '72']);
  });

  it('reads a gold answer written in Arabic-Indic or full-width digits as the number it is', () => {
    // It was refused as "not a number".
    const arabic = parseGsm8k(JSON.stringify({ question: 'Q?', answer: 'It is 42.\n#### ٤٢' }), 'f.jsonl');
    expect(arabic[0]).toMatchObject({ answer: '42', answerText: '42' });
    const wide = parseGsm8k(JSON.stringify({ question: 'Q?', answer: 'It is 3.5.\n#### ３.５' }), 'f.jsonl');
    expect(wide[0]).toMatchObject({ answer: '7/2', answerText: '3.5' });
  });

  it('reads the sample file: questions, exact answers, steps without calculator annotations', () => {
    const problems = loadGsm8kFile(SAMPLE_TASKS_PATH);
    expect(problems).toHaveLength(18);
    expect(problems[0]).toMatchObject({
      id: 'gsm8k-sample.jsonl#1',
      kind: 'gsm8k',
      answer: '249',
      answerKind: 'number',
      steps: [
        { label: 'l1', text: 'The bakery sells 45 + 38 = 83 muffins.', value: '83' },
        { label: 'l2', text: 'It makes 83 * 3 = 249 dollars.', value: '249' },
      ],
    });
    expect(problems.find((problem) => problem.answer === '5/4')).toMatchObject({ answerText: '1.25' });
    expect(problems.find((problem) => problem.answer === '-2')).toBeDefined();
    expect(problems.filter((problem) => problem.answerKind === 'percent')).toHaveLength(2);
  });

  it('the expert solves every sample problem in both variants', async () => {
    for (const calculator of [false, true]) {
      const env = new MathThoughtEnv({ source: 'sample', split: 'all', calculator });
      expect(env.taskCount).toBe(18);
      const expert = new MathThoughtExpert(env);
      for (let taskId = 0; taskId < env.taskCount; taskId++) {
        await env.reset({ seed: 0, options: { taskId } });
        await expert.start({ seed: 0, spec: env.spec, observation: env.task(taskId).question, info: { taskId } });
        let result;
        do result = await env.step(await expert.act());
        while (!result.terminated && !result.truncated);
        expect(result).toMatchObject({ reward: 1, info: { success: true } });
      }
    }
  });

  it('splits a file into train and test by content', () => {
    const train = new MathThoughtEnv({ source: 'sample', split: 'train' });
    const test = new MathThoughtEnv({ source: 'sample', split: 'test' });
    expect(train.taskCount + test.taskCount).toBe(18);
    expect(test.taskCount).toBeGreaterThan(0);
  });

  it('loads a user file given by path, with an optional id', async () => {
    const path = file(
      'mine.jsonl',
      `${good}\n\n${JSON.stringify({ id: 'q-7', question: 'What is 10 - 4?', answer: '#### 6' })}\n` +
        `${JSON.stringify({ id: 8, question: 'What is 10 - 3?', answer: '#### 7' })}\n` +
        `${JSON.stringify({ id: null, question: 'What is 10 - 2?', answer: '#### 8' })}\n`,
    );
    const env = new MathThoughtEnv({ source: path, split: 'all' });
    expect(env.taskCount).toBe(4);
    expect(env.task(1)).toMatchObject({ id: 'q-7', answer: '6', steps: [] });
    expect(env.task(2).id).toBe('8');
    expect(env.task(3).id).toBe('mine.jsonl#5'); // a null id is no id
    const outcome = await runEpisode(env, new MathThoughtExpert(env), 3);
    expect(outcome.success).toBe(true);
  });

  it.each([
    ['not JSON', `${good}\n{"question": "Q", "answer": "#### 1"\n`, /bad\.jsonl line 2: not valid JSON/],
    ['not an object', `[1, 2]\n`, /line 1: expected a JSON object/],
    ['no question', `${good}\n${good}\n{"answer": "#### 3"}\n`, /line 3: "question" must be a non-empty string/],
    [
      'a MATH-format line',
      `${JSON.stringify({ problem: 'What is $1+1$?', solution: 'It is $\\boxed{2}$.', level: 'Level 1' })}\n`,
      /line 1: "question" must be a non-empty string \(the line has "problem", "solution", "level"; this looks like the MATH format/,
    ],
    [
      'an id that is neither a string nor a number',
      `${good}\n{"id": true, "question": "Q?", "answer": "#### 1"}\n`,
      /line 2: "id" must be a non-empty string or a number \(got true\)/,
    ],
    [
      'an empty id',
      `{"id": " ", "question": "Q?", "answer": "#### 1"}\n`,
      /line 1: "id" must be a non-empty string or a number \(got " "\)/,
    ],
    [
      'an object id',
      `{"id": {"n": 1}, "question": "Q?", "answer": "#### 1"}\n`,
      /line 1: "id" must be .* \(got an object\)/,
    ],
    ['no ####', `{"question": "Q?", "answer": "It is 4."}\n`, /line 1: "answer" must end with a line "#### <number>"/],
    [
      'answer not a number',
      `{"question": "Q?", "answer": "#### four"}\n`,
      /line 1: the final answer "four" is not a number/,
    ],
    [
      'a final answer longer than any answer is read',
      `${JSON.stringify({ question: 'Q?', answer: `It is big.\n#### ${'1'.repeat(101)}` })}\n`,
      /line 1: the final answer after "####" is 101 characters long \("1{40}…"\); answers are read up to 100 characters, so no agent's answer could match it: end the answer with the value alone, e.g. "#### 42"$/,
    ],
    ['empty', `\n\n`, /bad\.jsonl: the file holds no problems/],
    [
      'a repeated id',
      `${JSON.stringify({ id: 'p1', question: 'Q?', answer: '#### 1' })}\n${good}\n${JSON.stringify({ id: 'p1', question: 'R?', answer: '#### 2' })}\n`,
      /line 3: "id" "p1" is also the id of line 1/,
    ],
  ])('rejects a malformed file (%s) with an error naming the line', (_name, text, message) => {
    const path = file('bad.jsonl', text);
    expect(() => parseGsm8k(text, path)).toThrow(message);
    expect(() => new MathThoughtEnv({ source: path })).toThrow(TaskFileError);
  });

  it("reads the final line and each step's last number as the regexes it replaced did, in linear time", () => {
    const original = {
      final: /(?:^|\n)[ \t]*####[ \t]*([^\n]*?)[ \t]*$/,
      last: /(-?\d+(?:,\d{3})*(?:\.\d+)?)(?!.*\d)/,
    };
    const rng = new SeededRng(5);
    const alphabet = ['1', '2', '0', ',', '.', '-', ' ', '\t', 'a', '#', '\n', '\r', '<'];
    for (let trial = 0; trial < 3000; trial++) {
      const text = Array.from({ length: rng.int(0, 14) }, () => alphabet[rng.int(0, alphabet.length - 1)]).join('');
      expect(lastNumber(text)).toBe(original.last.exec(text)?.[1]);
      const answer = `${text}\n${text.length % 2 ? ' ' : ''}####${text.slice(0, 3)}`.trimEnd();
      const expected = original.final.exec(answer);
      expect(finalLine(answer)).toEqual(expected ? { index: expected.index, value: expected[1] } : null);
    }
    // A cubic regex took 3.7 s for these 2,000 blanks; the lookahead, 1.8 s for a line of 50,000 numbers.
    const started = performance.now();
    expect(finalLine(`####${' '.repeat(100_000)}\n2`)).toBeNull();
    expect(lastNumber(`${'1 '.repeat(50_000)}x`)).toBe('1');
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('reports a missing file clearly', () => {
    expect(() => new MathThoughtEnv({ source: join(dir, 'missing.jsonl') })).toThrow(
      /missing\.jsonl: cannot read the file \(ENOENT\)/,
    );
  });
});
