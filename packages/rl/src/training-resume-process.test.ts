import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
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
function trainInProcess(dir: string, iterations: number, killAt: number): Promise<ChildResult> {
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

function finished(result: ChildResult): { start: number; weights: Record<string, number[]> } {
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
});
