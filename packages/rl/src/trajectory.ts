import { appendFile, mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { compileValidator, type JSONSchemaType } from '@turngym/core';
import { SEGMENT_KINDS, type TokenSegment } from './loss-mask';

export const TRAJECTORY_SCHEMA_ID = 'turngym.trajectory/v1';

/** Why a rollout ended. */
export type StopReason =
  /** The task ended (solved, failed, answered): `terminated`. */
  | 'terminated'
  /** The env cut it short (its turn limit or budget): `truncated`. */
  | 'truncated'
  /** The rollout spent its own token budget. */
  | 'rollout-tokens'
  /** The rollout spent its tool-call budget. */
  | 'tool-calls'
  /** Its prompt's token budget was spent (by it and its siblings). */
  | 'prompt-tokens'
  /** The next action would not fit in the model's context. */
  | 'context'
  /** The env failed (threw); the rollout is reported, never trained on. */
  | 'error';

export const STOP_REASONS: readonly StopReason[] = [
  'terminated',
  'truncated',
  'rollout-tokens',
  'tool-calls',
  'prompt-tokens',
  'context',
  'error',
];

/** One agent step: an action, what the env said, and the node of the rollout tree it created. */
export interface TurnRecord {
  /** The tree node this turn leads to; turns a branch shares with its parent keep the parent's ids. */
  readonly node: string;
  readonly action: string;
  readonly observation: string;
  readonly reward: number;
  readonly actionTokens: number;
  readonly fingerprint?: string;
  readonly anchor?: string;
  /** An expert action corrupted on purpose (its tokens are a `disturbance` segment, never trained on). */
  readonly disturbed?: boolean;
  /** The role that took the turn, in a rollout with several roles (absent otherwise). */
  readonly role?: string;
  /** False for a role's turn that only wrote to the history (a planner's sub-task; no reward, no observation). */
  readonly envStep?: boolean;
  /** Context tokens the role's KV cache already held when it sampled this turn (rollouts with roles). */
  readonly reusedTokens?: number;
}

/** Where a tree rollout sits in its tree (absent for chains). */
export interface TreePosition {
  /** Index of the tree among its prompt's M trees. */
  readonly tree: number;
  /** The node this rollout branched from (the tree's root node for its first chain). */
  readonly branchedFrom: string;
  /** How many turns of the rollout it shares with the rollout it branched from. */
  readonly sharedTurns: number;
  /** Expansion round: 0 for the initial chain, 1…L for branches. */
  readonly round: number;
}

/**
 * One rollout, token-in/token-out: the packed sequence exactly as sampled (prompt, then action and
 * observation segments), the sampling logprob of each token (0 outside actions), and the turns as text.
 * A tree rollout carries its whole sequence, shared prefix included, but counts as spent only the
 * tokens it generated itself.
 */
export interface Trajectory {
  readonly schema: typeof TRAJECTORY_SCHEMA_ID;
  readonly id: string;
  readonly envId: string;
  /** The env seed: the task. Rollouts of a group (a prompt) share it. */
  readonly seed: number;
  /** Index of the prompt (group) in its batch. */
  readonly group: number;
  readonly tree?: TreePosition;
  readonly tokens: readonly number[];
  readonly segments: readonly TokenSegment[];
  readonly logprobs: readonly number[];
  readonly turns: readonly TurnRecord[];
  /** The episode's return: the sum of its rewards. */
  readonly reward: number;
  /** `info.success` at the end, when the env reported it. */
  readonly success: boolean | null;
  readonly stopReason: StopReason;
  /** Tokens this rollout's policy calls sampled (its shared prefix excluded). */
  readonly generatedTokens: number;
  /** Tokens run through the model for this rollout (prefill + sampled), after prefix sharing. */
  readonly computedTokens: number;
  /** Tool calls the env counted (info.cost.toolCalls), shared prefix excluded. */
  readonly toolCalls: number;
  /** The env's error message when stopReason is `error`. */
  readonly error?: string;
}

const turnSchema: JSONSchemaType<TurnRecord> = {
  type: 'object',
  additionalProperties: false,
  required: ['node', 'action', 'observation', 'reward', 'actionTokens'],
  properties: {
    node: { type: 'string' },
    action: { type: 'string' },
    observation: { type: 'string' },
    reward: { type: 'number' },
    actionTokens: { type: 'integer', minimum: 0 },
    fingerprint: { type: 'string', nullable: true },
    anchor: { type: 'string', nullable: true },
    disturbed: { type: 'boolean', nullable: true },
    role: { type: 'string', nullable: true },
    envStep: { type: 'boolean', nullable: true },
    reusedTokens: { type: 'integer', minimum: 0, nullable: true },
  },
};

export const trajectorySchema: JSONSchemaType<Trajectory> = {
  $id: TRAJECTORY_SCHEMA_ID,
  type: 'object',
  additionalProperties: false,
  required: [
    'schema',
    'id',
    'envId',
    'seed',
    'group',
    'tokens',
    'segments',
    'logprobs',
    'turns',
    'reward',
    'success',
    'stopReason',
    'generatedTokens',
    'computedTokens',
    'toolCalls',
  ],
  properties: {
    schema: { type: 'string', const: TRAJECTORY_SCHEMA_ID },
    id: { type: 'string' },
    envId: { type: 'string' },
    seed: { type: 'integer' },
    group: { type: 'integer', minimum: 0 },
    tree: {
      type: 'object',
      nullable: true,
      additionalProperties: false,
      required: ['tree', 'branchedFrom', 'sharedTurns', 'round'],
      properties: {
        tree: { type: 'integer', minimum: 0 },
        branchedFrom: { type: 'string' },
        sharedTurns: { type: 'integer', minimum: 0 },
        round: { type: 'integer', minimum: 0 },
      },
    },
    tokens: { type: 'array', items: { type: 'integer', minimum: 0 } },
    segments: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['kind', 'tokenCount'],
        properties: {
          kind: { type: 'string', enum: [...SEGMENT_KINDS] },
          tokenCount: { type: 'integer', minimum: 0 },
          role: { type: 'string' },
        },
      },
    },
    logprobs: { type: 'array', items: { type: 'number' } },
    turns: { type: 'array', items: turnSchema },
    reward: { type: 'number' },
    success: { type: 'boolean', nullable: true },
    stopReason: { type: 'string', enum: [...STOP_REASONS] },
    generatedTokens: { type: 'integer', minimum: 0 },
    computedTokens: { type: 'integer', minimum: 0 },
    toolCalls: { type: 'integer', minimum: 0 },
    error: { type: 'string', nullable: true },
  },
} as unknown as JSONSchemaType<Trajectory>;

