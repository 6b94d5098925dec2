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

/** The spans of the record's actions, in order. */
export function actionSpans(record: TokenRecord): ActionSpan[] {
  return segmentSpans(record, 'action').map((span, turn) => ({ turn, ...span }));
}

/** The 0/1 loss mask of the record: 1 on action tokens, 0 elsewhere. */
export function lossMask(record: TokenRecord): Uint8Array {
  const mask = new Uint8Array(recordLength(record));
  for (const span of actionSpans(record)) mask.fill(1, span.start, span.end + 1);
  return mask;
}
