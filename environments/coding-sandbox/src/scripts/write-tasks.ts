#!/usr/bin/env node
/** `npm run build:tasks`: regenerates data/tasks.jsonl from the generator (a test checks the file is in sync). */
import { writeFileSync } from 'node:fs';
import { buildTasks, tasksToJsonl } from '../tasks/generator/build-tasks';
import { DEFAULT_TASKS_FILE, parseTasks } from '../tasks/task-loader';

const text = tasksToJsonl(buildTasks());
const tasks = parseTasks(text, 'generated tasks');
writeFileSync(DEFAULT_TASKS_FILE, text);
const count = (kind: string, split: string): number =>
  tasks.filter((task) => task.kind === kind && task.split === split).length;
process.stdout.write(
  `wrote ${tasks.length} tasks to ${DEFAULT_TASKS_FILE}: function ${count('function', 'train')} train + ${count('function', 'test')} test, fix ${count('fix', 'train')} train + ${count('fix', 'test')} test\n`,
);
