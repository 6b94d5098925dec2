/**
 * The committed warm starts: the SFT checkpoints the learning experiments' RL runs start from, kept under
 * `models/<experiment>-warm-start/` so a later trainer starts from the same point without redoing SFT (the
 * math one takes ~40 minutes of one core). Each holds the checkpoint's files and a `manifest.json` saying how it
 * was made (the commands, the commit they ran at), what each file hashes to, and how it scores on the test
 * split, measured as the RL runs measure themselves (`test-scores.ts`).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineOptions, type JSONSchemaType } from '@turngym/core';

/** Where the committed checkpoints live (beside `tiny-1m-copy`, the wiki warm start's pretrained base). */
export const MODELS_DIR = join(__dirname, '..', 'models');

/** The committed warm start of an experiment of `experiments.ts`. */
export const warmStartDir = (experiment: string): string => join(MODELS_DIR, `${experiment}-warm-start`);

export const WARM_START_MANIFEST = 'manifest.json';

/** One SFT stage as it ran: its command and what it measured at its end. */
export interface WarmStartStage {
  /** The command, run from the repository root at the manifest's commit. */
  command: string;
  /** Wall time on the machine that ran it (2 shared cores; one process per stage). */
  seconds: number;
  /** The last epoch's SFT loss and action-token accuracy (the stage's `run/metrics.jsonl`). */
  finalLoss: number;
  actionAccuracy: number;
  /** The stage's own greedy evaluation after its last epoch (its own test seeds), if it ran one. */
  evalSuccessRate?: number;
}

/** A policy's success on the experiment's test tasks. */
export interface WarmStartScore {
  /** `greedy`: one episode per test task, as the RL trainers evaluate; `sampled`: `samples` per task at temperature 1. */
  mode: 'greedy' | 'sampled';
  samples?: number;
  /** Test seeds 0 … tasks − 1 of the env's test split. */
  tasks: number;
  episodes: number;
  successRate: number;
  /** Per episode, in seed order: '1' where it succeeded. */
  wins: string;
  /** The rollout caps and settings it was scored with (the experiment's RL caps). */
  settings: Record<string, unknown>;
}

export interface WarmStartManifest {
  schema: 'turngym.warm-start/v1';
  /** The experiment (`experiments.ts`) whose warm start this is. */
  experiment: string;
  envId: string;
  envOptions: Record<string, unknown>;
  /** What the first stage started from: a built-in config (fresh seeded weights) or a committed checkpoint. */
  base: string;
  /** The commit the commands ran at (the working tree held uncommitted changes of others, none under the SFT path). */
  commit: string;
  /** The day the commands ran (UTC, YYYY-MM-DD). */
  date: string;
  /** Every command, in order, from the repository root: the SFT stages, the copy here, the scoring. */
  commands: string[];
  stages: WarmStartStage[];
  /** File name → sha256 (hex) of every file of the checkpoint besides this manifest. */
  files: Record<string, string>;
  /** The test score, measured by `test-scores.ts`' `scoreOnTestTasks` on the wasm backend. */
  testScore: WarmStartScore;
  sampledScore?: WarmStartScore;
  /** What docs/benchmarks/learning.md reports for the warm start its tables start from, and how this one compares. */
  documented: { successRate: number; note: string };
}

const scoreSchema: JSONSchemaType<WarmStartScore> = {
  type: 'object',
  additionalProperties: false,
  required: ['mode', 'tasks', 'episodes', 'successRate', 'wins', 'settings'],
  properties: {
    mode: { type: 'string', enum: ['greedy', 'sampled'] },
    samples: { type: 'integer', minimum: 1, nullable: true },
    tasks: { type: 'integer', minimum: 1 },
    episodes: { type: 'integer', minimum: 1 },
    successRate: { type: 'number', minimum: 0, maximum: 1 },
    wins: { type: 'string', pattern: '^[01]+$' },
    settings: { type: 'object', required: [] },
  },
};

export const warmStartManifestSchema: JSONSchemaType<WarmStartManifest> = {
  type: 'object',
  additionalProperties: false,
  required: [
    'schema',
    'experiment',
    'envId',
    'envOptions',
    'base',
    'commit',
    'date',
    'commands',
    'stages',
    'files',
    'testScore',
    'documented',
  ],
  properties: {
    schema: { type: 'string', const: 'turngym.warm-start/v1' },
    experiment: { type: 'string', minLength: 1 },
    envId: { type: 'string', minLength: 1 },
    envOptions: { type: 'object', required: [] },
    base: { type: 'string', minLength: 1 },
    commit: { type: 'string', pattern: '^[0-9a-f]{40}$' },
    date: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' },
    commands: { type: 'array', minItems: 1, items: { type: 'string', minLength: 1 } },
    stages: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['command', 'seconds', 'finalLoss', 'actionAccuracy'],
        properties: {
          command: { type: 'string', minLength: 1 },
          seconds: { type: 'number', minimum: 0 },
          finalLoss: { type: 'number' },
          actionAccuracy: { type: 'number', minimum: 0, maximum: 1 },
          evalSuccessRate: { type: 'number', minimum: 0, maximum: 1, nullable: true },
        },
      },
    },
    files: {
      type: 'object',
      required: [],
      additionalProperties: { type: 'string', pattern: '^[0-9a-f]{64}$' },
    },
    testScore: scoreSchema,
    sampledScore: { ...scoreSchema, nullable: true },
    documented: {
      type: 'object',
      additionalProperties: false,
      required: ['successRate', 'note'],
      properties: { successRate: { type: 'number', minimum: 0, maximum: 1 }, note: { type: 'string' } },
    },
  },
};

const validateManifest = defineOptions<WarmStartManifest>('warm-start manifest', warmStartManifestSchema);

/** The manifest of a committed warm start, checked against its schema (`InvalidOptionsError` names the field). */
export function readWarmStartManifest(dir: string): WarmStartManifest {
  return validateManifest(JSON.parse(readFileSync(join(dir, WARM_START_MANIFEST), 'utf8')));
}

export function sha256File(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}
