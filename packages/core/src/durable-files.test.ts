import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeFileAtomically } from './durable-files';

describe('writeFileAtomically', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'turngym-durable-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('lets two writes of one path in one process both finish, the file holding one of them whole', async () => {
    const file = join(dir, 'page.html');
    const results = await Promise.allSettled([
      writeFileAtomically(file, 'a'.repeat(100_000)),
      writeFileAtomically(file, 'b'.repeat(100_000)),
    ]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'fulfilled']);
    expect(['a'.repeat(100_000), 'b'.repeat(100_000)]).toContain(readFileSync(file, 'utf8'));
    expect(readdirSync(dir)).toEqual(['page.html']);
  });

  it('leaves no temporary file behind when the write fails', async () => {
    const file = join(dir, 'taken');
    mkdirSync(file); // a directory where the file goes: the rename fails
    await expect(writeFileAtomically(file, 'data')).rejects.toMatchObject({ code: expect.any(String) });
    expect(readdirSync(dir)).toEqual(['taken']);
  });
});
