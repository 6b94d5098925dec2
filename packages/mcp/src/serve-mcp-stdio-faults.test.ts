import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const CLI = path.join(__dirname, '__fixtures__', 'run-cli-from-source.js');
const PLUGIN = path.join(__dirname, '__fixtures__', 'crashing-env-plugin.js');
const ID = 'fixture/crashing-v1';

interface TextResult {
  isError: boolean;
  text: string;
}

/**
 * `turngym serve <id> --mcp` started as an MCP host starts it (a process on stdio, with the process-level fault
 * handlers), driven by the SDK's own stdio client.
 */
async function startServe(): Promise<{
  call: (name: string, args: Record<string, unknown>) => Promise<TextResult>;
  stderr: () => string;
  /** Resolves once stderr holds `text` (the fault handler logs a fault before it acts on it, in one tick). */
  logged: (text: string) => Promise<void>;
  exited: () => number | null;
  stop: () => Promise<void>;
}> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'serve', ID, '--plugin', PLUGIN, '--mcp'],
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => void (stderr += chunk.toString('utf8')));
  const client = new Client({ name: 'stdio-fault-test', version: '1.0.0' });
  await client.connect(transport);
  // What the client learns when the server goes away: the process's exit code.
  let code: number | null = null;
  const child = (transport as unknown as { _process?: NodeJS.EventEmitter })._process;
  child?.once('exit', (exitCode: number | null) => void (code = exitCode));
  return {
    call: async (name, args) => {
      const result = await client.callTool({ name, arguments: args });
      const content = result.content as Array<{ type: string; text: string }>;
      return { isError: result.isError === true, text: content.map((part) => part.text).join('\n') };
    },
    stderr: () => stderr,
    logged: (text) =>
      new Promise<void>((resolve) => {
        const check = (): void => void (stderr.includes(text) && resolve());
        transport.stderr?.on('data', check);
        check();
      }),
    exited: () => code,
    stop: () => client.close(),
  };
}

describe('turngym serve --mcp (stdio) when the env fails outside a call', () => {
  it('answers the call in flight and the next steps with the fault, keeps serving, and a reset gives a fresh env', async () => {
    const serve = await startServe();
    try {
      expect(await serve.call('reset', {})).toEqual({ isError: false, text: 'Say something.' });
      // The step waits on what crashed (a browser, a sandbox): its answer is the fault, not silence.
      const inFlight = await serve.call('act', { text: 'crash-mid-step' });
      expect(inFlight).toEqual({
        isError: true,
        text: expect.stringMatching(/^ENV_FAULT: The env failed \(Error: the browser crashed mid-step\).*call reset/),
      });
      expect(await serve.call('act', { text: 'anyone there?' })).toEqual(inFlight);
      expect(await serve.call('reset', {})).toEqual({ isError: false, text: 'Say something.' });
      expect(await serve.call('act', { text: 'hello' })).toEqual({ isError: false, text: 'echo: hello\n\n[reward 0]' });

      // A fault after the step answered: the next step says so.
      expect((await serve.call('act', { text: 'throw-later' })).isError).toBe(false);
      await serve.logged('the sandbox process died');
      expect(await serve.call('act', { text: 'ping' })).toEqual({
        isError: true,
        text: expect.stringMatching(/^ENV_FAULT: The env failed \(Error: the sandbox process died\)/),
      });
      expect(await serve.call('reset', {})).toEqual({ isError: false, text: 'Say something.' });
      expect(await serve.call('act', { text: 'still here' })).toEqual({
        isError: false,
        text: 'echo: still here\n\n[reward 0]',
      });
      expect(serve.exited()).toBeNull();
      expect(serve.stderr()).toMatch(
        /uncaught exception in the env code of MCP session .*the browser crashed mid-step/,
      );
    } finally {
      await serve.stop();
    }
  });
});
