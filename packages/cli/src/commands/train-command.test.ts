import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { captureIo } from '../__fixtures__/capture-io';
import { runCli } from '../program';

/**
 * A stand-in GRPO trainer: it "trains" `doneIterations` of what it was asked, and a SIGINT (Ctrl-C) arrives while it
 * runs, before it returns: what a user who presses Ctrl-C during the last iteration sees. Its validator fills the
 * default of `iterations` (20) as the real one does.
 */
const fake = { doneIterations: 0, generatedTokens: 0 };
jest.mock('../optional-modules', () => {
  const actual = jest.requireActual('../optional-modules');
  return {
    ...actual,
    loadTrainer: (name: string) => {
      if (name !== 'grpo') return actual.loadTrainer(name);
      return {
        validateGrpoArgs: (args: Record<string, unknown>) => ({ iterations: 20, ...args }),
        trainGrpo: async (args: Record<string, unknown>, hooks: { signal: AbortSignal }) => {
          process.emit('SIGINT', 'SIGINT');
          expect(hooks.signal.aborted).toBe(true);
          return {
            iterations: fake.doneIterations,
            generatedTokens: fake.generatedTokens,
            testSuccessRate: 0.5,
            model: { dispose: () => undefined },
            args,
          };
        },
      };
    },
  };
});

describe('turngym train stopped by a signal', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'turngym-cli-train-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const train = async (extra: string[], done: number, tokens = 100) => {
    fake.doneIterations = done;
    fake.generatedTokens = tokens;
    const runDir = join(dir, 'run');
    const io = captureIo();
    const code = await runCli(['train', 'grpo', '--env', 'turngym/example-v1', '--run-dir', runDir, ...extra], io);
    const stderr = io
      .output()
      .stderr.split('\n')
      .filter((line) => line !== '' && !line.startsWith('warning: '));
    return { code, runDir, stderr };
  };

  // Ctrl-C during the last iteration: the iteration is finished and saved, and so is the run. "Run the same command
  // again to resume" sent the user to a command with nothing left to do.
  it('says the run finished when the signal came during its last iteration, of the iterations asked or defaulted', async () => {
    for (const [extra, done] of [
      [['--iterations', '3'], 3],
      [[], 20],
    ] as const) {
      const { code, runDir, stderr } = await train([...extra], done);
      expect(code).toBe(130);
      expect(stderr).toEqual([
        'SIGINT: finishing the iteration in flight and saving its checkpoint; Ctrl-C again quits now',
        `interrupted (SIGINT), but the run is finished: ${done} iterations done, checkpoint in ${runDir}; there is nothing left to resume`,
      ]);
    }
  });

  it('says the run finished once its token budget is spent, and how to resume a run it stopped early', async () => {
    const spent = await train(['--iterations', '10', '--token-budget', '500'], 4, 512);
    expect(spent.stderr[1]).toMatch(/^interrupted \(SIGINT\), but the run is finished: 4 iterations done/);
    const stopped = await train(['--iterations', '10', '--token-budget', '500'], 4, 300);
    expect(stopped.code).toBe(130);
    expect(stopped.stderr[1]).toBe(
      `interrupted (SIGINT): 4 iterations done, checkpoint in ${stopped.runDir}; run the same command again to resume`,
    );
  });
});
