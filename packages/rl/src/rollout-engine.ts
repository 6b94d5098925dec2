import { describeError, mixSeed, type EpisodeRecord } from '@turngym/core';
import {
  eventLoopYielder,
  generateYielding,
  GenerationBatch,
  type Generation,
  type GenerationRequest,
  type KvCache,
  type LanguageModel,
} from '@turngym/lm';
import type { Action, Env, Info, StepResult } from '@turngym/spec';
import type { ChatTurnFormat } from './chat-turn-format';
import { cutObservation } from './internal/observation-cut';
import type { TokenSegment } from './loss-mask';
import type { RolloutOptions } from './rollout-options';
import { rolesByName, scheduledRole, withCue, type RolloutRole, type RolloutRoles } from './rollout-roles';
import {
  TRAJECTORY_SCHEMA_ID,
  type StopReason,
  type Trajectory,
  type TrajectoryStep,
  type TreePosition,
} from './trajectory';

/** The model that acts, and how episodes become tokens. */
export interface RolloutPolicy {
  readonly model: LanguageModel;
  readonly format: ChatTurnFormat;
  /**
   * Several roles taking turns in each rollout (Plan/Act), each with its own adapter on `model`; omitted =
   * one policy (`options.adapter`). Chain rollouts only.
   */
  readonly roles?: RolloutRoles;
}

/** What a rollout has so far: everything a branch copies from the node it starts at. */
export interface RolloutPrefix {
  /** The env's instructions and its first observation (as the model saw it) at reset. */
  readonly instructions: string | null;
  readonly initialObservation: string;
  readonly tokens: readonly number[];
  readonly segments: readonly TokenSegment[];
  readonly logprobs: readonly number[];
  readonly steps: readonly TrajectoryStep[];
  readonly reward: number;
  /** The env's cost along the path (the episode record's `cost`, wall time included). */
  readonly cost: EpisodeRecord['cost'];
  /** Generated tokens and tool calls along the path (for the per-episode budgets). */
  readonly pathGenerated: number;
  readonly pathToolCalls: number;
}

/** A node of a rollout tree: the env and the KV cache at the state before the next action. */
export interface NodeSnapshot {
  readonly node: string;
  /** The rollout that reached the node: a branch from it is a fork of that episode (`forkOf`). */
  readonly episodeId: string;
  /** A fork of the env at this state; fork it again for each branch. */
  readonly env: Env<string, Action>;
  /**
   * The keys and values of `prefix.tokens`. Once the rollout's next turn has run, a view of that turn's cache
   * up to the node, the last observation included, with the logits after it: a branch samples its first token
   * at once instead of running the observation again. Before that (or for a node no turn followed) the cache
   * of the turn before, its last observation not run yet.
   */
  readonly cache: KvCache | undefined;
  readonly prefix: RolloutPrefix;
}

/** One rollout to run to its end: a fresh episode, or a branch from a node. */
export interface RolloutStart {
  readonly id: string;
  readonly envId: string;
  readonly seed: number;
  readonly group: number;
  /** Seeds this rollout's sampling (mixed with the turn index). */
  readonly sampleSeed: number;
  readonly env: Env<string, Action>;
  readonly prefix: RolloutPrefix;
  readonly cache?: KvCache;
  readonly tree?: TreePosition;
  /** Set on a branch: the episode it continues and the step it was forked at. */
  readonly forkOf?: NonNullable<EpisodeRecord['forkOf']>;
  /** Snapshot every node this rollout reaches (tree rollouts); names each new node. */
  readonly snapshots?: {
    /** The id of the node the rollout starts at, to snapshot it first (a tree's root); omitted for branches. */
    readonly root?: string;
    readonly nextNode: () => string;
    /**
     * Takes each node's snapshot. Omitted: nodes are named but not snapshotted (no env or cache is forked),
     * for rollouts no branch will start from (a tree's last round).
     */
    readonly onNode?: (snapshot: NodeSnapshot) => void;
  };
}

