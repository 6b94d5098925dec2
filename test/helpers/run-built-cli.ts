import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { assertBuiltUpToDate, builtPackageDirs } from './built-output';

export const REPO_ROOT = join(__dirname, '..', '..');
export const CLI = join(REPO_ROOT, 'packages', 'cli', 'dist', 'bin.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

let cliBuildChecked = false;

/**
 * Throws "run npm run build" unless the CLI, every package it loads and every env plugin it discovers were
 * built after their sources last changed. Checked once per test file; `runBuiltCli` calls it, and a test that
 * spawns `CLI` itself calls it first (e.g. in `beforeAll`).
 */
export function assertCliBuilt(): void {
  if (cliBuildChecked) return;
  assertBuiltUpToDate(builtPackageDirs(['packages/cli'], { plugins: true }));
  cliBuildChecked = true;
}

/**
 * Runs the built `turngym` command as a child process (`node packages/cli/dist/bin.js …`), feeding `input`
 * to its stdin. Asynchronous on purpose: a test may serve a model or an env from this process meanwhile.
 */
export function runBuiltCli(
  args: readonly string[],
  options: { input?: string; cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<CliResult> {
  assertCliBuilt();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: options.cwd ?? REPO_ROOT,
      env: { ...process.env, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.on('error', () => {}); // the CLI may exit before reading all input (e.g. on bad input)
    child.stdin.end(options.input ?? '');
  });
}

/**
 * The lines of stderr that are not plugin-discovery warnings (an env package in the checkout that is not
 * built yet is reported as a warning, which is not what these tests are about).
 */
export function errorLines(stderr: string): string[] {
  return stderr.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('warning: '));
}

/**
 * Starts the built `turngym serve <id> --port 0 …args`, runs `body` against the URL it prints, then stops it
 * with SIGTERM and resolves with its exit code and stderr (the caller asserts on them).
 */
export async function withBuiltServer(
  id: string,
  args: readonly string[],
  body: (url: string) => Promise<void>,
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; stderr: string }> {
  assertCliBuilt();
  const server = spawn(process.execPath, [CLI, 'serve', id, '--port', '0', ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  server.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => server.on('close', (code) => resolve(code)));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let stdout = '';
      server.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        stdout += chunk;
        const found = /^serving \S+ at (http:\/\/\S+)/m.exec(stdout)?.[1];
        if (found) resolve(found);
      });
      void exited.then((code) => reject(new Error(`serve exited (${code}) before listening: ${stderr}`)));
    });
    await body(url);
  } finally {
    server.kill('SIGTERM');
  }
  return { code: await exited, stderr };
}
