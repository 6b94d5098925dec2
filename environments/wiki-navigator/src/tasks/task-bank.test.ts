import { createHash } from 'node:crypto';
import { parseLinks, stripLinks } from '../corpus/article';
import { syntheticCorpus } from '../corpus/synthetic-encyclopedia';
import { normalizeAnswer } from './answer-metrics';
import { splitOf, TaskBank } from './task-bank';
import type { WikiTask } from './wiki-task';

describe('the task bank', () => {
  const corpus = syntheticCorpus({ seed: 5, articles: 1000 });
  const bank = new TaskBank(corpus);
  const all = { kinds: ['single', 'bridge', 'comparison', 'race'] as const, minHops: 1, maxHops: 4 };
  const train = bank.tasks({ ...all, kinds: [...all.kinds], split: 'train' });
  const test = bank.tasks({ ...all, kinds: [...all.kinds], split: 'test' });
  const fieldValue = (title: string, field: string): string | undefined =>
    corpus.get(title)?.infobox.find((entry) => entry.field === field)?.value;

  it('has every kind, bridge and comparison questions at 2, 3 and 4 hops, and races of 2–4 clicks', () => {
    for (const tasks of [train, test]) {
      const kinds = new Set(tasks.map((task) => `${task.kind}:${task.hops}`));
      for (const kind of [
        'single:1',
        'bridge:2',
        'bridge:3',
        'bridge:4',
        'comparison:2',
        'comparison:3',
        'comparison:4',
        'race:2',
        'race:3',
        'race:4',
      ])
        expect(kinds).toContain(kind);
    }
    expect(test.length / (train.length + test.length)).toBeGreaterThan(0.1);
  });

  it('keeps train and test disjoint: no shared question, no test question starting from a train subject', () => {
    const trainQuestions = new Set(train.map((task) => task.question));
    expect(test.some((task) => trainQuestions.has(task.question))).toBe(false);
    const subjects = (tasks: WikiTask[]): Set<string> =>
      new Set(tasks.filter((task) => task.kind !== 'race').map((task) => task.goldPath[0] as string));
    const trainSubjects = subjects(train);
    for (const subject of subjects(test)) expect(trainSubjects.has(subject)).toBe(false);
    for (const task of [...train, ...test])
      if (task.kind === 'race') expect(splitOf(task.start as string)).toBe(task.split);
  });

  it('gives bridge gold paths whose every hop is an infobox link and whose answer is on the last page', () => {
    for (const task of train.filter((candidate) => candidate.kind !== 'race').slice(0, 800)) {
      expect(task.hops).toBe(task.goldPath.length);
      for (const evidence of task.evidence) {
        const value = fieldValue(evidence.title, evidence.field);
        expect(value).toBeDefined();
        if (evidence.role === 'bridge') {
          const next = task.goldPath[task.goldPath.indexOf(evidence.title) + 1] as string;
          expect(corpus.resolve(parseLinks(value as string)[0]?.target as string)).toBe(next);
        }
        if (evidence.role === 'answer')
          expect(task.answers.map(normalizeAnswer)).toContain(normalizeAnswer(stripLinks(value as string)));
      }
      if (task.kind === 'comparison') expect(task.answers).toHaveLength(1);
    }
  });

  it('gives races a shortest path of clicks', () => {
    for (const task of train.filter((candidate) => candidate.kind === 'race').slice(0, 200)) {
      expect(task.goldPath[0]).toBe(task.start);
      expect(task.goldPath[task.hops]).toBe(task.target);
      for (let i = 0; i + 1 < task.goldPath.length; i++)
        expect(corpus.linksOf(task.goldPath[i] as string)).toContain(task.goldPath[i + 1]);
      // Shortest: the target is not reachable in fewer clicks.
      let frontier = new Set([task.start as string]);
      const seen = new Set(frontier);
      for (let depth = 1; depth < task.hops; depth++) {
        const next = new Set<string>();
        for (const title of frontier) {
          for (const target of corpus.linksOf(title)) {
            if (seen.has(target)) continue;
            seen.add(target);
            next.add(target);
          }
        }
        expect(next.has(task.target as string)).toBe(false);
        frontier = next;
      }
    }
  });

  it('is deterministic and looks tasks up by id', () => {
    const again = new TaskBank(corpus).tasks({ ...all, kinds: [...all.kinds], split: 'train' });
    expect(again.map((task) => task.id)).toEqual(train.map((task) => task.id));
    const sample = train[17] as WikiTask;
    expect(bank.get(sample.id)).toEqual(sample);
    expect(bank.get('bridge-999999999')).toBeUndefined();
  });

  it('poses the 2,000-article default world exactly the tasks it always has (every byte, ids and order)', () => {
    // Pinned when task generation was rewritten to stream from a store (linear instead of quadratic in the
    // corpus): ids, order and text of every task of the default world are what runs and results refer to.
    const tasks = new TaskBank(syntheticCorpus({ seed: 1, articles: 2000 })).all();
    expect(tasks).toHaveLength(7486);
    const digest = createHash('sha256')
      .update(tasks.map((task) => JSON.stringify(task)).join('\n'))
      .digest('hex');
    expect(digest).toBe('cb20139a525cb29443e8e2bdfcbf27a383a40f93fbb2b9b947e5bf1c805a4c99');
  });
});
