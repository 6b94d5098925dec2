import type { EnvSpec, Space } from '@turngym/spec';
import { parseEnvId } from '../env-id';
import { ajv } from '../schema-validation';

/** What is wrong with an env's spec (id, summary, turn limit, reward range, spaces, tools), or undefined. */
export function checkSpec(spec: EnvSpec): string | undefined {
  const problems: string[] = [];
  if (spec.specificationVersion !== 'v1')
    problems.push(`specificationVersion is ${String(spec.specificationVersion)}, expected 'v1'`);
  try {
    parseEnvId(spec.id);
  } catch (error) {
    problems.push((error as Error).message);
  }
  if (!spec.summary) problems.push('summary is empty');
  if (!Number.isInteger(spec.maxTurns) || spec.maxTurns < 1) problems.push('maxTurns must be a positive integer');
  const [low, high] = spec.rewardRange ?? [];
  if (!(typeof low === 'number' && typeof high === 'number' && low <= high))
    problems.push('rewardRange must be [low, high]');
  problems.push(
    ...spaceProblems(spec.actionSpace, 'actionSpace'),
    ...spaceProblems(spec.observationSpace, 'observationSpace'),
  );
  if (spec.actionSpace.type === 'tools' && (spec.tools?.length ?? 0) !== spec.actionSpace.tools.length)
    problems.push('spec.tools must list the tools of the action space');
  return problems.length > 0 ? problems.join('; ') : undefined;
}

function spaceProblems(space: Space, where: string): string[] {
  const problems: string[] = [];
  switch (space.type) {
    case 'text':
      if (space.examples && !space.examples.every((example) => typeof example === 'string'))
        problems.push(`${where}.examples must be strings`);
      break;
    case 'discrete':
      if (!Number.isInteger(space.n) || space.n < 1) problems.push(`${where}.n must be a positive integer`);
      if (space.labels.length !== space.n)
        problems.push(`${where}.labels has ${space.labels.length} labels for n = ${space.n}`);
      if (new Set(space.labels).size !== space.labels.length) problems.push(`${where}.labels are not unique`);
      break;
    case 'tools':
      if (space.tools.length === 0) problems.push(`${where}.tools is empty`);
      for (const tool of space.tools) {
        try {
          ajv.compile(tool.parameters);
        } catch (error) {
          problems.push(`${where}: tool ${tool.name} has an invalid JSON Schema (${(error as Error).message})`);
        }
      }
      if (new Set(space.tools.map((tool) => tool.name.toLowerCase())).size !== space.tools.length)
        problems.push(`${where}: tool names are not unique`);
      break;
    default:
      problems.push(`${where}.type must be text, discrete or tools`);
  }
  return problems;
}
