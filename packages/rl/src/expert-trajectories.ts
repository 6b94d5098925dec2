import {
  defineOptions,
  formatToolCall,
  mixSeed,
  SeededRng,
  registry as defaultRegistry,
  type EnvDependencies,
  type JSONSchemaType,
  type Registry,
} from '@turngym/core';
import type { Action, Agent, Env, Info, Space } from '@turngym/spec';
import type { ChatTurnFormat } from './chat-turn-format';
import { cutObservation } from './internal/observation-cut';
import type { TokenSegment } from './loss-mask';
import { ExpertEpisodeError } from './sft-errors';
import { TRAJECTORY_SCHEMA_ID, type Trajectory, type TrajectoryStep } from './trajectory';

/** Which episodes of which env to record, and how to render them (as rollouts would). */
export interface ExpertTrajectoryOptions {
  /** A registered env id, e.g. `turngym/math-thought-v1`. */
  envId: string;
  /** The env's options (validated by the registry against the env's schema). */
  envOptions?: Record<string, unknown>;
  /** One episode per seed; the seed's index is the trajectory's `group`. */
  seeds: number[];
  /** Start with the env's `info.instructions` as the system message: must match the rollouts to come. */
  instructions: boolean;
  /** Cut longer observations as rollouts do (same option, same rule); omitted = kept whole. */
  maxObservationTokens?: number;
  /** The baseline agent registered with the env that plays: its privileged expert. */
  agent: string;
  /** Episodes played at once (each in its own env). */
  concurrency: number;
  /** Trajectory ids are `<idPrefix>/g<index of the seed>`. */
  idPrefix: string;
  /**
   * DART (Laskey et al., 2017): the chance, per expert action, that a corrupted copy of it (one character
   * changed, dropped or repeated) is sent first. The env answers the mistake, and the expert then acts from
   * that answer, so the episode shows a recovery. The corrupted tokens are a `disturbance` segment: in the
   * sequence, never trained on. An episode whose disturbance ends it is dropped. 0 = the expert's own episodes.
   */
  disturbance: number;
  /** Drop an episode longer than this many tokens (listed in `dropped`); omitted = keep every length. */
  maxTokens?: number;
}

export const expertTrajectoryOptionsSchema: JSONSchemaType<ExpertTrajectoryOptions> = {
  type: 'object',
  additionalProperties: false,
  required: ['envId', 'seeds'],
  properties: {
    envId: { type: 'string', minLength: 1 },
    envOptions: { type: 'object', nullable: true, required: [], additionalProperties: true },
    seeds: { type: 'array', items: { type: 'integer' }, minItems: 1 },
    instructions: { type: 'boolean', default: true },
    maxObservationTokens: { type: 'integer', minimum: 1, nullable: true },
    agent: { type: 'string', minLength: 1, default: 'scripted' },
    concurrency: { type: 'integer', minimum: 1, default: 8 },
    idPrefix: { type: 'string', default: 'expert' },
    disturbance: { type: 'number', minimum: 0, maximum: 1, default: 0 },
    maxTokens: { type: 'integer', minimum: 1, nullable: true },
  },
} as unknown as JSONSchemaType<ExpertTrajectoryOptions>;

export const validateExpertTrajectoryOptions = defineOptions<ExpertTrajectoryOptions>(
  'collectExpertTrajectories',
  expertTrajectoryOptionsSchema,
);

/** The options, plus what is not JSON: the tokenization and where the env comes from. */
export interface ExpertTrajectoryRequest
  extends Partial<Omit<ExpertTrajectoryOptions, 'envId' | 'seeds'>>, Pick<ExpertTrajectoryOptions, 'envId' | 'seeds'> {
  /** The policy's turn format: the same one the rollouts use, so SFT trains the exact sequences they sample. */
  readonly format: ChatTurnFormat;
  /** Where `envId` is registered (default: core's process-wide registry). */
  readonly registry?: Registry;
  /** Passed to the env's entry point (LLM roles, a browser pool …). */
  readonly dependencies?: EnvDependencies;
}

/** An episode the expert did not solve: not trained on. */
export interface DroppedExpertEpisode {
  readonly seed: number;
  readonly group: number;
  readonly reason: string;
  readonly turns: number;
  readonly reward: number;
}

export interface ExpertTrajectories {
  /** The solved episodes, in seed order, as rollout records (logprobs 0: no model sampled them). */
  readonly trajectories: Trajectory[];
  /** The episodes left out (unsolved or cut short), in seed order. */
  readonly dropped: DroppedExpertEpisode[];
}

