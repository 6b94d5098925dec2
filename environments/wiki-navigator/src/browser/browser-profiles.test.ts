import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { sweepStaleProfiles } from './browser-profiles';
import { findChromium } from './chromium-executable';
import { processesInGroups } from './chromium-processes';

// A training run rarely ends with pool.close(): these run a browser pool in a child Node process (from dist/,
// so build first) and end that process the ways runs end, then look for what it left behind.
const chromium = findChromium();
const describeBrowser = chromium ? describe : describe.skip;
if (!chromium && process.env.TURNGYM_REQUIRE_CHROMIUM === '1') {
  test('Chromium is installed (TURNGYM_REQUIRE_CHROMIUM=1)', () => {
    throw new Error('no Chromium found; set TURNGYM_CHROMIUM or install chromium');
  });
}
jest.setTimeout(60_000);

const POOL = resolve(__dirname, '../../dist/browser/browser-pool.js');
const PACKAGE = resolve(__dirname, '../../dist/index.js');

interface Child {
  readonly group: number;
  readonly profile: string;
  /** Resolves with the exit code and signal once the child is gone; `output` is what it printed. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string }>;
  readonly pid: number;
}

/** Starts a child whose pool has loaded a page; `then` is code it runs after (e.g. throw). */
async function startChild(then = ''): Promise<Child> {
  const code = `
    const { readFileSync } = require('node:fs');
    const { BrowserPool } = require(${JSON.stringify(POOL)});
    const pool = new BrowserPool({ size: 1 });
    setInterval(() => {}, 1000);
    pool.withPage((page) => page.goto('about:blank')).then(() => {
      const group = pool.browserPid;
      const args = readFileSync('/proc/' + group + '/cmdline', 'utf8').split('\\0');
      const profile = args.find((arg) => arg.startsWith('--user-data-dir=')).slice('--user-data-dir='.length);
      console.log('READY ' + JSON.stringify({ group, profile }));
      ${then}
    });`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string }>((done) =>
    child.on('exit', (exitCode, signal) => done({ code: exitCode, signal, output })),
  );
  const ready = await new Promise<{ group: number; profile: string }>((done, fail) => {
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      const match = /READY (\{.*\})/.exec(output);
      if (match) done(JSON.parse(match[1] as string) as { group: number; profile: string });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then(({ output: printed }) => fail(new Error(`the child exited before its page loaded: ${printed}`)));
  });
  return { ...ready, exited, pid: child.pid as number };
}

