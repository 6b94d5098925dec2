import { defineOptions, type JSONSchemaType } from '@turngym/core';
import { attentionFromMatrix, type TokenRow } from '@turngym/lm';
import { recordLength, type ChatTurnFormat, type Trajectory } from '@turngym/rl';
import { discountedReturns, type EpisodeVectors } from './episode-vectors';
import { EpisodeTooLongError, PackedEpisodeError } from './self-ac-errors';

/**
 * One episode as one sequence with ShadowPrompt (ALGORITHMS.md §2): sp, up, cp_0, a_0, o_0, cp_1, a_1, …,
 * a_(n−1), o_(n−1), cp_n. The row carries the custom attention mask and positions the lm forward takes
 * (`TokenRow.attention`, `positions`, `predictFrom`), so one forward pass gives log π_θ of every action
 * token and V(s_k) at the end of every cp_k.
 */
export interface PackedEpisode {
  readonly episodeId: string;
  /** The packed row: tokens, ShadowPrompt attention, slide positions, predictors, weights 1 on action tokens. */
  readonly row: Required<Pick<TokenRow, 'tokens' | 'positions' | 'attention' | 'predictFrom' | 'weights'>>;
  /** The rollout's sampling logprob of each packed token (0 off the actions): π_old per token. */
  readonly oldLogprobs: readonly number[];
  readonly vectors: EpisodeVectors;
  /**
   * The episode without critic prompts: the rollout's tokens, plus o_(n−1) when the rollout ended on an
   * action (its final observation is never sampled from, so the collector does not tokenise it).
   */
  readonly stateTokens: readonly number[];
  /** |s_k| for k = 0 … n: state k is `stateTokens.slice(0, stateLengths[k])`. */
  readonly stateLengths: readonly number[];
  /** The critic prompt's tokens (the same for every k). */
  readonly criticPrompt: readonly number[];
}

export interface PackEpisodeOptions {
  /** The model's chat turn format: renders o_(n−1) when the rollout has not. */
  readonly format: ChatTurnFormat;
  /** `criticPromptTokens(tokenizer)`. */
  readonly criticPrompt: readonly number[];
  /** λ of §2, for R. */
  readonly discount: number;
  /** The model's context: positions of cp_n must stay below it (o_(n−1) is cut to make room). */
  readonly maxPositions: number;
  /**
   * Longest packed row (tokens + (n + 1)·|cp|; attention memory grows with its square): a longer episode is
   * cut at the last turn boundary that fits (`vectors.cut`), and one whose first turn does not fit throws
   * `EpisodeTooLongError`. Absent = only the context bounds it.
   */
  readonly maxPackedTokens?: number;
}

/** The numbers of `PackEpisodeOptions` (the format and the critic prompt are objects, checked where used). */
type PackLimits = Pick<PackEpisodeOptions, 'discount' | 'maxPositions' | 'maxPackedTokens'>;

const packLimitsSchema: JSONSchemaType<PackLimits> = {
  type: 'object',
  additionalProperties: false,
  required: ['discount', 'maxPositions'],
  properties: {
    discount: { type: 'number', minimum: 0, maximum: 1 },
    maxPositions: { type: 'integer', minimum: 1 },
    maxPackedTokens: { type: 'integer', minimum: 1, nullable: true },
  },
};

// A discount past 1 or missing would make every return silently wrong (NaN, or λ = 2), and a missing context an
// "undefined positions" refusal of every episode: checked at the boundary, naming the field.
const validatePackLimits = defineOptions<PackLimits>('packEpisode', packLimitsSchema);

/** Where each packed token came from: a state token (index into `stateTokens`) or critic prompt k. */
type Origin = { readonly kind: 'state'; readonly index: number } | { readonly kind: 'critic'; readonly k: number };

/**
 * Packs one rollout record (`turngym.trajectory/v2`, any env) into its Self-AC sequence and episode vectors.
 * Positions (the slide's `pos = [0…9, 10, 11, …, 28, 10, …]`): state tokens count on as if no critic prompt
 * were there; cp_k's tokens continue from the end of s_k. Attention: a state or action token sees every
 * earlier state/action token and no critic-prompt token; a cp_k token sees s_k and cp_k's earlier tokens.
 */
