import { statSync } from 'node:fs';
import { basename } from 'node:path';
import {
  BaseEnv,
  compileToolSchema,
  EnvClosedError,
  EnvFaultError,
  InvalidOptionsError,
  parseToolCall,
  ResetNeededError,
  TurnGymError,
  type EnvResetOutcome,
  type EnvStepOutcome,
} from '@turngym/core';
import type { Action, EnvSpec, JsonSchema, ToolCall, ToolSpec } from '@turngym/spec';
import type { CheckDocument } from './answer-check';
import { McpToolClient, type McpServerTarget, type ServerTool } from './mcp-tool-client';
import {
  DEMO_TASKS_PATH,
  demoServerCommand,
  validateMcpToolsOptions,
  validateMcpToolsResetOptions,
  type McpToolsOptions,
} from './mcp-tools-options';
import { loadTaskFile, type Task, type TaskCall } from './task-file';
import { redactedCommand } from './redacted-command';
import { redactedUrl } from './redacted-url';
import { withoutPatterns } from './without-patterns';
import { TaskFileError } from './task-file-error';

export const MCP_TOOLS_ID = 'turngym/mcp-tools-v1';

/** The tool lists of servers this process has listed, by target: later envs of the same server skip the listing. */
const toolLists = new Map<string, ServerTool[]>();

/** Everything an env instance shares with its forks: validated options, tasks, target, tools and spec. */
interface McpToolsSetup {
  readonly options: McpToolsOptions;
  readonly target: McpServerTarget;
  readonly tasks: readonly Task[];
  readonly serverTools: readonly ServerTool[];
  readonly spec: EnvSpec;
  readonly instructions: string;
}

/**
 * The usable schema of each listed tool, made once. Core keeps a tool's validator by its schema object: rebuilt at
 * each `make()` (the tool list itself is cached), each schema was compiled again, and when core compiled tool
 * schemas on its shared ajv, 2,000 makes of the demo env held 45 MB more heap.
 */
const usableSchemas = new WeakMap<ServerTool, JsonSchema>();

/** Whether core compiles `schema` as it will when the env validates a call (`compileToolSchema`). */
function compiles(schema: JsonSchema): boolean {
  try {
    compileToolSchema(schema);
    return true;
  } catch {
    return false;
  }
}

/**
 * A schema core's strict ajv refuses, kept argument by argument: each argument whose own schema compiles stays,
 * each other one becomes its schema written out in a description (the server judges it), and `required` stays
 * for the names the object has. Refused whole, one unknown keyword (`x-order`), format (`color`) or untyped
 * nested object made the tool an argument-less object: the instructions said `Arguments: {}`, a model calling
 * functions saw no parameters, and a missing required argument went to the server unchecked.
 */
function argumentWiseSchema(rest: Record<string, unknown>): JsonSchema | undefined {
  const properties = rest.properties;
  if (typeof properties !== 'object' || properties === null || Array.isArray(properties)) return undefined;
  const definitions = Object.fromEntries(
    ['$defs', 'definitions'].filter((key) => rest[key] !== undefined).map((key) => [key, rest[key]]),
  );
  const kept = Object.fromEntries(
    Object.entries(properties as Record<string, unknown>).map(([name, schema]) => {
      const alone = { type: 'object', properties: { [name]: schema }, ...definitions };
      if (compiles(alone)) return [name, schema];
      return [name, { description: `As the server documents it: ${JSON.stringify(schema).slice(0, 300)}` }];
    }),
  );
  const required = Array.isArray(rest.required) ? rest.required.filter((name) => Object.hasOwn(kept, name)) : [];
  const candidate: JsonSchema = {
    type: 'object',
    ...(typeof rest.description === 'string' ? { description: rest.description } : {}),
    properties: kept,
    ...(required.length > 0 ? { required } : {}),
    ...definitions,
  };
  return compiles(candidate) ? candidate : undefined;
}

