import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  RequestSchema,
  type CallToolRequest,
} from '@modelcontextprotocol/sdk/types.js';
import { EnvFaultError, type Logger } from '@turngym/core';
import { closeEnvWithin, runOwnedBy, sessionFaultOwner, type EnvFaultOwner } from '@turngym/server';
import type { Action, Env } from '@turngym/spec';
import { EnvToolCatalog, type EnvToolCall } from './env-tool-catalog';
import { errorResult, resetResult, stepResult, type ToolResult } from './tool-results';

/** What an MCP session's env is built from: the WebSocket server's session config, in its MCP subset. */
export interface McpSessionConfig {
  readonly envId: string;
  readonly envOptions?: Record<string, unknown>;
  readonly maxTurns?: number;
}

/** What a session needs from its host (the stdio or HTTP server). */
export interface McpSessionHost {
  /** The canonical id of a served env; throws NameNotFoundError for any other. */
  resolveEnvId(id: string): string;
  /** Builds an env (served ids only); refuses client options the server does not allow (VALIDATION_ERROR). */
  buildEnv(config: McpSessionConfig): Promise<Env<unknown, Action>>;
  /** The tool catalog of an env as this server offers it (reset's allow-list text, served ids). */
  catalogFor(envId: string, spec: Env['spec']): EnvToolCatalog;
  sessionClosed(session: McpEnvSession): void;
  now(): number;
  readonly serverVersion: string;
  readonly logger?: Logger | undefined;
}

/**
 * `tools/call` with any params. The SDK's `Server` checks a tools/call against the strict schema itself and
 * answers a malformed one with Invalid params (-32602), but only when the registered schema lets the request
 * reach it: registered with the strict schema, `arguments: "x"` or a missing `name` fail earlier and come back
 * as Internal error (-32603).
 */
const AnyCallToolRequestSchema = RequestSchema.extend({ method: CallToolRequestSchema.shape.method });

/** How long close() lets a call in flight finish before the env is closed under it (ms). */
const CLOSE_GRACE_MS = 5000;

/**
 * One MCP session and the env it holds (the MCP session is the env session, as a WebSocket connection is for
 * the OpenEnv server). Calls run strictly one at a time in arrival order, since an env is a state machine and
 * MCP clients may pipeline requests. The SDK's low-level `Server` is used instead of `McpServer` because the
 * tools' JSON Schemas come from the env as they are (McpServer wants zod shapes).
 */
export class McpEnvSession {
  readonly server: Server;
  lastActivity: number;
  /** Calls received and not yet answered: the idle reaper leaves a busy session alone. */
  pending = 0;
  private catalog: EnvToolCatalog;
  private queue: Promise<unknown> = Promise.resolve();
  private closed: Promise<void> | undefined;
  private resets = 0;
  private episodeId: string;
  /** Which env of the session is current (a reset that rebuilds it starts the next), for its fault owner. */
  private generation = 0;
  /** What the current env's code runs as: a fault of it outside any call breaks this env, and no other. */
  private faultOwner: EnvFaultOwner;
  /** Set when the current env's code failed outside a call: its state is lost until a reset builds a fresh one. */
  private fault: EnvFaultError | undefined;
  /** Envs being closed (a broken one may take the whole grace): the session's end waits for them. */
  private readonly closing = new Set<Promise<void>>();
  /** Faults so far: a reset's build that a fault interrupted must not install its env afterwards. */
  private faults = 0;
  /** Answers the call in flight with the fault (its env may never answer it now). */
  private interrupt: ((fault: EnvFaultError) => void) | undefined;