export function packEpisode(trajectory: Trajectory, options: PackEpisodeOptions): PackedEpisode {
  validatePackLimits({
    discount: options.discount,
    maxPositions: options.maxPositions,
    ...(options.maxPackedTokens !== undefined ? { maxPackedTokens: options.maxPackedTokens } : {}),
  });
  const id = trajectory.episodeId;
  if (trajectory.stopReason === 'error')
    throw new PackedEpisodeError(id, 'the env failed in this rollout; it is reported, never trained on.');
  if (options.criticPrompt.length === 0) throw new PackedEpisodeError(id, 'the critic prompt has no tokens.');
  checkRecord(trajectory);
  const actionCount = trajectory.segments.filter((segment) => segment.kind === 'action').length;
  // An action the env never answered (a rollout cut mid-turn) has no reward and no next state: left out.
  const n = Math.min(actionCount, trajectory.steps.length);
  if (n === 0) throw new PackedEpisodeError(id, 'the rollout has no action the env answered.');

  const stateTokens: number[] = [];
  const oldByState: number[] = [];
  const stateLengths: number[] = [];
  const actionSpans: { start: number; end: number }[] = [];
  let offset = 0;
  let actions = 0;
  let endedOnAction = false;
  for (const segment of trajectory.segments) {
    if (segment.kind === 'critic-prompt')
      throw new PackedEpisodeError(id, 'the rollout already holds a critic prompt; pack the plain rollout.');
    if (segment.kind === 'action') {
      if (actions === n) break;
      stateLengths.push(stateTokens.length);
      actionSpans.push({ start: stateTokens.length, end: stateTokens.length + segment.tokenCount - 1 });
      actions += 1;
    }
    for (let t = offset; t < offset + segment.tokenCount; t += 1) {
      stateTokens.push(trajectory.tokens[t] as number);
      oldByState.push(segment.kind === 'action' ? (trajectory.logprobs[t] as number) : 0);
    }
    offset += segment.tokenCount;
    endedOnAction = segment.kind === 'action';
  }
  if (endedOnAction) {
    // o_(n−1) as the model would have seen it, cut so that s_n + cp_n fits the context where it can.
    const last = actionSpans.at(-1)!;
    const action = stateTokens.slice(last.start, last.end + 1);
    const observation = options.format.observationTokens(
      trajectory.steps[n - 1]!.observation,
      options.format.endsTurn(action),
    );
    const room = Math.max(0, options.maxPositions - options.criticPrompt.length - stateTokens.length);
    for (const token of observation.slice(0, room)) {
      stateTokens.push(token);
      oldByState.push(0);
    }
  }
  stateLengths.push(stateTokens.length);
  // A state too long to add the critic prompt inside the context cannot be evaluated (nor can any later
  // one), and a packed row past maxPackedTokens cannot be trained: the packed episode ends at the last state
  // that fits (a turn boundary, `cut`). The returns R still count every reward of the rollout (they are
  // known), and the critic's targets take the known return after the cut (`tdRewards`).
  const cpLength = options.criticPrompt.length;
  const inContext = stateLengths.filter((length) => length + cpLength <= options.maxPositions).length;
  // The same for the packed row: s_k plus the k + 1 critic prompts cp_0 … cp_k (both grow with k).
  const maxPacked = options.maxPackedTokens ?? Number.POSITIVE_INFINITY;
  const fitting = stateLengths
    .slice(0, inContext)
    .filter((length, k) => length + (k + 1) * cpLength <= maxPacked).length;
  // The critic cannot read s_0 (or s_1) with its prompt: like a first turn past maxPackedTokens, nothing of the
  // episode can be trained, and the caller leaves it out and counts it rather than failing the whole batch.
  if (inContext === 0)
    throw new EpisodeTooLongError(id, stateLengths[0]! + cpLength, options.maxPositions, 'maxPositions');
  const allRewards = [...trajectory.steps.slice(0, n).map((step) => step.reward), 0];
  const allReturns = discountedReturns(allRewards, options.discount);
  const m = fitting - 1; // the turns kept
  if (m <= 0 && inContext > 1) {
    // The context holds a turn but maxPackedTokens does not: the caller leaves the episode out and counts it.
    throw new EpisodeTooLongError(id, stateLengths[1]! + 2 * cpLength, maxPacked);
  }
  if (m <= 0) {
    // Only s_0 fits the context with its critic prompt: no action is left to train (and with fitting = 0 not
    // even s_0 fits maxPackedTokens).
    throw fitting === 0
      ? new EpisodeTooLongError(id, stateLengths[0]! + cpLength, maxPacked)
      : new EpisodeTooLongError(id, stateLengths[1]! + cpLength, options.maxPositions, 'maxPositions');
  }
  stateTokens.length = stateLengths[m]!;
  oldByState.length = stateLengths[m]!;
  stateLengths.length = m + 1;
  actionSpans.length = m;

  // The packed order: each cp_k right before a_k (k < n), and cp_n after everything.
  const origins: Origin[] = [];
  let next = 0;
  for (let k = 0; k <= m; k += 1) {
    for (; next < stateLengths[k]!; next += 1) origins.push({ kind: 'state', index: next });
    for (let i = 0; i < options.criticPrompt.length; i += 1) origins.push({ kind: 'critic', k });
  }
  const L = origins.length;
  const tokens = new Array<number>(L);
  const positions = new Array<number>(L);
  const predictFrom = new Array<number>(L);
  const weights = new Array<number>(L).fill(0);
  const oldLogprobs = new Array<number>(L).fill(0);
  const matrix = new Uint8Array(L * L);
  const cpStart: number[] = [];
  const cpEnd: number[] = [];
  const packedIndexOfState = new Array<number>(stateTokens.length);
  const stateKeys: number[] = []; // packed indices of the state tokens so far
  origins.forEach((origin, t) => {
    if (origin.kind === 'state') {
      packedIndexOfState[origin.index] = t;
      tokens[t] = stateTokens[origin.index]!;
      positions[t] = origin.index;
      predictFrom[t] = stateKeys.length > 0 ? stateKeys.at(-1)! : -1;
      oldLogprobs[t] = oldByState[origin.index]!;
      stateKeys.push(t);
      for (const key of stateKeys) matrix[t * L + key] = 1;
      return;
    }
    const first = cpStart.length === origin.k ? t : cpStart[origin.k]!;
    if (first === t) cpStart.push(t);
    const i = t - first;
    tokens[t] = options.criticPrompt[i]!;
    positions[t] = stateLengths[origin.k]! + i;
    predictFrom[t] = -1; // a critic prompt is read, never trained
    for (const key of stateKeys) matrix[t * L + key] = 1;
    for (let key = first; key <= t; key += 1) matrix[t * L + key] = 1;
    if (i === options.criticPrompt.length - 1) cpEnd.push(t);
  });

  const aStart = actionSpans.map((span) => packedIndexOfState[span.start]!);
  const aEnd = actionSpans.map((span) => packedIndexOfState[span.end]!);
  for (let k = 0; k < m; k += 1) weights.fill(1, aStart[k], aEnd[k]! + 1);
  const logPiOld = actionSpans.map((span) => {
    let sum = 0;
    for (let t = span.start; t <= span.end; t += 1) sum += oldByState[t]!;
    return sum;
  });
  const rewards = [...allRewards.slice(0, m), 0];
  return {
    episodeId: id,
    row: { tokens, positions, attention: attentionFromMatrix(matrix), predictFrom, weights },
    oldLogprobs,
    vectors: {
      aStart,
      aEnd,
      cpStart,
      cpEnd,
      piOld: logPiOld.map(Math.exp),
      logPiOld,
      rewards,
      returns: allReturns.slice(0, m + 1),
      discount: options.discount,
      // Only an episode the task itself ended has a terminal last state; the turn limit, a budget or the
      // context cut it short of one.
      terminal: trajectory.stopReason === 'terminated' && m === trajectory.steps.length,
      // Cut short of the rollout (context or maxPackedTokens): its known return closes the critic's targets.
      cut: m < n,
    },
    stateTokens,
    stateLengths,
    criticPrompt: options.criticPrompt,
  };
}

