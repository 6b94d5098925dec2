import type { Action, Env, Info, ResetArgs, ResetResult, StepResult } from '@turngym/spec';
import { checkSeed } from '../check-seed';
import { TurnGymError } from '../errors';
import { startEpisodeRecord, type EpisodeRecord, type RecordSink } from '../episode-record';
import { nestsDeeperThan } from '../tool-calls';
import { Wrapper } from './wrapper';

export interface RecorderOptions {
  sink: RecordSink;
  /** Name of the agent, written into each record. */
  agent?: string;
  envVersion?: string;
}

/** JSON-safe copy of an info: drops functions and undefined, keeps everything a reader can use. */
function plainInfo(info: Info): Record<string, unknown> {
  return JSON.parse(JSON.stringify(info)) as Record<string, unknown>;
}

/** Deeper than any call an env takes (tool arguments: 100 levels), shallow enough for a recursive copy or JSON. */
const RECORDED_DEPTH = 1000;

/**
 * The action as the record keeps it: a copy, since a caller that reuses its call object for the next call must not
 * rewrite the record. A call nested thousands deep is an ordinary malformed step (the env answers with feedback),
 * but copying it, or writing the record as JSON, overflows the stack: it threw a RangeError out of the step the
 * env had already taken. Such an action is kept as a note saying what it was.
 */
function recordedAction(action: unknown): unknown {
  if (typeof action !== 'object' || action === null) return action;
  if (nestsDeeperThan(action, RECORDED_DEPTH)) {
    const name = (action as { name?: unknown }).name;
    return `[not recorded: ${typeof name === 'string' ? `a call of ${name.slice(0, 64)}` : 'an action'} nested more than ${RECORDED_DEPTH} levels deep]`;
  }
  return structuredClone(action);
}

/**
 * Writes one record per episode to a sink: when it ends, or (marked incomplete) when it is abandoned by a
 * reset or close. A fork records its continuation as its own episode with `forkOf` set.
 */
export class EpisodeRecorder<Obs = string, Act = Action> extends Wrapper<Obs, Act> {
  private current: EpisodeRecord | undefined;
  private counter = 0;
  private forkCounter = 0;

  constructor(
    env: Env<Obs, Act>,
    readonly options: RecorderOptions,
    private readonly idPrefix = '',
  ) {
    super(env);
  }

  override async reset(args: ResetArgs = {}): Promise<ResetResult<Obs>> {
    // A refused seed abandons nothing (BaseEnv and OrderEnforcing leave the episode as it was), so it writes no record.
    if (args.seed !== undefined) checkSeed(args.seed, `${this.spec.id} reset()`);
    let result: ResetResult<Obs>;
    try {
      result = await this.env.reset(args);
    } catch (error) {
      // Refused because a step is still in flight: that episode goes on, and its step still belongs to it.
      if (!(TurnGymError.isInstance(error) && error.code === 'ENV_BUSY')) this.flush(false);
      throw error;
    }
    this.flush(false);
    // A seedless reset's seed is the one the env reports (info.seed: BaseEnv, and a remote env over the wire),
    // so the record can be replayed; an env that reports none may still expose it on the unwrapped env.
    const unwrappedSeed = (this.unwrapped as { seed?: unknown }).seed;
    const reported = typeof result.info.seed === 'number' ? result.info.seed : unwrappedSeed;
    const seed = args.seed ?? (typeof reported === 'number' ? reported : null);
    this.counter += 1;
    this.current = startEpisodeRecord({
      episodeId: `${this.idPrefix}${this.spec.id}#${seed ?? 'unseeded'}.${this.counter}`,
      envId: this.spec.id,
      envVersion: this.options.envVersion ?? this.spec.packageVersion ?? null,
      seed,
      resetOptions: args.options ?? null,
      agent: this.options.agent ?? null,
      instructions: result.info.instructions ?? null,
      initialObservation: result.observation,
      cost: {
        toolCalls: result.info.cost?.toolCalls ?? 0,
        llmTokens: result.info.cost?.llmTokens ?? 0,
        wallMs: result.info.cost?.wallMs ?? 0,
      },
    });
    return result;
  }

  override async step(action: Act): Promise<StepResult<Obs>> {
    const result = await this.env.step(action);
    const record = this.current;
    if (record) {
      record.steps.push({
        action: recordedAction(action),
        observation: result.observation,
        reward: result.reward,
        terminated: result.terminated,
        truncated: result.truncated,
        info: plainInfo(result.info),
      });
      record.turns += 1;
      record.totalReward += result.reward;
      record.cost.toolCalls += result.info.cost?.toolCalls ?? 0;
      record.cost.llmTokens += result.info.cost?.llmTokens ?? 0;
      record.cost.wallMs += result.info.cost?.wallMs ?? 0;
      if (result.terminated || result.truncated) {
        record.success = result.info.success === true;
        record.terminated = result.terminated;
        record.truncated = result.truncated;
        this.flush(true);
      }
    }
    return result;
  }

  override async fork(): Promise<Env<Obs, Act>> {
    this.forkCounter += 1;
    const parent = this.current;
    const twin = new EpisodeRecorder(await this.env.fork(), this.options, `${this.idPrefix}fork${this.forkCounter}:`);
    if (parent) {
      twin.current = {
        ...structuredClone(parent),
        episodeId: `${parent.episodeId}/fork${this.forkCounter}`,
        forkOf: { episodeId: parent.episodeId, turn: parent.turns },
      };
    }
    return twin;
  }

  override async close(): Promise<void> {
    this.flush(false);
    await this.env.close();
  }

  private flush(complete: boolean): void {
    if (!this.current) return;
    this.current.complete = complete;
    this.options.sink.write(this.current);
    this.current = undefined;
  }
}
