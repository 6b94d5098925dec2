import type { Agent, Env } from '@turngym/spec';
import type { JSONSchemaType } from 'ajv';
import { closest, distance } from 'fastest-levenshtein';
import { formatEnvId, parseEnvId } from './env-id';
import {
  AlreadyRegisteredError,
  InvalidIdError,
  InvalidOptionsError,
  InvalidToolSchemaError,
  NameNotFoundError,
  VersionNotFoundError,
} from './errors';
import { defineOptions } from './options';
import { ajv, compileToolSchema, describeErrors, type Validator } from './schema-validation';
import { Budget, type BudgetLimits } from './wrappers/budget';
import { EpisodeRecorder } from './wrappers/episode-recorder';
import { OrderEnforcing } from './wrappers/order-enforcing';
import { TimeLimit } from './wrappers/time-limit';
import type { RecordSink } from './episode-record';

/** Plain dependencies an env may receive (ChatModels for LLM roles, a browser pool, a logger …). */
export type EnvDependencies = Readonly<Record<string, unknown>>;

/** What an agent factory gets: the env it will act in (unwrapped gives privileged access for experts). */
export interface AgentContext {
  readonly env: Env<any, any>;
  /** Seed for the agent's own randomness. */
  readonly seed: number;
}

export type AgentFactory = (context: AgentContext) => Agent<any, any>;

/**
 * Options a remote client may set through the env server (`env_options`), each with `true` (the option's own
 * schema) or a JSON Schema that narrows it (a smaller range, a few safe values). The server refuses every
 * option not listed, before the env is built: an option that names a file, a URL, a corpus, a model or a size
 * past the env's small range stays the operator's (`turngym serve --client-options` widens the list).
 */
export type ClientOptions<O> = { readonly [K in keyof O]?: true | Readonly<Record<string, unknown>> };

export interface EnvRegistration<O = any> {
  /** `[namespace/]name-vN`. */
  readonly id: string;
  /** Builds the env from validated options. */
  readonly entryPoint: (options: O, dependencies: EnvDependencies) => Env<any, any> | Promise<Env<any, any>>;
  /** JSON Schema of the options (with defaults); `additionalProperties: false`. */
  readonly optionsSchema?: JSONSchemaType<O>;
  /** Options fixed by this id (a variant of the same entry point, Gymnasium's `kwargs`). */
  readonly fixedOptions?: Partial<O>;
  /** Options a client of the env server may set (default: none). */
  readonly clientOptions?: ClientOptions<O>;
  /** Baseline agents: `scripted` (an expert with privileged access) and `random`. */
  readonly agents?: Readonly<Record<string, AgentFactory>>;
  /** The npm package that registered it. */
  readonly packageName?: string;
  readonly packageVersion?: string;
}

export interface MakeOptions {
  /** Env options, validated against the registration's schema. */
  options?: Record<string, unknown>;
  /** Turn limit; default the env's `spec.maxTurns`. */
  maxTurns?: number;
  budget?: BudgetLimits;
  /** Record every episode to this sink. */
  record?: { sink: RecordSink; agent?: string };
  dependencies?: EnvDependencies;
  /** Skip the standard wrapper stack (benchmarks, the checker's bare-env tests). */
  bare?: boolean;
}

/** The wrapper settings of `make()`, checked before the env is built: a bad one used to leak a started env. */
const validateWrapperSettings = ajv.compile({
  type: 'object',
  additionalProperties: false,
  properties: {
    maxTurns: { type: 'integer', minimum: 1 },
    budget: {
      type: 'object',
      additionalProperties: false,
      properties: { maxToolCalls: { type: 'integer', minimum: 0 }, maxLlmTokens: { type: 'integer', minimum: 0 } },
    },
  },
});

interface Entry {
  readonly registration: EnvRegistration;
  readonly parsed: ReturnType<typeof parseEnvId>;
  readonly validate: Validator<Record<string, unknown>>;
}

/** The registry of environment ids (Gymnasium's `register`/`make`/`registry`). */
export class Registry {
  private readonly entries = new Map<string, Entry>();

  register<O>(registration: EnvRegistration<O>): void {
    const parsed = parseEnvId(registration.id);
    const id = formatEnvId(parsed);
    if (this.entries.has(id)) throw new AlreadyRegisteredError(id);
    const schema =
      registration.optionsSchema ?? ({ type: 'object', additionalProperties: false, properties: {} } as never);
    const validate = defineOptions<Record<string, unknown>>(id, schema as never);
    this.entries.set(id, { registration: registration as EnvRegistration, parsed, validate });
  }

  has(id: string): boolean {
    return this.entries.has(id);
  }

  /** Registered ids, sorted. */
  list(): string[] {
    return [...this.entries.keys()].sort();
  }

  /** The registration of `id`, or a typed error naming the closest ids or the versions that exist. */
  get(id: string): EnvRegistration {
    return this.entry(id).registration;
  }

