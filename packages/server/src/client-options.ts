import { ajv, InvalidOptionsError, type ClientOptions, type EnvRegistration } from '@turngym/core';
import type { ValidationDetail } from './protocol';
import { echoedInput, validationDetails } from './request-validation';
import { InvalidRequestError } from './server-errors';

/**
 * How the operator widens what clients may set, on top of what each env declares safe (`clientOptions` of its
 * registration): option names (each with the env's own schema), `['*']` (every option), or a JSON Schema
 * whose `properties` add options or replace an env's narrower schema for them (`{"properties": {"articles":
 * {"maximum": 20000}}}`). The same widening applies to every served env; an option an env does not have is
 * still refused by that env's own schema.
 */
export type ClientOptionsWidening = string[] | { properties: Record<string, unknown> };

type Loc = readonly (string | number)[];

interface EnvPolicy {
  /** Every option a client may set (all of them when `*`). */
  readonly allowed: readonly string[] | '*';
  readonly validate: ReturnType<typeof ajv.compile>;
}

/**
 * The env's declared subset plus the operator's widening, as property schemas (`{}`: the env's own schema).
 * A narrowing schema may leave out `type` (`{"maximum": 5000}`): it is taken from the env's own schema, which
 * ajv's strict mode wants beside `maximum`, `maxItems` and the like.
 */
function allowedProperties(
  registration: EnvRegistration,
  widening: ClientOptionsWidening | undefined,
): Record<string, object> | '*' {
  if (Array.isArray(widening) && widening.includes('*')) return '*';
  const declared = (registration.clientOptions ?? {}) as ClientOptions<Record<string, unknown>>;
  const own = ((registration.optionsSchema as { properties?: Record<string, { type?: unknown }> } | undefined)
    ?.properties ?? {}) as Record<string, { type?: unknown }>;
  const narrowed = (name: string, schema: unknown): object => {
    if (schema === true) return {};
    const narrowing = schema as Record<string, unknown>;
    const type = own[name]?.type;
    return 'type' in narrowing || 'enum' in narrowing || 'const' in narrowing || type === undefined
      ? narrowing
      : { type, ...narrowing };
  };
  const properties: Record<string, object> = {};
  for (const [name, schema] of Object.entries(declared)) {
    if (schema !== undefined) properties[name] = narrowed(name, schema);
  }
  if (Array.isArray(widening)) for (const name of widening) properties[name] = {};
  else if (widening)
    for (const [name, schema] of Object.entries(widening.properties)) properties[name] = narrowed(name, schema);
  return properties;
}

/**
 * The server-side allow-list of client-settable env options. Every `env_options` a client sends (HTTP `/reset`
 * and `/step`, WebSocket `reset`/`session`, `/mux` `open`) is checked here before the env is built, so an
 * option the operator did not allow never reaches the env: the refusal names the option and says nothing the
 * env would have found out (whether a file exists, what it holds).
 */
export class ClientOptionsPolicy {
  private readonly policies = new Map<string, EnvPolicy>();

  constructor(private readonly widening: ClientOptionsWidening | undefined) {}

  /** Compiles the policy of a served env (at start, so a bad `--client-options` schema fails there). */
  add(envId: string, registration: EnvRegistration): void {
    const properties = allowedProperties(registration, this.widening);
    const schema =
      properties === '*'
        ? { type: 'object' }
        : { type: 'object', additionalProperties: false, properties, required: [] as string[] };
    let validate: EnvPolicy['validate'];
    try {
      validate = ajv.compile(schema);
    } catch (error) {
      throw new InvalidOptionsError('serveEnvs', [`clientOptions: ${(error as Error).message}`]);
    }
    this.policies.set(envId, { allowed: properties === '*' ? '*' : Object.keys(properties), validate });
  }

  /** The option names clients may set on `envId` (`*`: all). */
  allowedFor(envId: string): readonly string[] | '*' {
    return this.policies.get(envId)?.allowed ?? [];
  }

  /** Throws a VALIDATION_ERROR naming each option the client may not set, or may not set to that value. */
  check(envId: string, options: Readonly<Record<string, unknown>> | undefined, loc: Loc): void {
    if (options === undefined) return;
    const policy = this.policies.get(envId);
    if (!policy) throw new InvalidRequestError(`${envId} takes no client options`, []);
    // A shallow copy: ajv's useDefaults must not write an operator schema's defaults into the client's options.
    if (policy.validate({ ...options })) return;
    const details: ValidationDetail[] = [];
    for (const detail of validationDetails(policy.validate.errors, loc)) {
      if (detail.type !== 'extra_forbidden') {
        details.push(detail);
        continue;
      }
      const name = String(detail.loc[detail.loc.length - 1]);
      const allowed = policy.allowed === '*' ? [] : policy.allowed;
      details.push({
        type: 'extra_forbidden',
        loc: detail.loc,
        msg:
          `${[...loc, name].join('.')} cannot be set by clients of this server ` +
          `(client-settable options of ${envId}: ${allowed.length > 0 ? allowed.join(', ') : 'none'}); ` +
          'the operator can allow it with `turngym serve --client-options`',
        ...echoedInput(options[name]),
      });
    }
    throw new InvalidRequestError(`Option not allowed: ${details.map((detail) => detail.msg).join('; ')}`, details);
  }
}