/**
 * The text a policy would write for an expert's action, as the rollout engine sends text to the env:
 * text as it is; a tool call in its text syntax (`NAME({json})`, which `parseToolCall` reads back);
 * a discrete index as its label (a discrete env takes the label as text), or the number when the option has
 * no label.
 */
export function expertActionText(action: Action, space: Space): string {
  if (typeof action === 'string') return action;
  if (typeof action === 'number') {
    const label = space.type === 'discrete' ? space.labels[action] : undefined;
    return label !== undefined && label !== '' ? label : String(action);
  }
  return formatToolCall({ name: action.name, arguments: action.arguments ?? {} });
}

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

/**
 * One seeded typo in an action's text: a character replaced by another letter, dropped, or repeated. It is
 * the kind of slip a sampled policy makes when it copies a name, so the recovery shown is one it will need.
 */
export function disturbActionText(text: string, rng: SeededRng): string {
  if (text.length === 0) return LETTERS[rng.int(0, LETTERS.length - 1)] as string;
  const at = rng.int(0, text.length - 1);
  const kind = rng.int(0, 2);
  if (kind === 1 && text.length > 1) return text.slice(0, at) + text.slice(at + 1);
  if (kind === 2) return text.slice(0, at + 1) + text.slice(at);
  let letter = LETTERS[rng.int(0, LETTERS.length - 1)] as string;
  if (letter === text[at]?.toLowerCase()) letter = LETTERS[(LETTERS.indexOf(letter) + 1) % LETTERS.length] as string;
  return text.slice(0, at) + letter + text.slice(at + 1);
}

/**
 * Plays the env's scripted expert on each seed and records the episodes the expert solved as trajectories
 * of the same shape, token for token, as sampled rollouts (`collectChains`): the prompt segment (the
 * instructions when asked for, the first observation, the assistant header), then per turn an `action`
 * segment — the action's text and the end of turn, what the policy must learn to write — and, unless the
 * episode ended there, an `observation` segment. The env is stepped with the action's *text*, so a kept
 * episode is proof that the text form works for the env, as the policy will have to send it.
 *
 * Only episodes that end with `info.success === true` are kept: behaviour cloning copies whatever it is
 * shown. The others are listed in `dropped` with the reason.
 */
export async function collectExpertTrajectories(request: ExpertTrajectoryRequest): Promise<ExpertTrajectories> {
  const { format, registry = defaultRegistry, dependencies, ...rest } = request;
  const options = validateExpertTrajectoryOptions({ ...rest, seeds: [...rest.seeds] });
  const outcomes: (Trajectory | DroppedExpertEpisode)[] = new Array(options.seeds.length);
  let next = 0;
  let failed = false;
  // A few workers, each with its own env reset per seed: envs that are slow to build (a browser, a
  // sandbox) are built `concurrency` times, not once per seed.
  const worker = async (): Promise<void> => {
    if (next >= options.seeds.length) return;
    const env = (await registry.make(options.envId, {
      ...(options.envOptions ? { options: options.envOptions } : {}),
      ...(dependencies ? { dependencies } : {}),
    })) as Env<string, Action>;
    try {
      while (!failed && next < options.seeds.length) {
        const group = next;
        next += 1;
        outcomes[group] = await playExpertEpisode(env, group, options, format, registry);
      }
    } catch (error) {
      // The other workers stop after their current episode.
      failed = true;
      throw error;
    } finally {
      await env.close();
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.concurrency, options.seeds.length) }, worker));
  const trajectories: Trajectory[] = [];
  const dropped: DroppedExpertEpisode[] = [];
  for (const outcome of outcomes) {
    if ('schema' in outcome) trajectories.push(outcome);
    else dropped.push(outcome);
  }
  return { trajectories, dropped };
}

