/** Task kinds: single-hop facts, HotpotQA-style bridge and comparison questions, and navigation races. */
export type TaskKind = 'single' | 'bridge' | 'comparison' | 'race';

export type TaskSplit = 'train' | 'test';

/** One infobox field the gold solution reads, and why. */
export interface TaskEvidence {
  readonly title: string;
  readonly field: string;
  /** `bridge`: its link leads to the next page; `answer`: it holds the answer; `compare`: a compared value. */
  readonly role: 'bridge' | 'answer' | 'compare';
}

export interface WikiTask {
  /** Stable within a corpus, e.g. `bridge-000412`. */
  readonly id: string;
  readonly kind: TaskKind;
  readonly split: TaskSplit;
  /** The question (QA) or the instruction (race) shown to the agent. */
  readonly question: string;
  /** Gold answers (aliases); for a race, the target title. */
  readonly answers: readonly string[];
  /** Articles in the order the gold solution reads them; for a race, start … target. */
  readonly goldPath: readonly string[];
  /** QA: articles that must be read (1 for single-hop, 2–4 otherwise); race: links to click. */
  readonly hops: number;
  readonly evidence: readonly TaskEvidence[];
  /** Comparison questions: which value wins. */
  readonly prefer?: 'smaller' | 'larger';
  /** Race: where the episode starts and which article ends it. */
  readonly start?: string;
  readonly target?: string;
}
