import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidOptionsError, runEpisode } from '@turngym/core';
import { WikiExpert } from '../agents/wiki-expert';
import { readJsonlCorpus } from '../corpus/jsonl-corpus';
import { WikiNavigatorEnv } from '../wiki-navigator-env';
import { splitOf } from './task-bank';
import { parseTaskFile } from './task-file';

// A real-shaped corpus (what the converter writes from Wikipedia pages): the users' tasks name its titles.
const CORPUS = [
  {
    title: 'Ada Lovelace',
    type: 'person',
    infobox: [
      { field: 'Birth date', value: '10 December 1815' },
      { field: 'Birth place', value: '[[London]], England' },
    ],
    lead: 'Ada Lovelace worked with [[Charles Babbage]] on a mechanical computer.',
  },
  {
    title: 'Charles Babbage',
    type: 'person',
    infobox: [{ field: 'Birth date', value: '26 December 1791' }],
    lead: 'Charles Babbage designed the [[Analytical Engine]].',
  },
  { title: 'Analytical Engine', lead: 'A proposed computer, described by [[Ada Lovelace]].' },
  { title: 'London', type: 'settlement', infobox: [{ field: 'Population', value: '8,900,000' }], lead: 'A city.' },
  { title: 'Ada', redirect: 'Ada Lovelace' },
];

const HOTPOT = [
  {
    _id: '5a8b57f25542995d1e6f1371',
    answer: 'Charles Babbage',
    question: 'Who was born earlier, Ada Lovelace or Charles Babbage?',
    supporting_facts: [
      ['Ada Lovelace', 0],
      ['Charles Babbage', 0],
    ],
    context: [['Ada Lovelace', ['Ada Lovelace was a mathematician.']]],
    type: 'comparison',
    level: 'easy',
  },
];