const validate = compileValidator<Trajectory>(
  trajectorySchema,
  (problems) => new RangeError(problems.join('; ')),
  'trajectory',
);

/** Checks a trajectory (schema, and that tokens, logprobs and segments agree); throws naming the field. */
export function validateTrajectory(input: unknown, where = 'trajectory'): Trajectory {
  let value: Trajectory;
  try {
    value = validate(input);
  } catch (error) {
    throw new RangeError(`${where}: ${(error as Error).message}`);
  }
  const total = value.segments.reduce((sum, segment) => sum + segment.tokenCount, 0);
  if (total !== value.tokens.length) {
    throw new RangeError(`${where}: segments cover ${total} tokens but tokens has ${value.tokens.length}.`);
  }
  if (value.logprobs.length !== value.tokens.length) {
    throw new RangeError(`${where}: ${value.logprobs.length} logprobs for ${value.tokens.length} tokens.`);
  }
  return value;
}

/** Appends trajectories to a JSONL file, one a line (the directory is created). */
export async function appendTrajectories(path: string, trajectories: readonly Trajectory[]): Promise<void> {
  if (trajectories.length === 0) return;
  await mkdir(dirname(path), { recursive: true });
  await appendFile(path, trajectories.map((trajectory) => `${JSON.stringify(trajectory)}\n`).join(''));
}

/** Reads and validates a trajectories JSONL file; an error names the line. */
export async function readTrajectories(path: string): Promise<Trajectory[]> {
  const text = await readFile(path, 'utf8');
  return text
    .split('\n')
    .map((line, index) => ({ line, index }))
    .filter(({ line }) => line.trim() !== '')
    .map(({ line, index }) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch (error) {
        throw new RangeError(`${path}:${index + 1}: not JSON (${(error as Error).message}).`);
      }
      return validateTrajectory(parsed, `${path}:${index + 1}`);
    });
}