interface LiveRollout {
  readonly start: RolloutStart;
  readonly tokens: number[];
  readonly segments: TokenSegment[];
  readonly logprobs: number[];
  readonly steps: TrajectoryStep[];
  readonly startedAt: string;
  reward: number;
  readonly cost: { toolCalls: number; llmTokens: number; wallMs: number };
  pathGenerated: number;
  pathToolCalls: number;
  generated: number;
  computed: number;
  success: boolean;
  /** The rollout's KV caches, one per adapter (null: the base): a role continues its adapter's prefix. */
  readonly caches: Map<string | null, KvCache>;
  /** Context tokens the last action's generation read from its cache (recorded on role turns). */
  reused: number;
  /** The last node snapshot taken, which the next turn's generation completes (tree rollouts). */
  openNode?: OpenNode;
  stopReason?: StopReason;
  error?: EpisodeRecord['error'];
}

/** A node snapshot waiting for its cache to be completed by the next turn: the node's prefix length. */
interface OpenNode {
  readonly snapshot: { cache: KvCache | undefined };
  readonly length: number;
}

function pushSegment(
  segments: TokenSegment[],
  kind: TokenSegment['kind'],
  tokenCount: number,
  role: RolloutRole | undefined,
): void {
  segments.push(role ? { kind, tokenCount, role: role.name } : { kind, tokenCount });
}

/** The role of the rollout's next turn (undefined for a one-policy rollout). */
function nextRole(policy: RolloutPolicy, steps: readonly TrajectoryStep[]): RolloutRole | undefined {
  return policy.roles ? scheduledRole(policy.roles, rolesByName(policy.roles), steps) : undefined;
}

function toolCallsOf(info: Info): number {
  return info.cost?.toolCalls ?? 0;
}

/** The state of a live rollout as a prefix a branch can start from. */
function prefixOf(live: LiveRollout): RolloutPrefix {
  return {
    tokens: [...live.tokens],
    segments: [...live.segments],
    logprobs: [...live.logprobs],
    instructions: live.start.prefix.instructions,
    initialObservation: live.start.prefix.initialObservation,
    steps: [...live.steps],
    reward: live.reward,
    cost: { ...live.cost },
    pathGenerated: live.pathGenerated,
    pathToolCalls: live.pathToolCalls,
  };
}

/**
 * Resets `env` for a fresh episode and returns its prompt as a prefix (system instructions when asked for,
 * the task as the user message, the assistant header).
 */
export async function resetPrefix(
  env: Env<string, Action>,
  seed: number,
  policy: RolloutPolicy,
  options: RolloutOptions,
): Promise<RolloutPrefix> {
  const { observation, info } = await env.reset({ seed });
  const system = options.instructions && typeof info.instructions === 'string' ? info.instructions : undefined;
  const role = nextRole(policy, []);
  const initialObservation = cutObservation(policy.format.tokenizer, observation, options.maxObservationTokens);
  const tokens = policy.format.promptTokens(system, withCue(initialObservation, role?.cue));
  const segments: TokenSegment[] = [];
  pushSegment(segments, 'prompt', tokens.length, role);
  return {
    instructions: typeof info.instructions === 'string' ? info.instructions : null,
    initialObservation,
    tokens,
    segments,
    logprobs: tokens.map(() => 0),
    steps: [],
    reward: 0,
    cost: { toolCalls: 0, llmTokens: 0, wallMs: 0 },
    pathGenerated: 0,
    pathToolCalls: 0,
  };
}

/**
 * Runs rollouts to their ends in lockstep: each round samples the next action of every unfinished rollout
 * in one batched generation call (each row continuing from its own KV cache, so only new tokens are run),
 * then steps all their envs concurrently. Budgets are checked before each action; an env that throws ends
 * its rollout with stopReason `error` (reported, never trained on). Envs of finished rollouts are closed;
 * snapshots (tree nodes) belong to whoever asked for them.
 */
