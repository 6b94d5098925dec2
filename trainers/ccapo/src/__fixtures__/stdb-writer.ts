/**
 * A process that fills a history store for the kill test: `node -r <rl>/ts-register.js stdb-writer.ts <db>
 * <batches> <episodes per batch> <kill at batch> <kill at episode>` records batches <done>… <batches> − 1
 * (<done> = the batches already in the store), each in one `record` call, and SIGKILLs itself inside batch
 * <kill at batch> after handing over <kill at episode> of its episodes (−1: never). Its page cache is tiny, so
 * SQLite spills the open transaction's pages (written every 50 episodes) into the WAL before the kill. Every episode visits EDGES distinct
 * edges; every other one succeeds.
 */
import { Stdb, type StdbEpisode } from '../stdb';

export const EDGES = 20;

function* batch(index: number, size: number, killAt: number): Generator<StdbEpisode> {
  for (let e = 0; e < size; e++) {
    if (e === killAt) process.kill(process.pid, 'SIGKILL');
    const id = index * size + e;
    yield {
      success: id % 2 === 0,
      path: Array.from({ length: EDGES }, (_, t) => ({
        anchor: `loc${(id * 7 + t) % 97}|f${t}`,
        fingerprint: `f${t + 1}:${id % 13}`,
        loop: false,
        stepsToEnd: EDGES - 1 - t,
      })),
    };
  }
}

const [path, batches, size, killBatch, killEpisode] = process.argv.slice(2);
// Rows are written every 50 episodes, so the kill falls after some of the open batch's writes.
const stdb = Stdb.open(path!, { flushEvery: 50 });
stdb.database.pragma('cache_size = 16');
const done = stdb.globals().episodes / Number(size);
for (let b = done; b < Number(batches); b++) {
  stdb.record(batch(b, Number(size), b === Number(killBatch) ? Number(killEpisode) : -1));
}
stdb.close();
process.stdout.write(`${done}\n`);
