import type { EnvSpec, Space, ToolSpec } from '@turngym/spec';
import { parseEnvId } from '../env-id';
import { compileToolSchema } from '../schema-validation';
import type { CheckNote } from './episode-checks';

/**
 * What is wrong with an env's spec (id, summary, turn limit, reward range, spaces, tools); else undefined, or a note
 * when it passes with a limit (tool names some function-calling providers refuse).
 */
export function checkSpec(spec: EnvSpec): string | CheckNote | undefined {
  const problems: string[] = [];
  const notes: string[] = [];
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
    ...spaceProblems(spec.actionSpace, 'actionSpace', notes),
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
  if (problems.length > 0) return problems.join('; ');
  return notes.length > 0 ? { note: notes.join('; ') } : undefined;
}

/**
 * The tool names OpenAI's and Anthropic's function calling accept. An env may offer others (an MCP server's
 * `files.read`: Gemini and MCP take dots): core's parser reads every offered name, in text and in structured calls,
 * so such an env plays; the checker notes which providers' agents cannot call the tool by function calling.
 */
const PORTABLE_TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
/** Longer than MCP's and Gemini's limit, or blank, or with a blank or control character: no provider takes it. */
const MAX_TOOL_NAME = 128;
const UNUSABLE_IN_NAME = /[\s\p{Cc}]/u;

function toolNameProblem(name: unknown, where: string, notes: string[]): string | undefined {
  if (typeof name !== 'string' || name === '')
    return `${where}: tool name ${JSON.stringify(name)} must be a non-empty string`;
  if (name.length > MAX_TOOL_NAME || UNUSABLE_IN_NAME.test(name))
    return `${where}: tool name ${JSON.stringify(name)} must be at most ${MAX_TOOL_NAME} characters without blanks or control characters (no function-calling provider accepts it)`;
  if (!PORTABLE_TOOL_NAME.test(name))
    notes.push(
      `tool name ${JSON.stringify(name)} does not match ${PORTABLE_TOOL_NAME}: OpenAI's and Anthropic's function calling refuse it (text calls and providers such as Gemini take it)`,
    );
  return undefined;
}

function spaceProblems(space: Space, where: string, notes: string[] = []): string[] {
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
        const nameProblem = toolNameProblem(tool?.name, where, notes);
        if (nameProblem) problems.push(nameProblem);
        if (tool?.parameters?.type !== 'object')
          problems.push(`${where}: tool ${tool?.name}'s parameters must be a JSON Schema with type "object"`);
        try {
          compileToolSchema(tool?.parameters);
        } catch (error) {
          problems.push(`${where}: tool ${tool?.name} has an invalid JSON Schema (${(error as Error).message})`);
        }
      }
      if (new Set(space.tools.map((tool) => String(tool?.name).toLowerCase())).size !== space.tools.length)
        problems.push(`${where}: tool names are not unique`);
      break;
    default:
      problems.push(`${where}.type must be text, discrete or tools`);
  }
  return problems;
}