export async function runRollouts(
  policy: RolloutPolicy,
  starts: readonly RolloutStart[],
  options: RolloutOptions,
): Promise<Trajectory[]> {
  const limit = policy.model.config.maxPositions;
  const live = starts.map(startRollout);
  try {
    checkRoles(policy, starts);
  } catch (error) {
    await release(live);
    throw error;
  }
  // Tokens each prompt (group) has spent in this call: the per-prompt budget.
  const spent = new Map<number, number>();
  const run: RolloutRun = { policy, live, spent, options, limit };
  try {
    // Every root snapshot settles before a failure is thrown: the forks already taken are handed to their hooks
    // (whose owner closes them), and no fork lands after the caller cleaned up. A failed one closed neither the
    // rollouts' envs nor the forks that settled after it.
    const roots = await Promise.allSettled(live.map(snapshotRoot));
    const failed = roots.find((root): root is PromiseRejectedResult => root.status === 'rejected');
    if (failed) throw failed.reason;
    if (options.schedule === 'continuous' && !policy.roles) await runContinuous(run);
    else await runTurns(run);
  } finally {
    await release(live);
  }
  const agent = agentName(policy, options);
  return live.map((rollout) => toTrajectory(rollout, agent));
}

/** One `runRollouts` call: its policy and rollouts, the tokens each prompt has spent, its options and context limit. */
interface RolloutRun {
  readonly policy: RolloutPolicy;
  readonly live: readonly LiveRollout[];
  readonly spent: Map<number, number>;
  readonly options: RolloutOptions;
  readonly limit: number;
}

/** `schedule: 'turns'`: every unfinished rollout's next action in one round, then every env steps at once. */
async function runTurns({ policy, live, spent, options, limit }: RolloutRun): Promise<void> {
  let active = live;
  while (active.length > 0) {
    const requests = requestActions(policy, active, spent, options, limit);
    const actions = await generateActions(policy.model, requests, spent, options);
    // Every env steps at once: a browser or sandbox env spends its time waiting, not computing.
    await Promise.all(
      requests.map(({ rollout, role }, index) => takeTurn(policy, rollout, role, actions[index]!, options, limit)),
    );
    active = active.filter((rollout) => rollout.stopReason === undefined);
  }
}

/**
 * `schedule: 'continuous'` (continuous batching): one `GenerationBatch` of at most `maxBatch` rows, each a
 * rollout's next action. After every decoder pass the rollouts whose action ended step their envs (all at once,
 * awaited before the next pass, so which rows share a pass depends on tokens only, never on an env's timing)
 * and, unless they ended, join the batch again with their observation. A per-prompt token budget is shared
 * among the rollouts waiting to act, after what the group's rows in flight may still spend, so it is never
 * overspent.
 */
async function runContinuous({ policy, live, spent, options, limit }: RolloutRun): Promise<void> {
  const batch = new GenerationBatch(policy.model, {
    maxTokens: options.maxActionTokens,
    temperature: options.temperature,
    topP: options.topP,
    adapter: options.adapter ?? null,
    keepCache: true,
    seed: options.seed,
  });
  const inFlight = new Map<number, ActionRequest>();
  // Tokens the group's rows in flight may still generate (each row's cap), for the per-prompt budget.
  const reserved = new Map<number, number>();
  const reserve = ({ rollout, request }: ActionRequest, sign: 1 | -1): void => {
    const group = rollout.start.group;
    reserved.set(group, (reserved.get(group) ?? 0) + sign * (request.maxTokens ?? 0));
  };
  let waiting = [...live];
  // Envs that answer at once (a resolved promise) never let the event loop run between passes: a signal waited.
  const pause = eventLoopYielder();
  try {
    for (;;) {
      if (waiting.length > 0 && inFlight.size < options.maxBatch) {
        const requests = requestActions(policy, waiting, spent, options, limit, reserved);
        const admitted = requests.slice(0, options.maxBatch - inFlight.size);
        for (const request of admitted) {
          inFlight.set(batch.add(request.request), request);
          reserve(request, 1);
        }
        const taken = new Set(admitted.map(({ rollout }) => rollout));
        waiting = waiting.filter((rollout) => rollout.stopReason === undefined && !taken.has(rollout));
      }
      if (inFlight.size === 0) break;
      const turns = batch.step().map(({ ticket, generation }) => {
        const request = inFlight.get(ticket)!;
        inFlight.delete(ticket);
        reserve(request, -1);
        return { request, action: recordAction(request, generation, spent) };
      });
      await Promise.all(
        turns.map(({ request, action }) => takeTurn(policy, request.rollout, request.role, action, options, limit)),
      );
      for (const { request } of turns) if (request.rollout.stopReason === undefined) waiting.push(request.rollout);
      await pause();
    }
  } finally {
    batch.dispose();
  }
}

