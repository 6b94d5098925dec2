import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from '@turngym/core';
import { register as registerCoding } from '@turngym/env-coding-sandbox';
import { serveEnvs, type ServerHandle } from '@turngym/server';

// The coding env's client-settable options (its registration's clientOptions): a client picks the task and the
// episode's rules and may lower the sandbox's budgets, but cannot name a task file or raise a limit.

const SECRET = 'TOP-SECRET-4412';
const dir = mkdtempSync(join(tmpdir(), 'turngym-coding-client-options-'));
const existing = join(dir, 'tasks.jsonl');
const missing = join(dir, 'absent', 'tasks.jsonl');
writeFileSync(existing, `${JSON.stringify({ task_id: SECRET, prompt: SECRET })}\n`);

const registry = new Registry();
registerCoding(registry);
let server: ServerHandle;

beforeAll(async () => {
  server = await serveEnvs({ registry, ids: ['turngym/coding-sandbox-v1'], port: 0, heartbeatMs: 0 });
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const reset = async (body: unknown): Promise<{ status: number; text: string }> => {
  const response = await fetch(`${server.url}/reset`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, text: await response.text() };
};

describe('client-settable options of turngym/coding-sandbox-v1', () => {
  it('refuses tasksFile identically whether the file exists or not, naming tasksFile', async () => {
    const replies = await Promise.all(
      [existing, missing].map(async (path) => {
        const reply = await reset({ env_options: { tasksFile: path } });
        return { status: reply.status, text: reply.text.split(JSON.stringify(path).slice(1, -1)).join('<path>') };
      }),
    );
    expect(replies[0]).toEqual(replies[1]);
    expect(replies[0]?.status).toBe(422);
    expect(replies[0]?.text).not.toContain(SECRET);
    const [detail] = JSON.parse(replies[0]!.text).detail;
    expect(detail).toMatchObject({ type: 'extra_forbidden', loc: ['body', 'env_options', 'tasksFile'] });
    expect(detail.msg).toContain('cannot be set by clients of this server');
  });

  it('refuses memoryLimitMb and budgets raised past their defaults, naming the option', async () => {
    const memory = await reset({ env_options: { memoryLimitMb: 1024 } });
    expect(memory.status).toBe(422);
    expect(JSON.parse(memory.text).detail).toEqual([
      expect.objectContaining({ type: 'extra_forbidden', loc: ['body', 'env_options', 'memoryLimitMb'] }),
    ]);
    for (const [option, value] of [
      ['timeLimitMs', 60000],
      ['totalTimeLimitMs', 300000],
      ['outputLimit', 100000],
      ['maxFileChars', 1000000],
      ['maxFiles', 200],
    ] as const) {
      const raised = await reset({ env_options: { [option]: value } });
      expect(raised.status).toBe(422);
      expect(JSON.parse(raised.text).detail).toEqual([
        expect.objectContaining({ type: 'less_than_equal', loc: ['body', 'env_options', option] }),
      ]);
    }
  });

  it('passes the task choice, the rules and lowered budgets on to the env', async () => {
    const chosen = await reset({
      seed: 3,
      env_options: {
        split: 'test',
        difficulty: 'easy',
        maxTurns: 5,
        allOrNothing: true,
        formatPenalty: 0.1,
        timeLimitMs: 500,
        totalTimeLimitMs: 2000,
        outputLimit: 1000,
        maxFileChars: 10000,
        maxFiles: 10,
      },
    });
    expect(chosen.status).toBe(200);
    expect(JSON.parse(chosen.text).metadata).toMatchObject({ split: 'test', difficulty: 'easy' });
    expect(JSON.parse(chosen.text).metadata.instructions).toContain('500 ms per test or run');
    const named = await reset({ env_options: { taskId: 'fn/gcd-lcm/gcd' } });
    expect(named.status).toBe(200);
    expect(JSON.parse(named.text).metadata).toMatchObject({ taskId: 'fn/gcd-lcm/gcd' });
  });
});