  constructor(
    private readonly host: McpSessionHost,
    readonly id: string,
    private config: McpSessionConfig,
    private env: Env<unknown, Action>,
  ) {
    this.lastActivity = host.now();
    this.episodeId = `${id}:0`;
    this.faultOwner = this.ownerOf(0);
    this.catalog = host.catalogFor(config.envId, env.spec);
    this.server = new Server(
      { name: 'turngym', title: `TurnGym ${config.envId}`, version: host.serverVersion },
      {
        capabilities: { tools: { listChanged: true } },
        instructions:
          `TurnGym environment ${config.envId}: ${env.spec.summary} Call ${this.catalog.resetName} to start an ` +
          "episode (its result holds the instructions and the task), then the env's tools until the episode " +
          'ends (a result says "episode over"); each result carries the observation, the reward and whether the ' +
          'episode terminated or was truncated.',
      },
    );
    this.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [...this.catalog.tools] }));
    this.server.setRequestHandler(AnyCallToolRequestSchema, (request) => {
      const params = request.params as CallToolRequest['params']; // checked by the SDK's Server (see above)
      return this.call(params.name, params.arguments ?? {});
    });
    // The transport ended (client DELETE, stdin closed, connection lost): the env goes with it.
    this.server.onclose = () => void this.close();
  }

  get envId(): string {
    return this.config.envId;
  }

  get currentEnv(): Env<unknown, Action> {
    return this.env;
  }

  connect(transport: Transport): Promise<void> {
    return this.server.connect(transport);
  }

  /** One `tools/call`, queued behind the calls before it. */
  call(name: string, args: Record<string, unknown>): Promise<ToolResult> {
    this.lastActivity = this.host.now();
    if (!this.catalog.has(name)) {
      const names = this.catalog.tools.map((tool) => tool.name).join(', ');
      return Promise.reject(new McpError(ErrorCode.InvalidParams, `Unknown tool "${name}". Tools: ${names}`));
    }
    this.pending += 1;
    const work = this.queue.then(async () => {
      try {
        if (this.closed) throw new McpError(ErrorCode.ConnectionClosed, 'The session is closed');
        const call = this.catalog.decode(name, args);
        // Only a reset, which builds a fresh env, gets past a broken one.
        if (this.fault && call.kind === 'step') throw this.fault;
        return await this.interruptible(() => runOwnedBy(this.faultOwner, () => this.dispatch(call)));
      } catch (error) {
        if (error instanceof McpError) throw error;
        return errorResult(error);
      } finally {
        this.pending -= 1;
        this.lastActivity = this.host.now();
      }
    });
    this.queue = work.catch(() => undefined);
    return work;
  }

  /**
   * A fault of the env's code outside any call (a sandbox or browser that crashed, a timer that threw). The env's
   * state is lost, so it is closed, the call in flight (which may never be answered now) and every step after
   * it are answered with the fault, and a reset builds a fresh env: the client learns what happened and the
   * session goes on. Ending the session instead would make a stdio server vanish under its host, with success.
   * `generation`: the env whose code failed; a late fault of an env already replaced is no fault of this one.
   */
  fail(error: unknown, generation: number): void {
    if (this.closed || this.fault || generation !== this.generation) return;
    const what = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    this.fault = new EnvFaultError(
      `The env failed (${what}); its episode is lost: call ${this.catalog.resetName} to start a fresh env`,
      { cause: error },
    );
    this.faults += 1;
    this.interrupt?.(this.fault);
    void this.closeEnv(this.env, this.faultOwner);
  }

  /** Runs a call's work, unless a fault of the env answers it first. */
  private async interruptible<T>(work: () => Promise<T>): Promise<T> {
    let interrupt: (fault: EnvFaultError) => void = () => undefined;
    const interrupted = new Promise<never>((_resolve, reject) => (interrupt = reject));
    this.interrupt = interrupt;
    const running = work();
    // An abandoned call may still fail later, on the broken env: that is no unhandled rejection.
    running.catch(() => undefined);
    try {
      return await Promise.race([running, interrupted]);
    } finally {
      this.interrupt = undefined;
    }
  }

  private async dispatch(call: EnvToolCall): Promise<ToolResult> {
    if (call.kind === 'step') return stepResult(await this.env.step(call.action));
    await this.reconfigure(call);
    const result = await this.env.reset({
      ...(call.seed === undefined ? {} : { seed: call.seed }),
      ...(call.options === undefined ? {} : { options: call.options }),
    });
    this.resets += 1;
    this.episodeId = `${this.id}:${this.resets}`;
    const reported = result.info?.seed;
    return resetResult(
      result,
      this.config.envId,
      this.episodeId,
      call.seed ?? (typeof reported === 'number' ? reported : null),
    );
  }

  /** A reset that names another env, other options or another turn limit rebuilds the env (keys left out stay). */
  private async reconfigure(call: Extract<EnvToolCall, { kind: 'reset' }>): Promise<void> {
    const envId = call.envId === undefined ? this.config.envId : this.host.resolveEnvId(call.envId);
    // Options and turn limit belong to an env: switching to another one starts from its defaults.
    const kept = envId === this.config.envId ? this.config : { envId };
    const envOptions = call.envOptions ?? kept.envOptions;
    const maxTurns = call.maxTurns ?? kept.maxTurns;
    const next: McpSessionConfig = {
      envId,
      ...(envOptions ? { envOptions } : {}),
      ...(maxTurns === undefined ? {} : { maxTurns }),
    };
    if (
      !this.fault &&
      next.envId === this.config.envId &&
      JSON.stringify(next.envOptions) === JSON.stringify(this.config.envOptions) &&
      next.maxTurns === this.config.maxTurns
    )
      return;
    const generation = this.generation + 1;
    const owner = this.ownerOf(generation);
    const faults = this.faults;
    // The new env's code (its constructor's timers …) belongs to it from the start, not to the env it replaces.
    const env = await runOwnedBy(owner, () => this.host.buildEnv(next));
    if (this.faults !== faults || this.closed) {
      // This reset was answered with a fault (or the session ended) while the env was being built.
      await closeEnvWithin(env, CLOSE_GRACE_MS, this.host.logger, `MCP session ${this.id}`);
      throw this.fault ?? new McpError(ErrorCode.ConnectionClosed, 'The session is closed');
    }
    const previous = this.env;
    const previousOwner = this.faultOwner;
    const broken = this.fault !== undefined;
    const before = this.catalog.tools.map((tool) => tool.name).join('\n');
    this.env = env;
    this.generation = generation;
    this.faultOwner = owner;
    this.fault = undefined;
    this.config = next;
    this.catalog = this.host.catalogFor(next.envId, env.spec);
    // A broken env is already closing since its fault; the fresh one need not wait for it.
    if (!broken) await this.closeEnv(previous, previousOwner);
    if (this.catalog.tools.map((tool) => tool.name).join('\n') !== before) {
      await this.server.sendToolListChanged().catch(() => undefined);
    }
  }

  /**
   * Ends the session: lets a call in flight finish (up to a grace period), closes the transport and then the
   * env. Idempotent; resolves once the env is closed.
   */
  close(): Promise<void> {
    if (this.closed) return this.closed;
    this.closed = (async () => {
      let timer: NodeJS.Timeout | undefined;
      const grace = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, CLOSE_GRACE_MS);
        timer.unref();
      });
      await Promise.race([this.queue, grace]);
      clearTimeout(timer);
      await this.server.close().catch(() => undefined);
      if (!this.fault) void this.closeEnv(this.env, this.faultOwner);
      await Promise.all([...this.closing]);
      this.host.sessionClosed(this);
    })();
    return this.closed;
  }

  /**
   * Closes an env, bounded: a broken env's close may never finish (a crashed sandbox), and must hold neither a
   * reset nor the session's end. Logged when it throws or hangs; never rejects.
   */
  private closeEnv(env: Env<unknown, Action>, owner: EnvFaultOwner): Promise<void> {
    const closing = runOwnedBy(owner, () =>
      closeEnvWithin(env, CLOSE_GRACE_MS, this.host.logger, `MCP session ${this.id}`),
    );
    this.closing.add(closing);
    void closing.finally(() => this.closing.delete(closing));
    return closing;
  }

  private ownerOf(generation: number): EnvFaultOwner {
    const self = new WeakRef<McpEnvSession>(this);
    return mcpFaultOwner(this.id, () => self.deref(), generation);
  }
}

/**
 * The fault owner of env `generation` (0: the one the session opened with) of MCP session `id`, from that env's
 * build on: a fault of its code breaks that env (see `McpEnvSession.fail`).
 */
export function mcpFaultOwner(id: string, session: () => McpEnvSession | undefined, generation = 0): EnvFaultOwner {
  return sessionFaultOwner(`MCP session ${id}`, () => {
    const found = session();
    return found && { envId: found.envId, fail: (error: unknown) => found.fail(error, generation) };
  });
}
