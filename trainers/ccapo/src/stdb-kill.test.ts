import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Stdb } from './stdb';

const REGISTER = join(__dirname, '..', '..', '..', 'packages', 'rl', 'src', '__fixtures__', 'ts-register.js');
const WRITER = join(__dirname, '__fixtures__', 'stdb-writer.ts');
const EDGES = 20;
const SIZE = 300;

function write(db: string, killBatch: number, killEpisode: number) {
  return new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>(
    (resolve, reject) => {
      const child = spawn(
        process.execPath,
        ['-r', REGISTER, WRITER, db, '3', String(SIZE), String(killBatch), String(killEpisode)],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      child.on('error', reject);
      child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    },
  );
}

function dump(db: string): unknown {
  const stdb = Stdb.open(db, { readonly: true });
  try {
    return {
      globals: stdb.globals(),
      edges: stdb.database.prepare('SELECT * FROM edges ORDER BY anchor, fingerprint').all(),
      nodes: stdb.database.prepare('SELECT * FROM nodes ORDER BY anchor').all(),
    };
  } finally {
    stdb.close();
  }
}

describe('a history store whose process is killed with SIGKILL mid-update', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'turngym-stdb-kill-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps exactly the committed batches, uncorrupted, and a rerun ends where an uninterrupted one does', async () => {
    const killed = join(dir, 'killed.sqlite');
    const reference = join(dir, 'reference.sqlite');
    const [crash, whole] = await Promise.all([write(killed, 2, 250), write(reference, -1, -1)]);
    expect(crash.signal).toBe('SIGKILL');
    expect(whole.code).toBe(0);
    // The open transaction had spilled pages into the WAL when the process died.
    expect(statSync(`${killed}-wal`).size).toBeGreaterThan(0);

    const stdb = Stdb.open(killed);
    try {
      expect(stdb.database.pragma('integrity_check', { simple: true })).toBe('ok');
      // Batches 0 and 1 whole; none of batch 2's 250 handed-over episodes.
      expect(stdb.globals()).toEqual({ episodes: 2 * SIZE, successes: SIZE });
      const sums = stdb.database
        .prepare('SELECT sum(n_total) AS visits, sum(n_succ) AS successes FROM edges')
        .get() as { visits: number; successes: number };
      // Every episode has all of its EDGES edges in, or none: no half-applied episode.
      expect(sums).toEqual({ visits: EDGES * 2 * SIZE, successes: EDGES * SIZE });
    } finally {
      stdb.close();
    }

    const rerun = await write(killed, -1, -1);
    expect(rerun.stdout.trim()).toBe('2'); // it found two batches done and wrote the third
    expect(dump(killed)).toEqual(dump(reference));
  });
});
