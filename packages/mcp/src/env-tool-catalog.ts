import { compileToolSchema, describeErrors } from '@turngym/core';
import { InvalidRequestError } from '@turngym/server';
import type { Action, EnvSpec, JsonSchema } from '@turngym/spec';

/** An MCP tool as `tools/list` lists it. */
export interface McpToolDefinition {
  name: string;
  title?: string;
  description: string;
  inputSchema: { type: 'object'; [key: string]: unknown };
  outputSchema?: { type: 'object'; [key: string]: unknown };
}

/** What a `tools/call` asks of the env: a new episode, or one step with this action. */
export type EnvToolCall =
  | {
      kind: 'reset';
      seed?: number;
      options?: Record<string, unknown>;
      envOptions?: Record<string, unknown>;
      maxTurns?: number;
      envId?: string;
    }
  | { kind: 'step'; action: Action };

/** `structuredContent` of a step: OpenEnv's observation reply with TurnGym's split of `done`. */
export const STEP_OUTPUT_SCHEMA = {
  type: 'object',
  required: ['observation', 'reward', 'terminated', 'truncated', 'done', 'info'],
  properties: {
    observation: { description: 'What the agent sees now (text for text envs).' },
    reward: { type: 'number' },
    terminated: { type: 'boolean', description: 'The task reached an end state (solved, failed, answered).' },
    truncated: { type: 'boolean', description: 'Cut short from outside the task (turn limit, budget).' },
    done: { type: 'boolean', description: 'terminated or truncated: call reset to play again.' },
    info: { type: 'object', description: 'fingerprint, anchor, cost, success on the last step, feedback …' },
  },
} as const;

/** `structuredContent` of a reset. */
export const RESET_OUTPUT_SCHEMA = {
  type: 'object',
  required: ['observation', 'info', 'env_id', 'episode_id'],
  properties: {
    observation: { description: 'The task, as the first user message.' },
    info: { type: 'object', description: 'instructions (the system prompt), seed, anchor …' },
    env_id: { type: 'string' },
    episode_id: { type: 'string' },
    seed: { type: ['integer', 'null'] },
  },
} as const;

/**
 * The MCP face of one env: its own tools (each with its JSON Schema and description, as function-calling agents
 * see them), plus `reset` and, where the env reads text (or an option index), `act`. The control tools keep
 * their names unless the env owns a tool of that name, in which case they become `turngym_reset`/`turngym_act`.
 */
export class EnvToolCatalog {
  readonly resetName: string;
  readonly actName: string | undefined;
  readonly tools: readonly McpToolDefinition[];
  private readonly envTools: ReadonlySet<string>;
  private readonly validateReset: ReturnType<typeof compileToolSchema>;
  private readonly validateAct: ReturnType<typeof compileToolSchema> | undefined;

  constructor(
    readonly spec: EnvSpec,
    servedIds: readonly string[],
    clientSettable: readonly string[] | '*',
  ) {
    const space = spec.actionSpace;
    const own = space.type === 'tools' ? space.tools : [];
    this.envTools = new Set(own.map((tool) => tool.name));
    const free = (name: string): string => (this.envTools.has(name) ? `turngym_${name}` : name);
    this.resetName = free('reset');
    const resetSchema = resetInputSchema(spec, servedIds, clientSettable);
    // Built per session from the env's spec: compiled on core's instance for schemas from elsewhere, which forgets
    // them, where the shared one kept each session's schemas for the life of the server.
    this.validateReset = compileToolSchema(resetSchema);
    const tools: McpToolDefinition[] = [
      {
        name: this.resetName,
        title: `Start an episode of ${spec.id}`,
        description:
          `Start a new episode of ${spec.id} (${spec.summary}). Returns the task and the instructions; call it ` +
          'first, and again after an episode ends. Same seed, same episode.',
        inputSchema: resetSchema,
        outputSchema: RESET_OUTPUT_SCHEMA as unknown as McpToolDefinition['outputSchema'],
      },
    ];
    const actSchema = actInputSchema(spec);
    this.actName = actSchema ? free('act') : undefined;
    this.validateAct = actSchema ? compileToolSchema(actSchema) : undefined;
    if (actSchema && this.actName) {
      tools.push({
        name: this.actName,
        title: `Take a turn in ${spec.id}`,
        description: actDescription(spec),
        inputSchema: actSchema,
        outputSchema: STEP_OUTPUT_SCHEMA as unknown as McpToolDefinition['outputSchema'],
      });
    }
    for (const tool of own) {
      tools.push({
        name: tool.name,
        description: tool.description,
        inputSchema: objectSchema(tool.parameters),
        outputSchema: STEP_OUTPUT_SCHEMA as unknown as McpToolDefinition['outputSchema'],
      });
    }
    this.tools = tools;
  }

  has(name: string): boolean {
    return name === this.resetName || name === this.actName || this.envTools.has(name);
  }