/**
 * A server's schema as the env validates with (core's strict ajv): `$schema`/`$id` dropped (a draft the
 * shared ajv does not load, an id it would register once), its regular expressions too (`withoutPatterns`: the
 * server checks them, where a catastrophic one is a timeout, not a frozen env); one it still cannot compile is
 * kept argument by argument (`argumentWiseSchema`), else becomes a plain object schema, and the server judges
 * the arguments itself.
 */
function usableSchema(tool: ServerTool): JsonSchema {
  const known = usableSchemas.get(tool);
  if (known) return known;
  const { $schema: _schema, $id: _id, ...rest } = tool.inputSchema as Record<string, unknown>;
  const patternless = withoutPatterns(rest) as Record<string, unknown>;
  const candidate = { ...patternless, type: 'object' };
  const usable: JsonSchema = compiles(candidate)
    ? candidate
    : (argumentWiseSchema(patternless) ?? {
        type: 'object',
        description: `Arguments as the server documents them: ${JSON.stringify(rest).slice(0, 500)}`,
      });
  usableSchemas.set(tool, usable);
  return usable;
}

/** The answer tool's arguments: one object for every env, so core compiles it once (see usableSchemas). */
const ANSWER_PARAMETERS: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['answer'],
  properties: { answer: { type: 'string', maxLength: 10000 } },
};

/**
 * Every call a task makes or scripts must be one the server would take: its setup and probe call tools the server
 * lists, its solution tools the agent is offered (the scripted baseline plays them as actions), each with
 * arguments its schema accepts. A misspelled probe, or a probe with a misnamed argument, was an ordinary tool error
 * at scoring time, its result null: every episode of the task scored 0, a solved one too; a solution the env
 * refused as an invalid action scored the baseline 0 without a word.
 */
function checkTaskCalls(tasks: readonly Task[], listed: readonly ServerTool[], offered: readonly ServerTool[]): void {
  const byName = new Map(listed.map((tool) => [tool.name, tool]));
  const offeredNames = new Set(offered.map((tool) => tool.name));
  for (const task of tasks) {
    const calls: Array<[string, TaskCall]> = [
      ...(task.setup ?? []).map((call): [string, TaskCall] => ['setup', call]),
      ...(task.probe ? [['probe', task.probe] as [string, TaskCall]] : []),
      ...(task.solution?.calls ?? []).map((call): [string, TaskCall] => ['solution', call]),
    ];
    const problems: string[] = [];
    for (const [part, call] of calls) {
      const tool = byName.get(call.tool);
      if (!tool) {
        problems.push(
          `its ${part} calls ${call.tool}, which the server does not list (it lists ${[...byName.keys()].join(', ')})`,
        );
        continue;
      }
      if (part === 'solution' && !offeredNames.has(call.tool)) {
        problems.push(`its solution calls ${call.tool}, which the tools option does not offer the agent`);
        continue;
      }
      const spec: ToolSpec = { name: tool.name, description: '', parameters: usableSchema(tool) };
      const parsed = parseToolCall({ name: call.tool, arguments: call.arguments }, [spec]);
      if (!parsed.ok) problems.push(`its ${part} call ${parsed.feedback.replace(/\.$/, '')}`);
    }
    if (problems.length > 0) throw new TaskFileError(task.file, task.line, `task "${task.id}": ${problems.join(', ')}`);
  }
}

/**
 * Calls match tool names without case (core's parseToolCall): of two offered names that differ only in case,
 * every call went to the one listed first, the other tool silently out of reach.
 */
function checkDistinctNames(offered: readonly ServerTool[]): void {
  const byLowerCase = new Map<string, string>();
  for (const tool of offered) {
    const other = byLowerCase.get(tool.name.toLowerCase());
    // The same name twice: a call names its tool, so which of the two runs is the server's choice, and no tools
    // option can offer "one of them" (the advice below named both again and failed the same way).
    if (other === tool.name)
      throw new EnvFaultError(
        `${MCP_TOOLS_ID}: the server lists two tools named ${tool.name}; a call names its tool, so the env cannot tell which one it runs (a server must list each name once)`,
        { isRetryable: false },
      );
    if (other !== undefined)
      throw new InvalidOptionsError(MCP_TOOLS_ID, [
        `tools: the server lists ${other} and ${tool.name}, which an agent's call cannot tell apart (tool names match without case); offer one of them with the tools option`,
      ]);
    byLowerCase.set(tool.name.toLowerCase(), tool.name);
  }
}