/** Roles: each declared once, their adapters on the model, and not mixed with tree snapshots. */
function checkRoles(policy: RolloutPolicy, starts: readonly RolloutStart[]): void {
  if (!policy.roles) return;
  for (const role of rolesByName(policy.roles).values()) {
    if (role.adapter !== undefined) policy.model.adapter(role.adapter);
  }
  // A node snapshot holds one KV cache; a rollout with roles has one per adapter.
  if (starts.some((start) => start.snapshots)) {
    throw new RangeError('Rollouts with several roles run as chains; tree rollouts (snapshots) take one policy.');
  }
}

/** A rollout as it runs, picking up where its start's prefix left off. */
function startRollout(start: RolloutStart): LiveRollout {
  return {
    start,
    tokens: [...start.prefix.tokens],
    segments: [...start.prefix.segments],
    logprobs: [...start.prefix.logprobs],
    steps: [...start.prefix.steps],
    startedAt: new Date().toISOString(),
    reward: start.prefix.reward,
    cost: { ...start.prefix.cost },
    pathGenerated: start.prefix.pathGenerated,
    pathToolCalls: start.prefix.pathToolCalls,
    generated: 0,
    computed: 0,
    success: false,
    caches: new Map(start.cache ? [[start.cache.adapter, start.cache]] : []),
    reused: 0,
  };
}

/** Hands the rollout's current state to its snapshot hooks as node `node` (tree rollouts only). */
async function snapshot(rollout: LiveRollout, node: string): Promise<void> {
  const hooks = rollout.start.snapshots;
  if (!hooks?.onNode) return;
  const taken: { -readonly [K in keyof NodeSnapshot]: NodeSnapshot[K] } = {
    node,
    episodeId: rollout.start.id,
    env: await rollout.start.env.fork(),
    // One policy (checkRoles): its adapter's cache is the rollout's only one.
    cache: [...rollout.caches.values()][0]?.fork(),
    prefix: prefixOf(rollout),
  };
  hooks.onNode(taken);
  rollout.openNode = { snapshot: taken, length: rollout.tokens.length };
}

let completeNodes = true;

/**
 * Leaves node snapshots with the cache of the turn before them, so that a branch runs its node's last
 * observation again (the engine before issue 32's third round): the reference the tests and the rollouts A/B
 * benchmark compare against. Returns the previous setting.
 */
export function useNodeCompletion(enabled: boolean): boolean {
  const previous = completeNodes;
  completeNodes = enabled;
  return previous;
}

/**
 * Gives the rollout's open node the cache of its whole prefix: the generation that just continued from the
 * node ran its last observation, so a view of the new cache up to the node (no copy) and the logits there
 * are the node's own. The cache the node held until now (without the observation) is released.
 */
function completeOpenNode(rollout: LiveRollout, generation: Generation): void {
  const open = rollout.openNode;
  rollout.openNode = undefined;
  const { cache, promptLogits } = generation;
  if (!completeNodes || !open || !cache || !promptLogits || cache.cachedLength < open.length) return;
  if (rollout.tokens.length !== open.length) return;
  open.snapshot.cache?.dispose();
  open.snapshot.cache = cache.prefixOf(open.length, promptLogits);
}

/** A tree's first rollout snapshots the root before its first action. */
async function snapshotRoot(rollout: LiveRollout): Promise<void> {
  const root = rollout.start.snapshots?.root;
  if (root !== undefined) await snapshot(rollout, root);
}

