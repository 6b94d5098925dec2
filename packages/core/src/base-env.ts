import type { Action, Env, EnvSpec, Info, ResetArgs, ResetResult, StepResult, ToolCall } from '@turngym/spec';
import { EnvBusyError, EnvClosedError, InvalidActionTypeError, InvalidOptionsError, ResetNeededError } from './errors';
import { checkSeed } from './check-seed';
import { cloneData } from './schema-validation';
import { entropySeed, SeededRng } from './seeded-rng';

/** What an env's `onReset` returns. */
export interface EnvResetOutcome<Obs> {
  observation: Obs;
  /** The system prompt for this episode. */
  instructions: string;
  info?: Info;
  /** Tokens spent by env-side LLM roles while resetting. */
  llmTokens?: number;
}

/** What an env's `onStep` returns; BaseEnv adds fingerprint, anchor and cost to the info. */
export interface EnvStepOutcome<Obs> {
  observation: Obs;
  reward: number;
  terminated: boolean;
  truncated?: boolean;
  info?: Info;
  /** Tool calls this step made (a malformed call still counts). Default: 1 for tool spaces, else 0. */
  toolCalls?: number;
  /** Tokens spent by env-side LLM roles in this step. */
  llmTokens?: number;
}

const now = (): number => performance.now();

/**
 * A copy of JSON-like data (plain objects, arrays, primitives) at any depth, without recursion; undefined when
 * `value` holds anything else (a function, a Map, a class instance).
 */
function copyOfPlainData(value: unknown): unknown {
  const isPlain = (item: object): boolean => {
    // Any realm's Object.prototype (a test's vm context, a worker's objects) or none; a class instance, Map or Date
    // has its own prototype in between.
    const prototype = Object.getPrototypeOf(item) as object | null;
    return Array.isArray(item) || prototype === null || Object.getPrototypeOf(prototype) === null;
  };
  const shell = (item: object): Record<string, unknown> | unknown[] => (Array.isArray(item) ? [] : {});
  if (typeof value !== 'object' || value === null) return typeof value === 'function' ? undefined : value;
  if (!isPlain(value)) return undefined;
  // defineProperty, not assignment: JSON.parse makes `"__proto__"` an own key, which `target[key] =` would not copy.
  const put = (target: object, key: string, item: unknown): void => {
    Object.defineProperty(target, key, { value: item, enumerable: true, writable: true, configurable: true });
  };
  const root = shell(value);
  // Each object once: a cycle (or a shared object) would have this loop copy forever.
  const seen = new Set<object>([value]);
  const stack: Array<[object, object]> = [[value, root]];
  while (stack.length > 0) {
    const [source, target] = stack.pop() as [object, object];
    for (const [key, item] of Object.entries(source)) {
      if (typeof item === 'function' || typeof item === 'symbol') return undefined;
      if (typeof item !== 'object' || item === null) {
        put(target, key, item);
        continue;
      }
      if (!isPlain(item) || seen.has(item)) return undefined;
      seen.add(item);
      const inner = shell(item);
      put(target, key, inner);
      stack.push([item, inner]);
    }
  }
  return root;
}

/**
 * The base class most environments extend. It owns the bookkeeping every env needs so that env code
 * holds only task logic:
 * - seeding (Gymnasium's rule): `reset({ seed })` gives `this.rng`, a stream for this episode; `reset()` without
 *   a seed draws the next episode seed from a stream seeded by the last explicit seed or, when no seed was
 *   ever given, from OS entropy on the first seedless reset (a fixed start would give every process and every
 *   connection the same task sequence). `info.seed` on every reset is the seed actually used, so
 *   `reset({ seed: info.seed })` replays the episode;
 * - order checks (step before reset / after the end / after close raise typed errors; a step, reset or fork
 *   while a step or reset has not settled raises `EnvBusyError`, since interleaved calls would corrupt the
 *   episode silently; close() stays allowed then, as the way to abort a call that hangs);
 * - action *type* checks against the action space (malformed *content* is the env's ordinary step);
 * - `info.fingerprint`, `info.anchor`, `info.cost` and `info.success` on every step;
 * - `fork()` by deterministic replay of the action log — override it with a native snapshot where cheaper.
 *
 * Subclasses implement `onReset`, `onStep`, `fingerprint`, `anchor`, and `spawn` (a fresh instance with the
 * same constructor arguments, used by the default fork).
 */
export abstract class BaseEnv<Obs = string, Act = Action> implements Env<Obs, Act> {
  abstract readonly spec: EnvSpec;

