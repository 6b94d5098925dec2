import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const FIXTURES = join(__dirname, '__fixtures__');

interface ChildResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs __fixtures__/killable-run.ts in its own node process, from source (see ts-register.js). */
function trainInProcess(
  dir: string,
  iterations: number,
  killAt: number,
  where: 'metrics' | 'save' = 'metrics',
): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        '-r',
        join(FIXTURES, 'ts-register.js'),
        join(FIXTURES, 'killable-run.ts'),
        dir,
        String(iterations),
        String(killAt),
        where,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

interface Finished {
  readonly start: number;
  readonly weights: Record<string, number[]>;
  readonly critic?: Record<string, number[]>;
  readonly statistics?: Record<string, { visits: number; lossSum: number }>;
  readonly events?: string;
}

function finished(result: ChildResult): Finished {
  if (result.code !== 0)
    throw new Error(`the training process failed (${result.code ?? result.signal}):\n${result.stderr}`);
  return JSON.parse(result.stdout);
}

describe('a training process killed with SIGKILL', () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'turngym-kill-'));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('resumes where its last checkpoint left it and ends as an uninterrupted run does', async () => {
    const killedDir = join(root, 'killed');
    const referenceDir = join(root, 'reference');
    const [killed, reference] = await Promise.all([
      trainInProcess(killedDir, 5, 2),
      trainInProcess(referenceDir, 5, -1),
    ]);
    expect(killed.signal).toBe('SIGKILL');
    const uninterrupted = finished(reference);
    expect(uninterrupted.start).toBe(0);

    const resumed = finished(await trainInProcess(killedDir, 5, -1));
    expect(resumed.start).toBe(2); // iteration 2 had its metrics row written, not its checkpoint: redone
    expect(resumed.weights).toEqual(uninterrupted.weights);
    for (const file of ['metrics.jsonl', 'trajectories.jsonl']) {
      expect(readFileSync(join(killedDir, file), 'utf8')).toBe(readFileSync(join(referenceDir, file), 'utf8'));
    }
    const iterations = readFileSync(join(killedDir, 'metrics.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line).iteration);
    expect(iterations).toEqual([0, 1, 2, 3, 4]);
  }, 120_000);

  it('killed inside a save of two adapters and two stores, resumes from the last whole checkpoint bit-exact', async () => {
    const killedDir = join(root, 'killed-attached');
    const referenceDir = join(root, 'reference-attached');
    const [killed, reference] = await Promise.all([
      trainInProcess(killedDir, 5, 2, 'save'),
      trainInProcess(referenceDir, 5, -1, 'save'),
    ]);
    expect(killed.signal).toBe('SIGKILL');
    // The kill left a temporary holding both adapters and both stores but no manifest, and an events
    // file already holding iteration 2's line: neither may leak into the resumed run.
    expect(readdirSync(killedDir).some((name) => name.startsWith('.checkpoint-tmp-'))).toBe(true);
    expect(readFileSync(join(killedDir, 'events.log'), 'utf8').trim().split('\n')).toHaveLength(3);
    const uninterrupted = finished(reference);

    const resumed = finished(await trainInProcess(killedDir, 5, -1, 'save'));
    expect(resumed.start).toBe(2);
    expect(resumed.weights).toEqual(uninterrupted.weights);
    expect(resumed.critic).toEqual(uninterrupted.critic);
    expect(Object.keys(resumed.critic ?? {}).length).toBeGreaterThan(0);
    expect(resumed.statistics).toEqual(uninterrupted.statistics);
    expect(resumed.events).toBe(uninterrupted.events);
    expect(resumed.events?.trim().split('\n')).toHaveLength(5);
    for (const file of ['metrics.jsonl', 'trajectories.jsonl']) {
      expect(readFileSync(join(killedDir, file), 'utf8')).toBe(readFileSync(join(referenceDir, file), 'utf8'));
    }
    expect(readdirSync(join(killedDir, 'checkpoint')).sort()).toEqual([
      'adapter',
      'checkpoint.json',
      'stores',
      'trainer',
      'trainers',
    ]);
  }, 120_000);
});