interface ActionRequest {
  readonly rollout: LiveRollout;
  readonly request: GenerationRequest;
  /** The role taking the turn (undefined: one policy). */
  readonly role: RolloutRole | undefined;
  /** The adapter it samples with (null: the base model). */
  readonly adapter: string | null;
}

/**
 * Checks every active rollout's budgets before anything is spent on its next action: a rollout out of
 * budget gets its stop reason, each other one a generation request capped by what it may still spend.
 */
function requestActions(
  policy: RolloutPolicy,
  active: readonly LiveRollout[],
  spent: ReadonlyMap<number, number>,
  options: RolloutOptions,
  limit: number,
  reserved: ReadonlyMap<number, number> = new Map(),
): ActionRequest[] {
  const perGroup = new Map<number, number>();
  for (const rollout of active) perGroup.set(rollout.start.group, (perGroup.get(rollout.start.group) ?? 0) + 1);
  const requests: ActionRequest[] = [];
  for (const rollout of active) {
    let allowed = Math.min(options.maxActionTokens, options.maxRolloutTokens - rollout.pathGenerated);
    if (options.promptTokenBudget !== undefined) {
      const group = rollout.start.group;
      const held = reserved.get(group) ?? 0;
      const left = options.promptTokenBudget - (spent.get(group) ?? 0) - held;
      // Shared fairly among the group's rollouts still running, so the group cannot overspend.
      allowed = Math.min(allowed, Math.floor(left / (perGroup.get(rollout.start.group) as number)));
      if (left <= 0 || allowed < 1) {
        // What the group's rows in flight hold back may come free when they end short of it: wait, don't stop.
        if (left + held <= 0 || held === 0) rollout.stopReason = 'prompt-tokens';
        continue;
      }
    }
    if (allowed < 1) rollout.stopReason = 'rollout-tokens';
    else if (options.maxToolCalls !== undefined && rollout.pathToolCalls >= options.maxToolCalls)
      rollout.stopReason = 'tool-calls';
    else if (rollout.tokens.length >= limit) rollout.stopReason = 'context';
    if (rollout.stopReason) continue;
    const role = nextRole(policy, rollout.steps);
    if (
      role?.maxTurns !== undefined &&
      rollout.steps.filter((turn) => turn.role === role.name).length >= role.maxTurns
    ) {
      rollout.stopReason = 'truncated';
      continue;
    }
    const adapter = role?.adapter ?? options.adapter ?? null;
    const cache = rollout.caches.get(adapter);
    requests.push({
      rollout,
      role,
      adapter,
      request: {
        tokens: rollout.tokens,
        ...(cache ? { cache } : {}),
        seed: mixSeed(rollout.start.sampleSeed, rollout.steps.length),
        // A trajectory fits the model's context whole, so the trainer can score every token of it.
        maxTokens: Math.min(allowed, limit - rollout.tokens.length),
      },
    });
  }
  return requests;
}

/**
 * Samples every requested action, one batched generation per adapter and per `maxBatch` rows (one base
 * model in memory, its adapter chosen per batch), and appends each to its rollout as an action segment
 * (tokens, logprobs, the adapter's new KV cache, the tokens spent). Returns the actions' texts, in the
 * order of `requests` (each row samples from its own seed, so the grouping changes no token).
 */
async function generateActions(
  model: LanguageModel,
  requests: readonly ActionRequest[],
  spent: Map<number, number>,
  options: RolloutOptions,
): Promise<string[]> {
  const texts = new Array<string>(requests.length);
  const byAdapter = new Map<string | null, number[]>();
  requests.forEach(({ adapter }, index) => byAdapter.set(adapter, [...(byAdapter.get(adapter) ?? []), index]));
  for (const [adapter, indices] of byAdapter) {
    for (let from = 0; from < indices.length; from += options.maxBatch) {
      const chunk = indices.slice(from, from + options.maxBatch);
      // Yielding between decoder passes: a signal (Ctrl-C to a trainer) is handled mid-rollout, not after it.
      const generations = await generateYielding(
        model,
        chunk.map((index) => requests[index]!.request),
        {
          maxTokens: options.maxActionTokens,
          temperature: options.temperature,
          topP: options.topP,
          adapter,
          keepCache: true,
          seed: options.seed,
        },
      );
      generations.forEach((generation, row) => {
        const index = chunk[row]!;
        texts[index] = recordAction(requests[index]!, generation, spent);
      });
    }
  }
  return texts;
}