  /** The random stream of the current episode. */
  protected rng: SeededRng = new SeededRng(0);
  /** Episode seeds for seedless resets; undefined until the first reset (explicit seed or OS entropy). */
  private seedStream: SeededRng | undefined;
  private episodeSeed: number | undefined;
  private episodeOptions: Record<string, unknown> | undefined;
  private actionLog: Act[] = [];
  private started = false;
  private finished = false;
  private closed = false;
  /** The step() or reset() that has not settled yet, if any. */
  private inFlight: 'step' | 'reset' | undefined;

  protected abstract onReset(
    seed: number,
    options: Record<string, unknown> | undefined,
  ): Promise<EnvResetOutcome<Obs>> | EnvResetOutcome<Obs>;
  protected abstract onStep(action: Act): Promise<EnvStepOutcome<Obs>> | EnvStepOutcome<Obs>;
  abstract fingerprint(action: Act): string;
  abstract anchor(): string;
  /** A fresh, unreset instance with the same configuration (for the default replay fork). */
  protected abstract spawn(): BaseEnv<Obs, Act> | Promise<BaseEnv<Obs, Act>>;
  /** Releases resources; called once. */
  protected onClose(): Promise<void> | void {}

  get unwrapped(): Env<Obs, Act> {
    return this;
  }

  /** The seed of the current episode (undefined before the first reset). */
  get seed(): number | undefined {
    return this.episodeSeed;
  }

  /** Turns taken in the current episode. */
  get turn(): number {
    return this.actionLog.length;
  }

  async reset(args: ResetArgs = {}): Promise<ResetResult<Obs>> {
    this.assertOpen();
    this.assertIdle('reset');
    // Before anything changes: a bad seed (NaN, 1.5, 2^53) leaves the last episode as it was.
    if (args.seed !== undefined) checkSeed(args.seed, `${this.spec.id} reset()`);
    // Copied before anything changes: options that cannot be copied (a function, nesting deeper than the stack) threw
    // a bare DataCloneError or RangeError after the seed had moved on, leaving the last episode under the new seed.
    const options =
      args.options === undefined
        ? undefined
        : (cloneData(
            args.options,
            'options',
            (problems) => new InvalidOptionsError(`${this.spec.id} reset()`, problems),
          ) as Record<string, unknown>);
    if (args.seed !== undefined) this.seedStream = new SeededRng(args.seed);
    this.seedStream ??= new SeededRng(entropySeed());
    const seed = args.seed ?? this.seedStream.deriveSeed();
    if (args.seed !== undefined) this.seedStream.deriveSeed(); // keep reset() after reset({seed}) moving on
    this.episodeSeed = seed;
    this.episodeOptions = options;
    this.rng = new SeededRng(seed);
    this.actionLog = [];
    // Started only once onReset succeeds: a reset that fails (a page that would not load) leaves no episode
    // to step into.
    this.started = false;
    this.finished = false;
    const start = now();
    const outcome = await this.whileInFlight('reset', () => this.onReset(seed, this.episodeOptions));
    this.started = true;
    const info: Info = {
      ...outcome.info,
      seed,
      instructions: outcome.instructions,
      anchor: this.anchor(),
      cost: { toolCalls: 0, llmTokens: outcome.llmTokens ?? 0, wallMs: now() - start },
    };
    return { observation: outcome.observation, info };
  }

  async step(action: Act): Promise<StepResult<Obs>> {
    this.assertOpen();
    this.assertIdle('step');
    if (!this.started) throw new ResetNeededError(`${this.spec.id}: call reset() before step().`);
    if (this.finished)
      throw new ResetNeededError(`${this.spec.id}: the episode has ended; call reset() before step().`);
    this.checkActionType(action);
    // The log keeps its own copy of a structured call: a caller reusing the object for its next call would
    // otherwise rewrite history, and a replay fork would replay the rewritten action.
    const logged = typeof action === 'object' && action !== null ? this.copyOfCall(action) : action;
    const start = now();
    const fingerprint = this.fingerprint(action);
    const outcome = await this.whileInFlight('step', () => this.onStep(action));
    this.actionLog.push(logged);
    const truncated = outcome.truncated ?? false;
    if (outcome.terminated || truncated) this.finished = true;
    const info: Info = {
      ...outcome.info,
      fingerprint,
      anchor: this.anchor(),
      cost: {
        toolCalls: outcome.toolCalls ?? (this.spec.actionSpace.type === 'tools' ? 1 : 0),
        llmTokens: outcome.llmTokens ?? 0,
        wallMs: now() - start,
      },
    };
    if (this.finished && info.success === undefined) info.success = false;
    return {
      observation: outcome.observation,
      reward: outcome.reward,
      terminated: outcome.terminated,
      truncated,
      info,
    };
  }