/**
 * What the schema cannot see but the first connection would trip on, refused as options: a URL that does not
 * parse (a bare TypeError "Invalid URL" came out of make), a header value HTTP forbids, and a working directory
 * that is not there (Node then says "spawn node ENOENT", blaming the command, as a retryable fault).
 */
function checkReachable(options: McpToolsOptions): void {
  const problems: string[] = [];
  if (options.url !== undefined && !URL.canParse(options.url))
    problems.push('url: not a URL the env can reach (write it as http://127.0.0.1:8001/mcp)');
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    try {
      new Headers([[name, value]]);
    } catch {
      // The value is not quoted: it is usually a credential.
      problems.push(`headers.${name}: not a valid HTTP header (a line break or another control character in it?)`);
    }
  }
  const cwd = options.server?.cwd;
  if (cwd !== undefined && !statSync(cwd, { throwIfNoEntry: false })?.isDirectory())
    problems.push(`server.cwd: ${cwd} is not a directory`);
  if (problems.length > 0) throw new InvalidOptionsError(MCP_TOOLS_ID, problems);
}

function describeTarget(target: McpServerTarget, isDemo: boolean): string {
  if (isDemo) return 'the bundled demo server';
  return 'server' in target
    ? redactedCommand(basename(target.server.command), target.server.args).text
    : redactedUrl(target.url);
}

/** Keys of a tool's schema that its listed properties say all of; any other (`$ref`, `$defs`, `oneOf` …) must be shown. */
const PLAIN_SCHEMA_KEYS = new Set(['type', 'properties', 'required', 'description', 'additionalProperties']);

/**
 * A tool's arguments as the instructions show them: its properties, or its whole schema when the properties alone
 * do not say it. Properties alone showed `{"p":{"$ref":"#/$defs/P"}}` with no `$defs` to read it by, and `{}` for a
 * schema that is one `$ref`, whose required arguments an agent reading text could not know.
 */
function argumentsOf(parameters: JsonSchema): string {
  if (Object.keys(parameters).every((key) => PLAIN_SCHEMA_KEYS.has(key)))
    return `Arguments: ${JSON.stringify(parameters.properties ?? {})}`;
  return `Arguments (JSON Schema): ${JSON.stringify(parameters)}`;
}

function instructionsOf(tools: readonly ToolSpec[], answerTool: string): string {
  const lines = tools.map((tool) => `- ${tool.name}: ${tool.description} ${argumentsOf(tool.parameters)}`);
  return [
    'You can call the tools of an MCP server, one call per turn: write NAME({"argument": value, …}), or NAME(text)',
    'for a tool that takes one text argument. Each result comes back as the next observation.',
    `When you know the answer, call ${answerTool}(your answer): that ends the episode and is scored.`,
    'Tools:',
    ...lines,
  ].join('\n');
}

/**
 * Any MCP server's tools as an environment: the env starts the server (stdio) or connects to it (Streamable
 * HTTP) with the official SDK client, offers the server's tools as its own, and scores the episode from a task
 * file when the agent calls the answer tool. A server that crashes, hangs past `callTimeoutMs` or cannot be
 * reached raises `EnvFaultError` (retryable): the episode errors, it is never scored.
 */
export class McpToolsEnv extends BaseEnv<string, Action> {
  readonly spec: EnvSpec;
  private client: McpToolClient | undefined;
  /** The client has made no call yet (the one that listed the tools): the first episode may use it as is. */
  private clientIsFresh = false;
  private task: Task | undefined;
  private calls: Array<{ tool: string; arguments: Record<string, unknown> }> = [];
  private lastTool: string | null = null;
  private lastResult: unknown = null;
  /** The server fault that broke this episode: it can only be reset now, never answered and scored. */
  private fault: EnvFaultError | undefined;

