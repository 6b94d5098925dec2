/**
 * Which tokens carry loss (ALGORITHMS.md §0, "Loss mask"): only tokens the policy wrote. A rollout is
 * stored token-in/token-out as segments in sequence order; prompts, observations (tool results) and
 * Self-AC's critic prompts (§2) were not sampled from the policy, so their mask is 0.
 */
export type SegmentKind = 'prompt' | 'observation' | 'action' | 'critic-prompt' | 'disturbance';

/**
 * `disturbance`: an expert action the recorder deliberately corrupted (DART, `collectExpertTrajectories`'
 * `disturbance`), kept in the sequence so the policy sees a mistake and the env's answer, never trained on.
 */
export const SEGMENT_KINDS: readonly SegmentKind[] = [
  'prompt',
  'observation',
  'action',
  'critic-prompt',
  'disturbance',
];

export interface TokenSegment {
  readonly kind: SegmentKind;
  /** How many tokens of the packed sequence this segment covers. */
  readonly tokenCount: number;
  /**
   * In a rollout with several roles: the role that wrote an action, or that reads a prompt or observation
   * (it ends with that role's cue). Absent otherwise.
   */
  readonly role?: string;
}

/** One rollout's packed token sequence, as segments in order. */
export interface TokenRecord {
  readonly segments: readonly TokenSegment[];
}

/** The tokens of one action, `start` and `end` inclusive (as ALGORITHMS.md §2's a_start, a_end). */
export interface ActionSpan {
  /** Index of the action among the record's actions: its turn k. */
  readonly turn: number;
  readonly start: number;
  readonly end: number;
}

/** Total tokens of a record, after checking every segment. */
export function recordLength(record: TokenRecord): number {
  let length = 0;
  record.segments.forEach((segment, index) => {
    if (!SEGMENT_KINDS.includes(segment.kind)) {
      throw new RangeError(
        `segments[${index}].kind is ${JSON.stringify(segment.kind)}; expected one of ${SEGMENT_KINDS.join(', ')}.`,
      );
    }
    if (!Number.isInteger(segment.tokenCount) || segment.tokenCount < 0) {
      throw new RangeError(`segments[${index}].tokenCount is ${String(segment.tokenCount)}; expected an integer >= 0.`);
    }
    // An empty observation is normal (math thought factors, §6); an empty action is not a turn at all,
    // and would leave a turn without a span.
    if (segment.kind === 'action' && segment.tokenCount === 0) {
      throw new RangeError(`segments[${index}] is an action with 0 tokens; every action has at least one token.`);
    }
    length += segment.tokenCount;
  });
  return length;
}

/** The tokens of each segment of one kind, `start` and `end` inclusive, in order (checked as `recordLength`). */
export function segmentSpans(record: TokenRecord, kind: SegmentKind): { start: number; end: number }[] {
  recordLength(record);
  const spans: { start: number; end: number }[] = [];
  let offset = 0;
  for (const segment of record.segments) {
    if (segment.kind === kind) spans.push({ start: offset, end: offset + segment.tokenCount - 1 });
    offset += segment.tokenCount;
  }
  return spans;
}

/** Which actions a mask or span list keeps: `role` keeps only that role's (a rollout with several roles). */
export interface ActionFilter {
  readonly role?: string;
}

/**
 * The spans of the record's actions, in order; with `role`, only that role's, each keeping its `turn`
 * index among all the record's actions (so it still lines up with per-turn advantages).
 */
export function actionSpans(record: TokenRecord, filter: ActionFilter = {}): ActionSpan[] {
  const spans = segmentSpans(record, 'action').map((span, turn) => ({ turn, ...span }));
  if (filter.role === undefined) return spans;
  const roles = record.segments.filter((segment) => segment.kind === 'action').map((segment) => segment.role);
  return spans.filter((span) => roles[span.turn] === filter.role);
}

/**
 * Whether the record has an action token to train on. A trajectory without one (a prompt past the context
 * before the first action) still counts in its group's reward statistics, but is no update sample.
 */
export function hasActionTokens(record: TokenRecord): boolean {
  return record.segments.some((segment) => segment.kind === 'action' && segment.tokenCount > 0);
}

/** The 0/1 loss mask of the record: 1 on action tokens (of `filter.role` only, when given), 0 elsewhere. */
export function lossMask(record: TokenRecord, filter: ActionFilter = {}): Uint8Array {
  const mask = new Uint8Array(recordLength(record));
  for (const span of actionSpans(record, filter)) mask.fill(1, span.start, span.end + 1);
  return mask;
}

/**
 * Per-token loss weights of a record with several roles: each action token weighs its role's weight
 * (ALGORITHMS.md §4's per-role loss weights; 0 freezes a role, e.g. when each role's adapter is updated on
 * its own), a role not listed and an action without a role weigh 1, everything else 0.
 */
export function roleLossWeights(record: TokenRecord, weights: Readonly<Record<string, number>>): number[] {
  const row = new Array<number>(recordLength(record)).fill(0);
  const roles = record.segments.filter((segment) => segment.kind === 'action').map((segment) => segment.role);
  for (const span of actionSpans(record)) {
    const role = roles[span.turn];
    row.fill(
      role !== undefined && Object.prototype.hasOwnProperty.call(weights, role) ? weights[role]! : 1,
      span.start,
      span.end + 1,
    );
  }
  return row;
}