/**
 * Refuses a record whose parts do not line up, naming the episode, before anything is packed from it: the
 * packing reads step k as the answer to action a_k and slices tokens by the segments, so a record that breaks
 * either would pack without an error into wrong vectors — an action of 0 tokens into a_end < a_start (found
 * only later, deep in the loss), tokens or logprobs that the segments do not cover into undefined tokens, a
 * reward that is not a finite number into NaN returns, and an expert record's `disturbance` turns (a step with
 * no action segment, `collectExpertTrajectories`) into rewards and observations shifted one action early, the
 * last reward lost.
 */
function checkRecord(trajectory: Trajectory): void {
  const id = trajectory.episodeId;
  let covered: number;
  try {
    covered = recordLength(trajectory);
  } catch (error) {
    throw new PackedEpisodeError(id, (error as Error).message);
  }
  if (trajectory.tokens.length !== covered || trajectory.logprobs.length !== covered) {
    throw new PackedEpisodeError(
      id,
      `its segments cover ${covered} tokens but it has ${trajectory.tokens.length} tokens and ${trajectory.logprobs.length} logprobs.`,
    );
  }
  if (trajectory.segments.some((segment) => segment.kind === 'disturbance')) {
    throw new PackedEpisodeError(
      id,
      'it holds disturbance turns (an expert record for SFT): their steps have no action of the policy, so its rewards cannot be read per action; Self-AC packs the policy’s own rollouts.',
    );
  }
  // NaN (an env's 0/0 score) would make every return, TD target and so the update's loss NaN (the tensor loss
  // does not check), and a missing one (null) would be read as 0.
  const unreadable = trajectory.steps.findIndex((step) => !Number.isFinite(step.reward));
  if (unreadable >= 0) {
    throw new PackedEpisodeError(
      id,
      `steps[${unreadable}].reward is ${String(trajectory.steps[unreadable]!.reward)}, not a finite number; the env's reward is broken.`,
    );
  }
  const actions = trajectory.segments.filter((segment) => segment.kind === 'action').length;
  if (trajectory.steps.length > actions) {
    throw new PackedEpisodeError(
      id,
      `it has ${trajectory.steps.length} steps but ${actions} actions; step k is the env's answer to action k.`,
    );
  }
}

/**
 * The same episode, turn by turn (what an ordinary actor-critic runs, and what the equality test compares
 * the packed pass to): for each state k a row s_k + cp (V(s_k) at its last token), and the rollout without
 * critic prompts, causal (log π of every action).
 */
export function separateRows(episode: PackedEpisode): { critic: TokenRow[]; actor: TokenRow } {
  return {
    critic: episode.stateLengths.map((length) => ({
      tokens: [...episode.stateTokens.slice(0, length), ...episode.criticPrompt],
    })),
    actor: { tokens: [...episode.stateTokens] },
  };
}
