import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { Registry } from '@turngym/core';
import { ByteTokenizer, LanguageModel, saveCheckpoint, testConfig, useBackend } from '@turngym/lm';
import { trainGrpo } from '@turngym/trainer-grpo';
import { trainTreeGrpo } from '@turngym/trainer-tree-grpo';
import { DigitEnv } from '../packages/rl/src/__fixtures__/digit-env';
import pinned from './fixtures/trainer-pin.json';

/**
 * Nothing changes for users when trainer code moves (issue 23, item 9): a fixed-seed 3-iteration GRPO and
 * Tree-GRPO run on the cpu backend must write byte-identical checkpoints, metrics and trajectories to the
 * ones recorded in fixtures/trainer-pin.json (see its `producedBy` for the commit that wrote them). Only
 * what differs between two identical runs is left out: the metrics `time/*`, `charts/SPS` and `*_per_second`,
 * and the JSON keys in `UNPINNED`. A deliberate change of what a trainer writes must update the fixture in the same commit
 * and say why (set TURNGYM_PIN_PRINT=1 to print the new digests).
 */

/**
 * JSON keys that differ between two identical runs: wall-clock times, the temporary directories in run.json's
 * args, checkpoint.json's byte lengths of metrics.jsonl and trajectories.jsonl (which hold wall-clock metrics and
 * the episodes' start times and env wall times), and those times themselves.
 */
const UNPINNED = new Set(['savedAt', 'startedAt', 'runDir', 'checkpoint', 'metrics', 'trajectories', 'wallMs']);

function isWallClockMetric(name: string): boolean {
  return name.startsWith('time/') || name === 'charts/SPS' || name.endsWith('per_second');
}

/**
 * JSON.stringify's replacer: drops `UNPINNED` keys and sorts object keys, since key order in run.json and
 * the checkpoint's JSON carries no meaning (a resume compares them as sorted JSON), and the args' order
 * follows the schema's property order, which the trainer kit rearranges.
 */
function canonical(key: string, value: unknown): unknown {
  if (UNPINNED.has(key)) return undefined;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1)));
}

function sha256(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? filesUnder(path) : [path];
    });
}

/**
 * sha256 of every file of a run directory, with wall-clock values taken out first. Not the lock (`.lock`): it names
 * the process writing the run, not what the run wrote.
 */
function runDigests(runDir: string): Record<string, string> {
  const digests: Record<string, string> = {};
  for (const path of filesUnder(runDir)) {
    const name = relative(runDir, path).split('\\').join('/');
    if (name === '.lock') continue;
    const bytes = readFileSync(path);
    if (name === 'metrics.jsonl') {
      const rows = bytes
        .toString('utf8')
        .trim()
        .split('\n')
        .map((line) =>
          JSON.stringify(
            Object.fromEntries(
              Object.entries(JSON.parse(line) as Record<string, number>).filter(([key]) => !isWallClockMetric(key)),
            ),
          ),
        );
      digests[name] = sha256(rows.join('\n'));
    } else if (name === 'trajectories.jsonl') {
      // Each record carries when its episode started and the env's wall time, as every episode record does.
      const rows = bytes
        .toString('utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.stringify(JSON.parse(line), canonical));
      digests[name] = sha256(rows.join('\n'));
    } else if (name.endsWith('.json')) {
      const json = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
      digests[name] = sha256(JSON.stringify(json, canonical));
    } else {
      digests[name] = sha256(bytes);
    }
  }
  return digests;
}

// The cpu backend is plain JavaScript: the same bytes on every machine (wasm's SIMD and the native
// backend may round differently), at the price of speed: about a minute per trainer on a quiet 2-core machine, and
// more than twice that beside another jest worker on a loaded one.
jest.setTimeout(300_000);

describe('trainers pinned byte for byte (fixed seed, 3 iterations, cpu)', () => {
  let dir: string;
  let checkpoint: string;
  // A test env whose rewards vary under an untrained policy (0, 0.2 or 1), so groups are not tied.
  const registry = new Registry();
  registry.register({ id: 'test/digit-v1', entryPoint: () => new DigitEnv({ maxTurns: 3, partialCredit: true }) });
  const common = {
    envId: 'test/digit-v1',
    backend: 'cpu' as const,
    seed: 5,
    iterations: 3,
    promptsPerIteration: 2,
    maxActionTokens: 4,
    maxRolloutTokens: 12,
    minibatchSize: 3,
    evalEvery: 2,
    evalEpisodes: 2,
    trajectoriesEvery: 1,
    quiet: true,
  };

  beforeAll(async () => {
    await useBackend('cpu');
    dir = await mkdtemp(join(tmpdir(), 'turngym-trainer-pin-'));
    checkpoint = join(dir, 'base');
    const model = LanguageModel.create(testConfig({ maxPositions: 256 }), { seed: 3, tokenizer: new ByteTokenizer() });
    await saveCheckpoint(model, checkpoint);
    model.dispose();
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  function expectPinned(algorithm: keyof typeof pinned.runs, runDir: string): void {
    const digests = runDigests(runDir);
    if (process.env.TURNGYM_PIN_PRINT) {
      process.stdout.write(`${algorithm}: ${JSON.stringify(digests, null, 2)}\n`);
      process.stdout.write(readFileSync(join(runDir, 'metrics.jsonl'), 'utf8'));
    }
    expect(digests).toEqual(pinned.runs[algorithm]);
  }

  it('GRPO writes the recorded checkpoint, metrics and trajectories', async () => {
    const runDir = join(dir, 'grpo');
    const result = await trainGrpo({ ...common, checkpoint, runDir, groupSize: 2 }, { registry });
    result.model.dispose();
    expectPinned('grpo', runDir);
  });

  it('Tree-GRPO writes the recorded checkpoint, metrics and trajectories', async () => {
    const runDir = join(dir, 'tree-grpo');
    const result = await trainTreeGrpo(
      { ...common, checkpoint, runDir, trees: 2, branches: 1, rounds: 1 },
      { registry },
    );
    result.model.dispose();
    expectPinned('tree-grpo', runDir);
  });
});