  private constructor(
    private readonly setup: McpToolsSetup,
    client?: McpToolClient,
  ) {
    super();
    this.spec = setup.spec;
    this.client = client;
    this.clientIsFresh = client !== undefined;
  }

  /** Validates the options, reads the task file and lists the server's tools (starting or reaching it once). */
  static async create(options: Partial<McpToolsOptions> = {}): Promise<McpToolsEnv> {
    const validated = validateMcpToolsOptions(options);
    if (validated.server && validated.url)
      throw new InvalidOptionsError(MCP_TOOLS_ID, ['set server (a command) or url, not both']);
    checkReachable(validated);
    const target: McpServerTarget = validated.url
      ? { url: validated.url, ...(validated.headers ? { headers: validated.headers } : {}) }
      : { server: validated.server ?? demoServerCommand() };
    const tasks = loadTaskFile(validated.tasks ?? DEMO_TASKS_PATH);
    const key = JSON.stringify(target);
    let listed = toolLists.get(key);
    let client: McpToolClient | undefined;
    if (!listed) {
      client = await McpToolClient.connect(target, validated);
      try {
        listed = await client.listTools();
      } catch (error) {
        await client.close();
        throw error;
      }
      toolLists.set(key, listed);
    }
    let setup: McpToolsSetup;
    try {
      setup = McpToolsEnv.describe(validated, target, tasks, listed);
    } catch (error) {
      // Options that only the tool list can refute (tools, answerTool): the server started to list it goes too.
      await client?.close();
      throw error;
    }
    return new McpToolsEnv(setup, client);
  }

  private static describe(
    options: McpToolsOptions,
    target: McpServerTarget,
    tasks: readonly Task[],
    listed: readonly ServerTool[],
  ): McpToolsSetup {
    if (options.tools) {
      const missing = options.tools.filter((name) => !listed.some((tool) => tool.name === name));
      if (missing.length > 0)
        throw new InvalidOptionsError(MCP_TOOLS_ID, [
          `tools: the server has no ${missing.join(', ')} (it lists ${listed.map((tool) => tool.name).join(', ')})`,
        ]);
    }
    const serverTools = options.tools ? listed.filter((tool) => options.tools?.includes(tool.name)) : listed;
    checkTaskCalls(tasks, listed, serverTools);
    checkDistinctNames(serverTools);
    if (serverTools.some((tool) => tool.name.toLowerCase() === options.answerTool.toLowerCase()))
      throw new InvalidOptionsError(MCP_TOOLS_ID, [
        `answerTool: the server has a tool named ${options.answerTool}; choose another name for the answer tool`,
      ]);
    const tools: ToolSpec[] = [
      ...serverTools.map((tool) => ({
        name: tool.name,
        description: tool.description ?? `${tool.name} (no description)`,
        parameters: usableSchema(tool),
      })),
      {
        name: options.answerTool,
        description: 'Submit your final answer; this ends the episode and scores it.',
        parameters: ANSWER_PARAMETERS,
      },
    ];
    const first = serverTools[0];
    const spec: EnvSpec = {
      specificationVersion: 'v1',
      id: MCP_TOOLS_ID,
      summary: `Answer tasks with the tools of an MCP server (${describeTarget(target, !options.server && !options.url)}).`,
      observationSpace: { type: 'text' },
      actionSpace: {
        type: 'tools',
        tools,
        examples: [
          ...(first ? [`${first.name}({})`] : []),
          `${options.answerTool}(42)`,
          `${options.answerTool}({"answer": "Paris"})`,
        ],
      },
      tools,
      maxTurns: options.maxTurns,
      rewardRange: [0, 1],
      // A server the env does not restart keeps state across episodes, and a URL's may be shared with others.
      ...('url' in target || options.restart === 'never' ? { nondeterministic: true } : {}),
      docs: {
        description: 'The tools of any MCP server, scored from a task file: a prompt, an expected answer or a check.',
        actionSpace: `The server's tools (their own JSON Schemas) and ${options.answerTool}({answer}).`,
        observationSpace: "Text: the task's prompt, then each tool result (text content, or its JSON).",
        rewards: '1 when the answer passes the task (expected answer and/or check), else 0.',
        startingState: 'A task picked by the seed (or reset option task: id or index), after its setup calls.',
        episodeEnd: `Terminates on ${options.answerTool}; truncates at maxTurns. A dead or hung server raises ENV_FAULT.`,
        arguments:
          'server | url (+headers), tasks, tools, answerTool, restart, callTimeoutMs, startTimeoutMs, maxObservationChars, maxArgumentChars, maxTurns.',
        versionHistory: 'v1: first version.',
      },
    };
    return { options, target, tasks, serverTools, spec, instructions: instructionsOf(tools, options.answerTool) };
  }

