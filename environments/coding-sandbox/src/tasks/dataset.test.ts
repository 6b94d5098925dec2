import { SandboxPool } from '../sandbox/sandbox-pool';
import type { SandboxLimits } from '../sandbox/evaluation';
import { hiddenScore, hiddenTestsRequest, visibleTestsRequest, withFiles } from '../task-evaluation';
import type { CodingTask } from './coding-task';
import { loadTasks } from './task-loader';

// Generous limits: this checks the tasks, not the sandbox, and must not flake on a busy machine.
const limits: SandboxLimits = { timeMs: 5000, totalTimeMs: 30000, memoryMb: 64, outputChars: 2000 };
const pool = new SandboxPool({ workers: 2, graceMs: 10000 });
afterAll(() => pool.close());

async function check(task: CodingTask): Promise<string[]> {
  const problems: string[] = [];
  const [good, bad, visible, start] = await Promise.all([
    pool.evaluate(hiddenTestsRequest(task, withFiles(task, task.canonical_solution), limits)),
    pool.evaluate(hiddenTestsRequest(task, withFiles(task, task.wrong_solution), limits)),
    pool.evaluate(visibleTestsRequest(task, withFiles(task, task.canonical_solution), limits)),
    pool.evaluate(visibleTestsRequest(task, task.files, limits)),
  ]);
  const score = hiddenScore(task, good);
  if (score.passed !== score.total)
    problems.push(
      `reference passes ${score.passed}/${score.total} hidden tests: ${JSON.stringify(good.tests.find((test) => test.status !== 'pass') ?? good.loadErrors)}`,
    );
  if (good.tests.length !== task.hidden_tests.length)
    problems.push(`${good.tests.length} hidden tests ran, ${task.hidden_tests.length} expected`);
  const wrong = hiddenScore(task, bad);
  if (wrong.passed === wrong.total) problems.push('the wrong solution passes every hidden test');
  if (visible.tests.length === 0 || visible.tests.some((test) => test.status !== 'pass'))
    problems.push('the reference fails a visible test');
  if (!start.tests.some((test) => test.status !== 'pass') && !start.loadErrors.length)
    problems.push('the starting workspace passes every visible test');
  return problems.map((problem) => `${task.task_id}: ${problem}`);
}

it('every reference solution passes all its tests in the sandbox; every wrong solution and starting workspace fails some', async () => {
  const results = await Promise.all(loadTasks().map(check));
  expect(results.flat()).toEqual([]);
}, 120000);