  /**
   * A `tools/call` as an env call. The control tools' arguments are checked here (VALIDATION_ERROR naming the
   * field); an env tool's arguments go to the env as they are, since a malformed call is an ordinary step there
   * (feedback, `info.invalidAction`), as in-process.
   */
  decode(name: string, args: Record<string, unknown>): EnvToolCall {
    if (name === this.resetName) {
      // A null argument is one left out: OpenEnv's client sends `{"seed": null}` for `reset(seed=None)`, and
      // function-calling models fill optional fields with null (OpenAI's strict schemas make every field required).
      const copy = Object.fromEntries(Object.entries(structuredClone(args)).filter(([, value]) => value !== null));
      if (!this.validateReset(copy)) throw invalid(name, this.validateReset.errors);
      const data = copy as {
        seed?: number;
        options?: Record<string, unknown>;
        env_options?: Record<string, unknown>;
        max_turns?: number;
        env_id?: string;
      };
      return {
        kind: 'reset',
        ...(data.seed === undefined ? {} : { seed: data.seed }),
        ...(data.options === undefined ? {} : { options: data.options }),
        ...(data.env_options === undefined ? {} : { envOptions: data.env_options }),
        ...(data.max_turns === undefined ? {} : { maxTurns: data.max_turns }),
        ...(data.env_id === undefined ? {} : { envId: data.env_id }),
      };
    }
    if (name === this.actName && this.validateAct) {
      if (!this.validateAct(args)) throw invalid(name, this.validateAct.errors);
      const data = args as { text?: string; index?: number };
      return { kind: 'step', action: data.index ?? (data.text as string) };
    }
    return { kind: 'step', action: { name, arguments: args } };
  }
}

function invalid(tool: string, errors: Parameters<typeof describeErrors>[0]): InvalidRequestError {
  const problems = describeErrors(errors, 'arguments');
  return new InvalidRequestError(
    `${tool}: ${problems.join('; ')}`,
    problems.map((msg) => ({ type: 'value_error', loc: ['params', 'arguments'], msg })),
  );
}

/** MCP wants an object schema at the top of every inputSchema; an env tool's parameters always are one. */
function objectSchema(parameters: JsonSchema): McpToolDefinition['inputSchema'] {
  return { ...parameters, type: 'object' };
}

function resetInputSchema(
  spec: EnvSpec,
  servedIds: readonly string[],
  clientSettable: readonly string[] | '*',
): McpToolDefinition['inputSchema'] {
  const settable =
    clientSettable === '*' ? 'any option' : clientSettable.length > 0 ? clientSettable.join(', ') : 'none';
  return {
    type: 'object',
    additionalProperties: false,
    properties: {
      // The bounds every env's reset() enforces (SeededRng), so an out-of-range seed is refused here, by name.
      seed: {
        type: ['integer', 'null'],
        minimum: -Number.MAX_SAFE_INTEGER,
        maximum: Number.MAX_SAFE_INTEGER,
        description: 'Same seed, same episode (omitted or null: the env draws one).',
      },
      options: { type: 'object', description: `Per-episode options ${spec.id} documents (e.g. a task id).` },
      env_options: {
        type: 'object',
        description:
          `Options ${spec.id} is built with; this server lets clients set: ${settable}. ` +
          'They stay until a reset names others.',
      },
      max_turns: {
        type: 'integer',
        minimum: 1,
        maximum: 1000000,
        description: `Turn limit (default ${spec.maxTurns}).`,
      },
      ...(servedIds.length > 1
        ? {
            env_id: { type: 'string', enum: [...servedIds], description: 'Switch this session to another served env.' },
          }
        : {}),
    },
  };
}

function actInputSchema(spec: EnvSpec): McpToolDefinition['inputSchema'] | undefined {
  const space = spec.actionSpace;
  const property =
    space.type === 'discrete'
      ? { index: { type: 'integer', minimum: 0, maximum: space.n - 1 } }
      : {
          text: { type: 'string', ...(space.type === 'text' && space.maxLength ? { maxLength: space.maxLength } : {}) },
        };
  return { type: 'object', additionalProperties: false, required: Object.keys(property), properties: property };
}

function actDescription(spec: EnvSpec): string {
  const space = spec.actionSpace;
  if (space.type === 'discrete')
    return `Take one turn in ${spec.id}: choose an option by index (${space.labels.map((label, i) => `${i}=${label}`).join(', ')}).`;
  const examples = space.examples?.length ? ` Examples: ${space.examples.slice(0, 4).join(' | ')}.` : '';
  if (space.type === 'tools')
    return `Take one turn in ${spec.id} by writing a tool call as text (NAME(arguments)) instead of calling the tool.${examples}`;
  return `Take one turn in ${spec.id}: the text you write is the action (${spec.summary}).${examples}`;
}