  /** The task of the current episode (the scripted baseline reads its solution). */
  get currentTask(): Task | undefined {
    return this.task;
  }

  get answerTool(): string {
    return this.setup.options.answerTool;
  }

  protected spawn(): McpToolsEnv {
    return new McpToolsEnv(this.setup);
  }

  protected async onReset(
    seed: number,
    options: Record<string, unknown> | undefined,
  ): Promise<EnvResetOutcome<string>> {
    this.task = this.pickTask(validateMcpToolsResetOptions(options).task);
    this.calls = [];
    this.lastTool = null;
    this.lastResult = null;
    this.fault = undefined;
    await this.retireUsedClient();
    for (const call of this.task.setup ?? []) {
      const outcome = await this.guarded((server) => server.call(call.tool, call.arguments));
      if (outcome.isError)
        throw new EnvFaultError(`task ${this.task.id}: setup call ${call.tool} failed: ${outcome.text}`, {
          isRetryable: false,
        });
    }
    return { observation: this.task.prompt, instructions: this.setup.instructions, info: { taskId: this.task.id } };
  }

  protected async onStep(action: Action): Promise<EnvStepOutcome<string>> {
    if (this.fault) {
      throw new ResetNeededError(
        `${MCP_TOOLS_ID}: the episode broke on a server fault (${this.fault.message}); call reset() to start another.`,
      );
    }
    const parsed = parseToolCall(action as string | ToolCall, this.spec.tools ?? []);
    if (!parsed.ok) {
      return {
        observation: `Invalid action: ${parsed.feedback}`,
        reward: 0,
        terminated: false,
        info: { invalidAction: true, feedback: parsed.feedback },
      };
    }
    const { name, arguments: args } = parsed.call;
    const task = this.task as Task;
    if (name === this.answerTool) {
      const answer = String(args.answer ?? '');
      const probe = task.probe ? await this.probe(task.probe) : undefined;
      const document: CheckDocument = {
        answer,
        calls: this.calls,
        lastTool: this.lastTool,
        lastResult: this.lastResult,
        ...(task.probe ? { probe } : {}),
      };
      const success = task.score(document);
      this.lastTool = name;
      return {
        observation: success ? 'Correct.' : 'Not correct. The episode is over.',
        reward: success ? 1 : 0,
        terminated: true,
        info: { success, answer, taskId: task.id },
        toolCalls: 0,
      };
    }
    const size = JSON.stringify(args).length;
    if (size > this.setup.options.maxArgumentChars) {
      const feedback = `${name}: the arguments are ${size} characters of JSON, more than the ${this.setup.options.maxArgumentChars} a call may send; the call was not sent.`;
      return {
        observation: `Invalid action: ${feedback}`,
        reward: 0,
        terminated: false,
        info: { invalidAction: true, feedback },
      };
    }
    const outcome = await this.guarded((server) => server.call(name, args));
    this.calls.push({ tool: name, arguments: args });
    this.lastTool = name;
    this.lastResult = outcome.value;
    const limit = this.setup.options.maxObservationChars;
    // An empty observation read as if nothing had happened (or as "Tool error: " and nothing): say there was nothing.
    const said = outcome.text === '' ? '(empty result: the tool returned no text)' : outcome.text;
    const text = outcome.isError ? `Tool error: ${said}` : said;
    const observation =
      text.length > limit ? `${text.slice(0, limit)}\n[… ${text.length - limit} more characters cut]` : text;
    return {
      observation,
      reward: 0,
      terminated: false,
      info: { tool: name, ...(outcome.isError ? { toolError: true } : {}) },
    };
  }