  /** Validates options (defaults filled) without building the env; throws `InvalidOptionsError`. */
  resolveOptions(id: string, options: Record<string, unknown> = {}): Record<string, unknown> {
    const entry = this.entry(id);
    return entry.validate({ ...options, ...(entry.registration.fixedOptions ?? {}) });
  }

  /** Builds the env with the standard wrapper stack: OrderEnforcing → TimeLimit → Budget → EpisodeRecorder. */
  async make(id: string, make: MakeOptions = {}): Promise<Env<any, any>> {
    const entry = this.entry(id);
    const fixed = entry.registration.fixedOptions ?? {};
    for (const key of Object.keys(make.options ?? {})) {
      if (key in fixed) {
        throw new InvalidOptionsError(id, [
          `options.${key} is fixed by this id (${JSON.stringify((fixed as Record<string, unknown>)[key])})`,
        ]);
      }
    }
    const options = this.resolveOptions(id, make.options);
    const settings = {
      ...(make.maxTurns !== undefined ? { maxTurns: make.maxTurns } : {}),
      ...(make.budget !== undefined ? { budget: make.budget } : {}),
    };
    // Before the env is built: an env may start a process or open a connection that a later throw would leak.
    if (!validateWrapperSettings(settings))
      throw new InvalidOptionsError(`make(${id})`, describeErrors(validateWrapperSettings.errors, 'make'));
    const bare: Env<any, any> = await entry.registration.entryPoint(options, make.dependencies ?? {});
    try {
      checkToolSchemas(bare);
    } catch (error) {
      await bare.close();
      throw error;
    }
    if (make.bare) return bare;
    try {
      let env: Env<any, any> = new OrderEnforcing(bare);
      env = new TimeLimit(env, make.maxTurns ?? env.spec.maxTurns);
      if (make.budget && Object.keys(make.budget).length > 0) env = new Budget(env, make.budget);
      if (make.record) {
        env = new EpisodeRecorder(env, {
          sink: make.record.sink,
          ...(make.record.agent ? { agent: make.record.agent } : {}),
          ...(entry.registration.packageVersion ? { envVersion: entry.registration.packageVersion } : {}),
        });
      }
      return env;
    } catch (error) {
      await bare.close();
      throw error;
    }
  }

  /** Builds a baseline agent registered with the env (`scripted`, `random`, …). */
  makeAgent(id: string, name: string, context: AgentContext): Agent<any, any> {
    const agents = this.entry(id).registration.agents ?? {};
    const factory = agents[name];
    if (!factory) {
      const known = Object.keys(agents);
      throw new NameNotFoundError(`${id} agent "${name}"`, known);
    }
    return factory(context);
  }

  private entry(id: string): Entry {
    const exact = this.entries.get(id);
    if (exact) return exact;
    // An empty id (an unset shell variable) has no closest name: a guess would send the user after it.
    if (id.trim() === '') throw new InvalidIdError(id);
    let parsed: ReturnType<typeof parseEnvId> | undefined;
    try {
      parsed = parseEnvId(id);
    } catch {
      parsed = undefined;
    }
    const normalised = parsed ? this.entries.get(formatEnvId(parsed)) : undefined;
    if (normalised) return normalised;
    const family = parsed?.family ?? id.replace(/-v\d*$/, '');
    const sameFamily = [...this.entries.values()].filter((entry) => entry.parsed.family === family);
    if (sameFamily.length > 0) {
      throw new VersionNotFoundError(id, sameFamily.map((entry) => formatEnvId(entry.parsed)).sort());
    }
    // Suggest by family name (and by bare name, so "math-thought-v1" finds "turngym/math-thought-v1").
    const ids = this.list();
    const candidates = ids.filter((candidate) => {
      const other = parseEnvId(candidate);
      return (
        other.name === (parsed?.name ?? family) ||
        distance(other.family, family) <= Math.max(3, Math.floor(family.length / 3)) ||
        distance(other.name, parsed?.name ?? family) <= Math.max(2, Math.floor((parsed?.name ?? family).length / 3))
      );
    });
    const suggestions = candidates.length > 0 ? candidates : ids.length > 0 ? [closest(id, ids)] : [];
    throw new NameNotFoundError(id, suggestions.slice(0, 5));
  }
}

/** The process-wide default registry that env packages register into. */
export const registry = new Registry();

/**
 * Compiles the parameter schema of every tool the env offers (each compiled once per schema object, so its steps
 * reuse it): one that cannot be compiled is `InvalidToolSchemaError` now, naming the tool, rather than an error
 * thrown out of the first step() that calls it, mid-episode.
 */
function checkToolSchemas(env: Env<any, any>): void {
  const space = env.spec?.actionSpace;
  if (space?.type !== 'tools' || !Array.isArray(space.tools)) return;
  for (const tool of space.tools) {
    try {
      compileToolSchema(tool?.parameters);
    } catch (error) {
      throw new InvalidToolSchemaError(env.spec.id, String(tool?.name), (error as Error).message);
    }
  }
}