describe('the user’s own tasks (options.tasks)', () => {
  let dir: string;
  let corpusPath: string;
  const write = (name: string, text: string): string => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };
  const jsonl = (entries: readonly unknown[]): string => entries.map((entry) => JSON.stringify(entry)).join('\n');

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'wiki-tasks-'));
    corpusPath = write('corpus.jsonl', jsonl(CORPUS));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('poses a file’s questions and races with the built-in rewards, and the expert solves them', async () => {
    const tasks = write(
      'mine.jsonl',
      jsonl([
        { question: 'Where was Ada born?', answer: 'London', titles: ['ada'], split: 'train' },
        {
          question: 'Who designed the engine Ada described?',
          answers: ['Charles Babbage', 'Babbage'],
          path: ['Ada Lovelace', 'Charles Babbage'],
          split: 'train',
        },
        { start: 'Ada Lovelace', target: 'Analytical Engine', split: 'train', id: 'my-race' },
      ]),
    );
    const qa = new WikiNavigatorEnv({ corpus: corpusPath, tasks });
    const race = new WikiNavigatorEnv({ corpus: corpusPath, tasks, task: 'race' });
    try {
      expect(qa.availableTasks().map((task) => [task.id, task.kind, task.hops, task.goldPath])).toEqual([
        ['user-qa-000000', 'single', 1, ['Ada Lovelace']], // the redirect "ada" resolved to its article
        ['user-qa-000001', 'bridge', 2, ['Ada Lovelace', 'Charles Babbage']],
      ]);
      for (const taskId of ['user-qa-000000', 'user-qa-000001']) {
        await qa.reset({ seed: 0, options: { taskId } });
        const wrong = await qa.step('SUBMIT(Paris)');
        expect(wrong).toMatchObject({ reward: 0, terminated: true, info: { success: false } });
        const outcome = await runEpisode(qa, new WikiExpert(qa), 0, { taskId });
        expect(outcome).toMatchObject({ success: true, totalReward: 1 });
      }
      const [raceTask] = race.availableTasks();
      expect(raceTask).toMatchObject({
        id: 'my-race',
        kind: 'race',
        hops: 2,
        goldPath: ['Ada Lovelace', 'Charles Babbage', 'Analytical Engine'],
      });
      expect(await runEpisode(race, new WikiExpert(race), 3)).toMatchObject({ success: true, totalReward: 1 });
    } finally {
      await qa.close();
      await race.close();
    }
  });

  it('reads HotpotQA’s JSON as is: its id, type, answer and supporting titles', () => {
    const corpus = readJsonlCorpus(corpusPath);
    const [task] = parseTaskFile(JSON.stringify(HOTPOT), corpus, 'hotpot_dev.json');
    expect(task).toMatchObject({
      id: '5a8b57f25542995d1e6f1371',
      kind: 'comparison',
      answers: ['Charles Babbage'],
      goldPath: ['Ada Lovelace', 'Charles Babbage'],
      hops: 2,
      split: splitOf('Ada Lovelace'), // no split in HotpotQA: the built-in rule on the first article
    });
  });

  it('names a title that is not in the corpus, and drops its task with unknownTitles "skip"', () => {
    const tasks = write(
      'unknown.jsonl',
      jsonl([
        { question: 'Where was Ada born?', answer: 'London', titles: ['Ada Lovelace'], split: 'train' },
        { start: 'Ada Lovelace', target: 'Alan Turing' },
      ]),
    );
    let error: unknown;
    try {
      new WikiNavigatorEnv({ corpus: corpusPath, tasks });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(InvalidOptionsError);
    expect((error as Error).message).toContain(`unknown.jsonl:2: title "Alan Turing" is not in the corpus`);
    expect((error as Error).message).toContain('options.unknownTitles: "skip"');
    const env = new WikiNavigatorEnv({ corpus: corpusPath, tasks, unknownTitles: 'skip' });
    expect(env.availableTasks()).toHaveLength(1);
  });

  it('rejects bad entries by file and line: no answer, a race that cannot be won, a duplicate id', () => {
    const corpus = readJsonlCorpus(corpusPath);
    expect(() => parseTaskFile(jsonl([{ question: 'Who?', titles: ['London'] }]), corpus, 'a.jsonl')).toThrow(
      'a.jsonl:1: a question needs "answer" or "answers"',
    );
    expect(() => parseTaskFile(jsonl([{ start: 'London', target: 'Ada Lovelace' }]), corpus, 'b.jsonl')).toThrow(
      'b.jsonl:1: "Ada Lovelace" cannot be reached from "London"',
    );
    expect(() =>
      parseTaskFile(
        jsonl([
          { id: 'x', question: 'Q?', answer: 'A' },
          { id: 'x', question: 'R?', answer: 'B' },
        ]),
        corpus,
        'c.jsonl',
      ),
    ).toThrow('c.jsonl:2: id "x" is used twice');
    expect(() => parseTaskFile(jsonl([{ question: 'Q?', answer: 'A', split: 'dev' }]), corpus, 'd.jsonl')).toThrow(
      /d\.jsonl:1.*split/,
    );
  });

  it('says at construction when a corpus yields no task for the options, naming the options to use', () => {
    // The case: a 3-article dump gave one test question (Port Hallow is a test subject), no training
    // task and no race.
    const tiny = write(
      'tiny.jsonl',
      jsonl([
        { title: 'Port Hallow', type: 'place', infobox: [{ field: 'Population', value: '48,200' }] },
        { title: 'Veldoria', lead: 'A country.' },
        { title: 'Aldric Venn', lead: 'A person.' },
      ]),
    );
    const make = (options: object): unknown => {
      try {
        return new WikiNavigatorEnv({ corpus: tiny, ...options });
      } catch (error) {
        return error;
      }
    };
    const trainError = make({}) as Error;
    expect(trainError).toBeInstanceOf(InvalidOptionsError);
    expect(trainError.message).toMatch(/no train question .* it has 0 train and 1 test questions/);
    expect(trainError.message).toContain('options.split "test"');
    expect(trainError.message).toContain('options.tasks');
    expect(make({ split: 'test' })).toBeInstanceOf(WikiNavigatorEnv);
    expect((make({ task: 'race', split: 'test' }) as Error).message).toMatch(
      /no test race .* 0 train and 0 test races/,
    );
  });
});