describe('sweepStaleProfiles', () => {
  it("removes a dead process's profile, but not one another host's browser holds (a container sharing /tmp)", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'profile-sweep-'));
    try {
      // A pid that was alive and is gone: a child that has exited.
      const gone = spawn(process.execPath, ['-e', '0']);
      await new Promise((done) => gone.once('exit', done));
      const dead = gone.pid as number;
      const ours = join(dir, `turngym-chromium-${dead}-aaaaaa`);
      const theirs = join(dir, `turngym-chromium-${dead}-bbbbbb`);
      for (const profile of [ours, theirs]) mkdirSync(profile);
      symlinkSync(`${hostname()}-${dead}`, join(ours, 'SingletonLock'));
      // Another container's browser: its pids are another namespace's, alive there whatever they are here.
      symlinkSync(`another-container-${dead}`, join(theirs, 'SingletonLock'));
      expect(sweepStaleProfiles(dir)).toEqual([ours]);
      expect([existsSync(ours), existsSync(theirs)]).toEqual([false, true]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describeBrowser('browser profiles when the Node process ends without pool.close()', () => {
  it.each(['SIGTERM', 'SIGINT', 'SIGHUP'] as const)(
    '%s: the browser and its profile are gone, and the signal still ends the process',
    async (signal) => {
      const child = await startChild();
      expect(existsSync(child.profile)).toBe(true);
      process.kill(child.pid, signal);
      const { signal: endedBy } = await child.exited;
      expect(endedBy).toBe(signal);
      expect(existsSync(child.profile)).toBe(false);
      expect(processesInGroups([child.group])).toEqual([]);
    },
  );

  it('an uncaught exception or process.exit(): the profile is gone', async () => {
    for (const then of ['setTimeout(() => { throw new Error("boom"); })', 'process.exit(3)']) {
      const child = await startChild(then);
      const { code, output } = await child.exited;
      expect(code).toBe(then.startsWith('process') ? 3 : 1);
      if (code === 1) expect(output).toContain('boom');
      expect(existsSync(child.profile)).toBe(false);
      expect(processesInGroups([child.group])).toEqual([]);
    }
  });

  it("leaves a signal alone when the program handles it, and cleans up at that program's exit", async () => {
    const child = await startChild(
      `process.on('SIGTERM', () => { console.log('HANDLED'); setTimeout(() => process.exit(0), 3000); });`,
    );
    process.kill(child.pid, 'SIGTERM');
    await new Promise((wait) => setTimeout(wait, 100));
    expect(existsSync(child.profile)).toBe(true); // still running, browser and all, until it decides to exit
    const { code, output } = await child.exited;
    expect({ code, handled: output.includes('HANDLED') }).toEqual({ code: 0, handled: true });
    expect(existsSync(child.profile)).toBe(false);
  });

  it('SIGKILL (the OOM killer): the next launch removes the dead process’s profile', async () => {
    const killed = await startChild();
    process.kill(killed.pid, 'SIGKILL');
    await killed.exited;
    expect(existsSync(killed.profile)).toBe(true); // nothing can run at a SIGKILL
    // Its browser exits by itself once it notices the closed pipe (bounded wait, not a timing assertion).
    for (let i = 0; i < 100 && processesInGroups([killed.group]).length > 0; i++)
      await new Promise((wait) => setTimeout(wait, 50));
    const next = await startChild('process.exit(0)');
    await next.exited;
    expect(existsSync(killed.profile)).toBe(false);
    expect(processesInGroups([killed.group, next.group])).toEqual([]);
  });

  it('a browser-mode env nobody closed lets Node exit once its work is done, leaving nothing behind', async () => {
    // A script that forgets close() used to wait forever on the browser's pipes (direct mode exits at once).
    const script = `
      const { readFileSync } = require('node:fs');
      const { WikiNavigatorEnv, BrowserPool } = require(${JSON.stringify(PACKAGE)});
      const pool = new BrowserPool({ size: 1 });
      const env = new WikiNavigatorEnv({ articles: 200, task: 'race', mode: 'browser' }, { browserPool: pool });
      env.reset({ seed: 1 }).then(async ({ observation }) => {
        const step = await env.step('SCROLL(down)');
        const group = pool.browserPid;
        const args = readFileSync('/proc/' + group + '/cmdline', 'utf8').split('\\0');
        const profile = args.find((arg) => arg.startsWith('--user-data-dir=')).slice('--user-data-dir='.length);
        console.log('DONE ' + JSON.stringify({ group, profile, race: observation.startsWith('Race:') }));
      });`;
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    // A hang is the failure: the bound only ends the test (the script itself takes about a second).
    const guard = setTimeout(() => child.kill('SIGKILL'), 40_000);
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((done) =>
      child.on('exit', (exitCode, exitSignal) => done([exitCode, exitSignal])),
    );
    clearTimeout(guard);
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    const done = JSON.parse(/DONE (\{.*\})/.exec(output)?.[1] ?? 'null') as {
      group: number;
      profile: string;
      race: boolean;
    } | null;
    expect(done?.race).toBe(true);
    expect(existsSync(done?.profile as string)).toBe(false);
    for (let i = 0; i < 100 && processesInGroups([done?.group as number]).length > 0; i++)
      await new Promise((wait) => setTimeout(wait, 50));
    expect(processesInGroups([done?.group as number])).toEqual([]);
  });
});