  /** Default fork: a fresh instance, reset with this episode's seed and options, replaying every action. */
  async fork(): Promise<Env<Obs, Act>> {
    this.assertOpen();
    this.assertIdle('fork');
    // The episode as it is now: a step taken while spawn() and the replay run must not leak into the twin.
    const stream = this.seedStream?.clone();
    const started = this.started;
    const seed = this.episodeSeed as number;
    const options = this.episodeOptions;
    const actions = this.actionLog.slice();
    const twin = await this.spawn();
    twin.seedStream = stream;
    if (started) {
      try {
        await twin.reset({ seed, ...(options ? { options } : {}) });
        for (const action of actions) await twin.step(action);
      } catch (error) {
        // The twin is no one's to close once fork() fails: it held its resources (a server process, a browser tab,
        // a sandbox worker) until the process exited, and an MCP server's child kept the host from exiting.
        await Promise.resolve(twin.close()).catch(() => undefined);
        throw error;
      }
      twin.seedStream = stream;
    }
    return twin;
  }

  /**
   * For native forks: copies this env's bookkeeping (seed stream, episode seed and options, action log, random
   * stream, done flags) onto a fresh instance from `spawn()`. The subclass then copies its own task state:
   *   const twin = await this.spawn(); this.copyEpisodeStateTo(twin); twin.board = this.board.clone();
   * It refuses, as the default fork does, while a step or reset has not settled (`EnvBusyError`), closing the twin:
   * a native fork taken then copied an episode halfway through that step (an action log without the step, task state
   * with it). Call it before awaiting anything after spawn(), so the check sees the env as the fork() call found it.
   */
  protected copyEpisodeStateTo(twin: BaseEnv<Obs, Act>): void {
    if (this.inFlight !== undefined) {
      // No one else holds the twin: close it here, or what it holds (shared roles, a sandbox) stays taken.
      void Promise.resolve(twin.close()).catch(() => undefined);
      this.assertIdle('fork');
    }
    twin.seedStream = this.seedStream?.clone();
    twin.rng = this.rng.clone();
    twin.episodeSeed = this.episodeSeed;
    twin.episodeOptions = this.episodeOptions === undefined ? undefined : structuredClone(this.episodeOptions);
    twin.actionLog = this.actionLog.slice();
    twin.started = this.started;
    twin.finished = this.finished;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.onClose();
  }

  protected get isClosed(): boolean {
    return this.closed;
  }

  private assertOpen(): void {
    if (this.closed) throw new EnvClosedError(this.spec.id);
  }

  private assertIdle(call: 'step' | 'reset' | 'fork'): void {
    if (this.inFlight !== undefined) throw new EnvBusyError(this.spec.id, call, this.inFlight);
  }

  private async whileInFlight<T>(call: 'step' | 'reset', run: () => Promise<T> | T): Promise<T> {
    this.inFlight = call;
    try {
      return await run();
    } finally {
      this.inFlight = undefined;
    }
  }

  private copyOfCall(action: Act & object): Act {
    try {
      return structuredClone(action);
    } catch {
      // structuredClone recurses: a call nested some thousands deep (JSON.parse reads a request at any depth)
      // overflowed the stack and was refused here as API misuse, where it is malformed content, for onStep to
      // answer with feedback like any other. (Its RangeError may come from another realm: not tested by class.)
      const copy = copyOfPlainData(action);
      if (copy !== undefined) return copy as Act;
      // A function or a class instance in the arguments: no agent could have written it, nor a record keep it.
      throw new InvalidActionTypeError(this.spec.id, 'a tool call { name, arguments } of plain JSON data', action);
    }
  }

  /** API misuse (a wrong JavaScript type) throws; malformed content is for `onStep` to answer. */
  protected checkActionType(action: unknown): void {
    const space = this.spec.actionSpace;
    const isToolCall = (value: unknown): value is ToolCall =>
      typeof value === 'object' && value !== null && typeof (value as ToolCall).name === 'string';
    switch (space.type) {
      case 'text':
        if (typeof action !== 'string') throw new InvalidActionTypeError(this.spec.id, 'a string', action);
        return;
      case 'tools':
        if (typeof action !== 'string' && !isToolCall(action)) {
          throw new InvalidActionTypeError(this.spec.id, 'a string or a tool call { name, arguments }', action);
        }
        return;
      case 'discrete':
        if (!(typeof action === 'string' || (typeof action === 'number' && Number.isInteger(action)))) {
          throw new InvalidActionTypeError(this.spec.id, 'an option index (integer) or label (string)', action);
        }
        return;
    }
  }
}
