import type { Action, Agent, AgentEpisodeStart } from '@turngym/spec';
import type { CodingTask } from './tasks/coding-task';
import { loadTasks } from './tasks/task-loader';

function fenceFor(content: string): string {
  let fence = '```';
  while (content.includes(fence)) fence += '`';
  return fence;
}

/** `WRITE_FILE path` with the content in a fenced block (the block syntax an LLM would write). */
export function writeFileAction(path: string, content: string): string {
  const fence = fenceFor(content);
  return `WRITE_FILE ${path}\n${fence}${path.endsWith('.js') ? 'js' : 'ts'}\n${content.replace(/\n$/, '')}\n${fence}`;
}

/**
 * The smallest SEARCH/REPLACE edit turning `before` into `after`: the differing lines, widened with context until the
 * search text occurs once in `before`. Undefined when the files are equal.
 */
export function minimalEdit(before: string, after: string): { search: string; replace: string } | undefined {
  if (before === after) return undefined;
  const a = before.split('\n');
  const b = after.split('\n');
  let prefix = 0;
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix += 1;
  let suffix = 0;
  while (
    suffix < a.length - prefix &&
    suffix < b.length - prefix &&
    a[a.length - 1 - suffix] === b[b.length - 1 - suffix]
  )
    suffix += 1;
  let start = prefix;
  let endA = a.length - suffix;
  let endB = b.length - suffix;
  for (;;) {
    const search = a.slice(start, endA).join('\n');
    const unique = search.trim() !== '' && before.split(search).length - 1 === 1;
    if (unique) return { search, replace: b.slice(start, endB).join('\n') };
    if (start === 0 && endA === a.length) return { search: before, replace: after };
    if (start > 0) start -= 1;
    if (endA < a.length) {
      endA += 1;
      endB += 1;
    }
  }
}

export function editFileAction(path: string, search: string, replace: string): string {
  return `EDIT_FILE ${path}\n<<<<<<< SEARCH\n${search}\n=======\n${replace}\n>>>>>>> REPLACE`;
}

/**
 * The scripted expert: looks the episode's task up by id (in `info.taskId`, or the "Task <id>." line of the first
 * observation) and plays its reference solution — WRITE_FILE for function tasks, minimal EDIT_FILEs for fix tasks —
 * then RUN_TESTS and SUBMIT. Works against a remote env too, as long as it has the same task file.
 */
export class CodingExpert implements Agent<string, Action> {
  readonly name = 'scripted';
  private plan: string[] = [];

  constructor(private readonly tasks: readonly CodingTask[] = loadTasks()) {}

  async start(episode: AgentEpisodeStart<string>): Promise<void> {
    const fromInfo = typeof episode.info.taskId === 'string' ? episode.info.taskId : undefined;
    const fromText = /Task (\S+?)\.\s*$/.exec(episode.observation)?.[1];
    const task = this.tasks.find((candidate) => candidate.task_id === (fromInfo ?? fromText));
    this.plan = task ? this.planFor(task) : ['SUBMIT'];
  }

  private planFor(task: CodingTask): string[] {
    const steps: string[] = [];
    for (const [path, content] of Object.entries(task.canonical_solution)) {
      const current = task.files[path];
      if (current === content) continue;
      // Fix tasks get the targeted edit a careful programmer makes; function tasks get the whole file written.
      const edit = task.kind === 'fix' && current !== undefined ? minimalEdit(current, content) : undefined;
      steps.push(
        edit && edit.search !== current
          ? editFileAction(path, edit.search, edit.replace)
          : writeFileAction(path, content),
      );
    }
    steps.push('RUN_TESTS', 'SUBMIT');
    return steps;
  }

  async act(): Promise<Action> {
    return this.plan.shift() ?? 'SUBMIT';
  }
}