/**
 * Appends a sampled action to its rollout as an action segment: tokens, logprobs, the adapter's new KV cache
 * (the open tree node completed from it), the tokens spent. Returns the action's text.
 */
function recordAction(request: ActionRequest, generation: Generation, spent: Map<number, number>): string {
  const { rollout, role, adapter } = request;
  completeOpenNode(rollout, generation);
  const cache = rollout.caches.get(adapter);
  rollout.reused = cache?.cachedLength ?? 0;
  // Run now: the uncached prompt tokens and every sampled token but the last (that one runs next turn).
  rollout.computed += rollout.tokens.length - rollout.reused + Math.max(0, generation.tokens.length - 1);
  cache?.dispose();
  rollout.caches.set(adapter, generation.cache!);
  rollout.tokens.push(...generation.tokens);
  rollout.logprobs.push(...generation.logprobs);
  pushSegment(rollout.segments, 'action', generation.tokens.length, role);
  rollout.generated += generation.tokens.length;
  rollout.pathGenerated += generation.tokens.length;
  const group = rollout.start.group;
  spent.set(group, (spent.get(group) ?? 0) + generation.tokens.length);
  return generation.text;
}

/**
 * Steps the rollout's env with the action just sampled, records the turn, and, unless the episode ended,
 * appends the observation as the next user turn and snapshots the node it reached. An env that throws
 * ends the rollout with stopReason `error`. A role that does not step the env only leaves its message in
 * the history for the next turn.
 */
async function takeTurn(
  policy: RolloutPolicy,
  rollout: LiveRollout,
  role: RolloutRole | undefined,
  action: string,
  options: RolloutOptions,
  limit: number,
): Promise<void> {
  const actionTokens = rollout.segments.at(-1)!.tokenCount;
  const node = rollout.start.snapshots?.nextNode() ?? `${rollout.start.id}/${rollout.steps.length}`;
  try {
    const envAction = envActionOf(role, action);
    const result: StepResult<string> = envAction === null ? HISTORY_ONLY : await rollout.start.env.step(envAction);
    const turn = { node, action, actionTokens, envStep: envAction !== null };
    const observation = recordTurn(rollout, turn, result, role, policy, options);
    if (result.terminated || result.truncated) {
      rollout.stopReason = result.terminated ? 'terminated' : 'truncated';
      return;
    }
    if (!appendObservation(policy, rollout, observation, actionTokens, limit)) return;
    await snapshot(rollout, node);
  } catch (error) {
    rollout.stopReason = 'error';
    rollout.error = describeError(error);
  }
}

/** What the turn sends the env: the action itself, its role's reading of it, or null (history only). */
function envActionOf(role: RolloutRole | undefined, action: string): string | null {
  if (role === undefined) return action;
  if (role.envAction) return role.envAction(action);
  return role.stepsEnv ? action : null;
}

/** The outcome of a turn that writes to the history only: the env neither moves nor answers. */
const HISTORY_ONLY: StepResult<string> = { observation: '', reward: 0, terminated: false, truncated: false, info: {} };

/** Adds one step's reward, tool calls, success and turn record to the rollout; returns the (cut) observation. */
function recordTurn(
  rollout: LiveRollout,
  turn: Pick<TrajectoryStep, 'node' | 'action' | 'actionTokens'> & { readonly envStep: boolean },
  result: StepResult<string>,
  role: RolloutRole | undefined,
  policy: RolloutPolicy,
  options: RolloutOptions,
): string {
  rollout.reward += result.reward;
  const calls = toolCallsOf(result.info);
  rollout.cost.toolCalls += calls;
  rollout.cost.llmTokens += result.info.cost?.llmTokens ?? 0;
  rollout.cost.wallMs += result.info.cost?.wallMs ?? 0;
  rollout.pathToolCalls += calls;
  // As the episode recorder: success is what the env said on the step that ended the episode.
  if (result.terminated || result.truncated) rollout.success = result.info.success === true;
  const observation = cutObservation(policy.format.tokenizer, result.observation, options.maxObservationTokens);
  rollout.steps.push({
    action: turn.action,
    observation,
    reward: result.reward,
    terminated: result.terminated,
    truncated: result.truncated,
    info: plainInfo(result.info),
    node: turn.node,
    actionTokens: turn.actionTokens,
    ...(role ? { role: role.name, envStep: turn.envStep, reusedTokens: rollout.reused } : {}),
  });
  return observation;
}

