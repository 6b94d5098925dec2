import { appendFile, mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import {
  compileValidator,
  EPISODE_RECORD_SCHEMA_ID,
  episodeRecordSchema,
  stepRecordSchema,
  type EpisodeRecord,
  type StepRecord,
} from '@turngym/core';
import { SEGMENT_KINDS, type TokenSegment } from './loss-mask';
import { InvalidTrajectoryError } from './rl-errors';
import { upgradeTrajectoryV1 } from './trajectory-v1';

/** v2 extends the episode record (v1 had its own names: `id`, `turns`, `reward`, `toolCalls`, `error` text). */
export const TRAJECTORY_SCHEMA_ID = 'turngym.trajectory/v2';

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

/**
 * One agent step: an episode record's step (`StepRecord`: the action, the observation as the model saw it,
 * possibly cut, the reward, the env's `terminated`/`truncated` and `info`) plus where it sits in the
 * rollout tree and its tokens. `info.fingerprint` and `info.anchor` are the env's hooks, as in every record.
 */
export interface TrajectoryStep extends StepRecord {
  readonly action: string;
  readonly observation: string;
  /** The tree node this step leads to; steps a branch shares with its parent keep the parent's ids. */
  readonly node: string;
  readonly actionTokens: number;
  /** An expert action corrupted on purpose (its tokens are a `disturbance` segment, never trained on). */
  readonly disturbed?: boolean;
  /** The role that took the step, in a rollout with several roles (absent otherwise). */
  readonly role?: string;
  /** False for a role's step that only wrote to the history (a planner's sub-task: no reward, `info` empty). */
  readonly envStep?: boolean;
  /** Context tokens the role's KV cache already held when it sampled this step (rollouts with roles). */
  readonly reusedTokens?: number;
}

/** Where a tree rollout sits in its tree (absent for chains). */
export interface TreePosition {
  /** Index of the tree among its prompt's M trees. */
  readonly tree: number;
  /** The node this rollout branched from (the tree's root node for its first chain). */
  readonly branchedFrom: string;
  /** How many steps of the rollout it shares with the rollout it branched from. */
  readonly sharedTurns: number;
  /** Expansion round: 0 for the initial chain, 1…L for branches. */
  readonly round: number;
}

/**
 * One rollout, token-in/token-out. It extends the episode record (`turngym.episode/v1`): every field of that
 * record is here with the same meaning (`episodeId`, `steps`, `totalReward`, `success`, `cost`, `forkOf`, …;
 * observations are the text the model saw), and `asEpisodeRecord` drops the rest to give a plain episode
 * record. What it adds: the packed sequence exactly as sampled (prompt, then action and observation
 * segments), the sampling logprob of each token (0 outside actions), its place in a batch and a tree, and
 * why and at what token cost it ended. A tree rollout carries its whole sequence, shared prefix included,
 * but counts as spent (`generatedTokens`, `cost`) only what it did itself.
 */
export interface Trajectory extends Omit<EpisodeRecord, 'schema' | 'steps' | 'seed'> {
  readonly schema: typeof TRAJECTORY_SCHEMA_ID;
  readonly steps: readonly TrajectoryStep[];
  /** The env seed: the task (never null: every rollout resets with one). */
  readonly seed: number;
  /** Index of the prompt (group) in its batch. Rollouts of a group share `seed`, the task. */
  readonly group: number;
  readonly tree?: TreePosition;
  readonly tokens: readonly number[];
  readonly segments: readonly TokenSegment[];
  readonly logprobs: readonly number[];
  readonly stopReason: StopReason;
  /** Tokens this rollout's policy calls sampled (its shared prefix excluded). */
  readonly generatedTokens: number;
  /** Tokens run through the model for this rollout (prefill + sampled), after prefix sharing. */
  readonly computedTokens: number;
}

const stepSchema = {
  ...stepRecordSchema,
  required: [...stepRecordSchema.required, 'node', 'actionTokens'],
  properties: {
    ...stepRecordSchema.properties,
    action: { type: 'string' },
    observation: { type: 'string' },
    node: { type: 'string' },
    actionTokens: { type: 'integer', minimum: 0 },
    disturbed: { type: 'boolean' },
    role: { type: 'string' },
    envStep: { type: 'boolean' },
    reusedTokens: { type: 'integer', minimum: 0 },
  },
} as const;

/** The episode record's schema with `schema`, `steps` and the trajectory's own fields: one schema, extended. */
export const trajectorySchema = {
  ...episodeRecordSchema,
  $id: 'https://turngym.dev/schemas/trajectory-v2.json',
  required: [
    ...episodeRecordSchema.required,
    'group',
    'tokens',
    'segments',
    'logprobs',
    'stopReason',
    'generatedTokens',
    'computedTokens',
  ],
  properties: {
    ...episodeRecordSchema.properties,
    schema: { type: 'string', const: TRAJECTORY_SCHEMA_ID },
    seed: { type: 'integer' },
    steps: { type: 'array', items: stepSchema },
    group: { type: 'integer', minimum: 0 },
    tree: {
      type: 'object',
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
    stopReason: { type: 'string', enum: [...STOP_REASONS] },
    generatedTokens: { type: 'integer', minimum: 0 },
    computedTokens: { type: 'integer', minimum: 0 },
  },
} as const;

const validate = compileValidator<Trajectory>(
  trajectorySchema,
  (problems) => new InvalidTrajectoryError(problems.join('; ')),
  'trajectory',
);

/**
 * Checks a trajectory (schema, and that tokens, logprobs, segments and steps agree); throws naming the field.
 * A `turngym.trajectory/v1` record is read as its v2 equivalent (`upgradeTrajectoryV1`).
 */
export function validateTrajectory(input: unknown, where = 'trajectory'): Trajectory {
  let value: Trajectory;
  try {
    value = validate(upgradeTrajectoryV1(input));
  } catch (error) {
    throw new InvalidTrajectoryError(`${where}: ${(error as Error).message}`);
  }
  const total = value.segments.reduce((sum, segment) => sum + segment.tokenCount, 0);
  if (total !== value.tokens.length) {
    throw new InvalidTrajectoryError(`${where}: segments cover ${total} tokens but tokens has ${value.tokens.length}.`);
  }
  if (value.logprobs.length !== value.tokens.length) {
    throw new InvalidTrajectoryError(`${where}: ${value.logprobs.length} logprobs for ${value.tokens.length} tokens.`);
  }
  if (value.turns !== value.steps.length) {
    throw new InvalidTrajectoryError(`${where}: turns is ${value.turns} but steps has ${value.steps.length}.`);
  }
  return value;
}

/**
 * Tool calls of the steps the rollout took itself. `cost`, as on a forked episode's record, covers the whole
 * path; a branch's shared steps were paid for by the rollout it branched from.
 */
export function ownToolCalls(trajectory: Trajectory): number {
  return trajectory.steps
    .slice(trajectory.tree?.sharedTurns ?? 0)
    .reduce((sum, step) => sum + ((step.info.cost as { toolCalls?: number } | undefined)?.toolCalls ?? 0), 0);
}

/** The plain episode record a trajectory extends: its tokens, place and token counts dropped. */
export function asEpisodeRecord(trajectory: Trajectory): EpisodeRecord {
  return {
    schema: EPISODE_RECORD_SCHEMA_ID,
    episodeId: trajectory.episodeId,
    envId: trajectory.envId,
    envVersion: trajectory.envVersion,
    seed: trajectory.seed,
    resetOptions: trajectory.resetOptions,
    agent: trajectory.agent,
    startedAt: trajectory.startedAt,
    instructions: trajectory.instructions,
    initialObservation: trajectory.initialObservation,
    steps: trajectory.steps.map(({ action, observation, reward, terminated, truncated, info }) => ({
      action,
      observation,
      reward,
      terminated,
      truncated,
      info,
    })),
    turns: trajectory.turns,
    totalReward: trajectory.totalReward,
    success: trajectory.success,
    terminated: trajectory.terminated,
    truncated: trajectory.truncated,
    complete: trajectory.complete,
    cost: trajectory.cost,
    forkOf: trajectory.forkOf,
    ...(trajectory.error ? { error: trajectory.error } : {}),
  };
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
        throw new InvalidTrajectoryError(`${path}:${index + 1}: not JSON (${(error as Error).message}).`);
      }
      return validateTrajectory(parsed, `${path}:${index + 1}`);
    });
}
