import type { EnvSpec, Space, ToolSpec } from '@turngym/spec';
import { parseEnvId } from '../env-id';
import { compileToolSchema } from '../schema-validation';

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
  if (spec.actionSpace?.type === 'tools' && Array.isArray(spec.actionSpace.tools)) {
    const names = (tools: readonly ToolSpec[] | undefined): string =>
      (tools ?? []).map((tool) => tool?.name).join(', ');
    if (names(spec.tools) !== names(spec.actionSpace.tools))
      problems.push(
        `spec.tools (${names(spec.tools)}) must be the tools of the action space (${names(spec.actionSpace.tools)})`,
      );
  }
  return problems.length > 0 ? problems.join('; ') : undefined;
}

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

function spaceProblems(space: Space, where: string): string[] {
  const problems: string[] = [];
  if (typeof space !== 'object' || space === null) return [`${where} is missing`];
  switch (space.type) {
    case 'text':
      if (space.examples && !space.examples.every((example) => typeof example === 'string'))
        problems.push(`${where}.examples must be strings`);
      break;
    case 'discrete':
      if (!Number.isInteger(space.n) || space.n < 1) problems.push(`${where}.n must be a positive integer`);
      if (!Array.isArray(space.labels) || !space.labels.every((label) => typeof label === 'string')) {
        problems.push(`${where}.labels must be an array of n = ${space.n} strings`);
        break;
      }
      if (space.labels.length !== space.n)
        problems.push(`${where}.labels has ${space.labels.length} labels for n = ${space.n}`);
      if (new Set(space.labels).size !== space.labels.length) problems.push(`${where}.labels are not unique`);
      break;
    case 'tools':
      if (!Array.isArray(space.tools)) {
        problems.push(`${where}.tools must be an array of tools { name, description, parameters }`);
        break;
      }
      if (space.tools.length === 0) problems.push(`${where}.tools is empty`);
      for (const tool of space.tools) {
        // OpenAI-style function calling accepts only these names, and arguments that are an object.
        if (typeof tool?.name !== 'string' || !TOOL_NAME.test(tool.name))
          problems.push(`${where}: tool name ${JSON.stringify(tool?.name)} must match ${TOOL_NAME} (function calling)`);
        if (tool?.parameters?.type !== 'object')
          problems.push(`${where}: tool ${tool?.name}'s parameters must be a JSON Schema with type "object"`);
        try {
          compileToolSchema(tool.parameters);
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