async function playExpertEpisode(
  env: Env<string, Action>,
  group: number,
  options: ExpertTrajectoryOptions,
  format: ChatTurnFormat,
  registry: Registry,
): Promise<Trajectory | DroppedExpertEpisode> {
  const seed = options.seeds[group] as number;
  const id = `${options.idPrefix}/g${group}`;
  const cut = (text: string): string => cutObservation(format.tokenizer, text, options.maxObservationTokens);
  let agent: Agent<string, Action> | undefined;
  try {
    const reset = await env.reset({ seed });
    agent = registry.makeAgent(options.envId, options.agent, { env, seed }) as Agent<string, Action>;
    await agent.start({ seed, spec: env.spec, observation: reset.observation, info: reset.info });

    // The prompt exactly as rollout-engine's resetPrefix renders it.
    const system =
      options.instructions && typeof reset.info.instructions === 'string' ? reset.info.instructions : undefined;
    const tokens = format.promptTokens(system, cut(reset.observation));
    const segments: TokenSegment[] = [{ kind: 'prompt', tokenCount: tokens.length }];
    const startedAt = new Date().toISOString();
    const turns: TrajectoryStep[] = [];
    let observation = reset.observation;
    let info: Info = reset.info;
    let reward = 0;
    const cost = { toolCalls: 0, llmTokens: 0, wallMs: 0 };
    let actionTokenTotal = 0;
    const disturbances = new SeededRng(mixSeed(seed, 0xda27));
    // Sends one action's text to the env and records it: its tokens as a segment of `kind`, and its turn.
    const play = async (text: string, kind: 'action' | 'disturbance') => {
      const textTokens = format.actionTokens(text);
      tokens.push(...textTokens);
      segments.push({ kind, tokenCount: textTokens.length });
      const result = await env.step(text);
      reward += result.reward;
      cost.toolCalls += result.info.cost?.toolCalls ?? 0;
      cost.llmTokens += result.info.cost?.llmTokens ?? 0;
      cost.wallMs += result.info.cost?.wallMs ?? 0;
      observation = result.observation;
      info = result.info;
      const shown = cut(result.observation);
      turns.push({
        action: text,
        observation: shown,
        reward: result.reward,
        terminated: result.terminated,
        truncated: result.truncated,
        info: JSON.parse(JSON.stringify(info)) as Record<string, unknown>,
        node: `${id}/${turns.length}`,
        actionTokens: textTokens.length,
        ...(kind === 'disturbance' ? { disturbed: true } : {}),
      });
      return { result, shown, tokenCount: textTokens.length };
    };
    for (;;) {
      let action = expertActionText(await agent.act(observation, info), env.spec.actionSpace);
      if (options.disturbance > 0 && disturbances.next() < options.disturbance) {
        const slip = await play(disturbActionText(action, disturbances), 'disturbance');
        if (slip.result.terminated || slip.result.truncated) {
          return { seed, group, reason: 'a disturbance ended the episode', turns: turns.length, reward };
        }
        const between = format.observationTokens(slip.shown, true);
        tokens.push(...between);
        segments.push({ kind: 'observation', tokenCount: between.length });
        // The expert acts again from the env's answer to the slip: the correction is what is trained on.
        action = expertActionText(await agent.act(observation, info), env.spec.actionSpace);
      }
      const { result, shown, tokenCount } = await play(action, 'action');
      actionTokenTotal += tokenCount;
      if (result.terminated || result.truncated) {
        if (info.success !== true) {
          const why = result.truncated
            ? `truncated${typeof info.truncatedBy === 'string' ? ` (${info.truncatedBy})` : ''} before solving`
            : info.success === false
              ? 'ended unsolved (info.success is false)'
              : 'ended without reporting info.success';
          return { seed, group, reason: why, turns: turns.length, reward };
        }
        if (options.maxTokens !== undefined && tokens.length > options.maxTokens) {
          const why = `longer than maxTokens (${tokens.length} > ${options.maxTokens} tokens)`;
          return { seed, group, reason: why, turns: turns.length, reward };
        }
        return {
          schema: TRAJECTORY_SCHEMA_ID,
          episodeId: id,
          envId: options.envId,
          envVersion: env.spec.packageVersion ?? null,
          seed,
          resetOptions: null,
          agent: options.agent,
          startedAt,
          instructions: typeof reset.info.instructions === 'string' ? reset.info.instructions : null,
          initialObservation: cut(reset.observation),
          steps: turns,
          turns: turns.length,
          totalReward: reward,
          success: true,
          terminated: result.terminated,
          truncated: result.truncated,
          complete: true,
          cost,
          forkOf: null,
          group,
          tokens,
          segments,
          logprobs: tokens.map(() => 0),
          stopReason: result.terminated ? 'terminated' : 'truncated',
          // The expert wrote these tokens; no model ran, so nothing was computed.
          generatedTokens: actionTokenTotal,
          computedTokens: 0,
        };
      }
      // The expert's action always ends its turn (actionTokens appends the end of turn).
      const between = format.observationTokens(shown, true);
      tokens.push(...between);
      segments.push({ kind: 'observation', tokenCount: between.length });
    }
  } catch (error) {
    throw new ExpertEpisodeError(options.envId, options.agent, seed, error);
  } finally {
    await agent?.close?.();
  }
}