/**
 * Appends the observation (and the next role's cue) as the next user turn; when there is no room for
 * another action after it, ends the rollout as `context` instead and returns false.
 */
function appendObservation(
  policy: RolloutPolicy,
  rollout: LiveRollout,
  observation: string,
  actionTokens: number,
  limit: number,
): boolean {
  const { format } = policy;
  const role = nextRole(policy, rollout.steps);
  const ended = format.endsTurn(rollout.tokens.slice(rollout.tokens.length - actionTokens));
  const between = format.observationTokens(withCue(observation, role?.cue), ended);
  if (rollout.tokens.length + between.length >= limit) {
    // The observation's tokens would only be context for nothing (the turn keeps its text), and would push
    // the trajectory past what the trainer can score.
    rollout.stopReason = 'context';
    return false;
  }
  rollout.tokens.push(...between);
  rollout.logprobs.push(...between.map(() => 0));
  pushSegment(rollout.segments, 'observation', between.length, role);
  return true;
}

/** Frees every rollout's KV cache and closes its env (a close that fails is not the rollout's result). */
async function release(live: readonly LiveRollout[]): Promise<void> {
  for (const rollout of live) {
    for (const cache of rollout.caches.values()) cache.dispose();
    rollout.caches.clear();
  }
  await Promise.all(live.map((rollout) => rollout.start.env.close().catch(() => undefined)));
}

/** The env's info as a record keeps it: plain JSON. */
function plainInfo(info: Info): Record<string, unknown> {
  return JSON.parse(JSON.stringify(info)) as Record<string, unknown>;
}

/** Who acted, as the episode record's `agent`: the adapter (or `base`), or each role's. */
function agentName(policy: RolloutPolicy, options: RolloutOptions): string {
  if (!policy.roles) return `lm:${options.adapter ?? 'base'}`;
  return [...rolesByName(policy.roles).values()]
    .map((role) => `${role.name}=lm:${role.adapter ?? options.adapter ?? 'base'}`)
    .join(',');
}

/** The finished rollout as a record: the episode record's fields, then the trajectory's own. */
function toTrajectory(rollout: LiveRollout, agent: string): Trajectory {
  const { start } = rollout;
  const stopReason = rollout.stopReason ?? 'truncated';
  return {
    schema: TRAJECTORY_SCHEMA_ID,
    episodeId: start.id,
    envId: start.envId,
    envVersion: start.env.spec.packageVersion ?? null,
    seed: start.seed,
    resetOptions: null,
    agent,
    startedAt: rollout.startedAt,
    instructions: start.prefix.instructions,
    initialObservation: start.prefix.initialObservation,
    steps: rollout.steps,
    turns: rollout.steps.length,
    totalReward: rollout.reward,
    success: rollout.success,
    terminated: stopReason === 'terminated',
    truncated: stopReason === 'truncated',
    // The episode ran to its end; one stopped by a rollout budget, the context or an error was cut off.
    complete: stopReason === 'terminated' || stopReason === 'truncated',
    cost: rollout.cost,
    forkOf: start.forkOf ?? null,
    ...(rollout.error ? { error: rollout.error } : {}),
    group: start.group,
    ...(start.tree ? { tree: start.tree } : {}),
    tokens: rollout.tokens,
    segments: rollout.segments,
    logprobs: rollout.logprobs,
    stopReason,
    generatedTokens: rollout.generated,
    computedTokens: rollout.computed,
  };
}