  /** The tool name and the argument keys: `note_set(key,value)`; `INVALID` for an unreadable call. */
  fingerprint(action: Action): string {
    const parsed = parseToolCall(action as string | ToolCall, this.spec.tools ?? []);
    if (!parsed.ok) return 'INVALID';
    return `${parsed.call.name}(${Object.keys(parsed.call.arguments ?? {})
      .sort()
      .join(',')})`;
  }

  /** The last tool used (`start` before any). */
  anchor(): string {
    return this.lastTool ?? 'start';
  }

  protected override async onClose(): Promise<void> {
    await this.client?.close();
    this.client = undefined;
  }

  private pickTask(choice: string | number | undefined): Task {
    const tasks = this.setup.tasks;
    if (choice === undefined) return tasks[this.rng.int(0, tasks.length - 1)] as Task;
    const found = typeof choice === 'number' ? tasks[choice] : tasks.find((task) => task.id === choice);
    if (!found)
      throw new InvalidOptionsError(`${MCP_TOOLS_ID} reset`, [
        `options.task: no task ${JSON.stringify(choice)} (${tasks.length} tasks, ids ${tasks
          .slice(0, 5)
          .map((task) => task.id)
          .join(', ')}…)`,
      ]);
    return found;
  }

  /**
   * At a reset: a server that served the last episode is let go when every episode gets a fresh one
   * (restart: episode), and a broken one always. The next is started only when a call needs it, so an episode
   * that never calls the server (an answer straight away, malformed actions) starts no process.
   */
  private async retireUsedClient(): Promise<void> {
    const restart = 'server' in this.setup.target && this.setup.options.restart === 'episode';
    if (this.client && (this.client.isBroken || (restart && !this.clientIsFresh))) {
      const used = this.client;
      this.client = undefined;
      await used.close();
    }
  }

  /** The episode's server, started (or reached) on the first call that needs it. */
  private async server(): Promise<McpToolClient> {
    this.clientIsFresh = false;
    if (this.client) return this.client;
    const client = await McpToolClient.connect(this.setup.target, this.setup.options);
    if (this.isClosed) {
      // close() came while the server started (the way to abort a slow start): it found no client to stop, so
      // this one ran on with nothing left to stop it, keeping the host process alive, and the step went on.
      await client.close();
      throw new EnvClosedError(MCP_TOOLS_ID);
    }
    this.client = client;
    return client;
  }

  /** A call on the episode's server; a fault (crash, hang, unreachable) ends what this episode may do. */
  private async guarded<T>(work: (server: McpToolClient) => Promise<T>): Promise<T> {
    try {
      return await work(await this.server());
    } catch (error) {
      // close() came while the call ran (the way to abort a step): the connection it closed is no server fault, and a
      // retryable ENV_FAULT "Connection closed" had a runner retry an episode its caller had ended.
      if (this.isClosed) throw new EnvClosedError(MCP_TOOLS_ID);
      if (TurnGymError.isInstance(error) && error.code === 'ENV_FAULT') this.fault = error as EnvFaultError;
      throw error;
    }
  }

  private async probe(call: TaskCall): Promise<unknown> {
    const outcome = await this.guarded((server) => server.call(call.tool, call.arguments));
    return outcome.isError ? null : outcome.value;
  }
}
