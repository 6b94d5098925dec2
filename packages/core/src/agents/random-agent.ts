import type { Action, Agent, AgentEpisodeStart, EnvSpec, Info, JsonSchema, ToolSpec } from '@turngym/spec';
import { formatToolCall } from '../tool-calls';
import { SeededRng } from '../seeded-rng';

const WORDS = ['alpha', 'river', 'seven', 'blue', 'north', 'paper', 'stone', 'quick', 'lamp', 'orbit'];

/** A value that satisfies simple JSON Schemas (types, enums, bounds); good enough for baseline calls. */
function sample(schema: JsonSchema, rng: SeededRng): unknown {
  if (Array.isArray(schema.enum)) return rng.pick(schema.enum as unknown[]);
  if ('const' in schema) return schema.const;
  const type = Array.isArray(schema.type) ? rng.pick(schema.type as string[]) : schema.type;
  switch (type) {
    case 'integer':
    case 'number': {
      const min = typeof schema.minimum === 'number' ? schema.minimum : 0;
      const max = typeof schema.maximum === 'number' ? schema.maximum : min + 20;
      return type === 'integer' ? rng.int(Math.ceil(min), Math.floor(max)) : min + rng.next() * (max - min);
    }
    case 'boolean':
      return rng.bool();
    case 'array': {
      const items = (schema.items ?? {}) as JsonSchema;
      const minItems = typeof schema.minItems === 'number' ? schema.minItems : 1;
      return Array.from({ length: minItems + rng.int(0, 1) }, () => sample(items, rng));
    }
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
      const required = new Set((schema.required ?? []) as string[]);
      const out: Record<string, unknown> = {};
      for (const [name, property] of Object.entries(properties)) {
        if (required.has(name) || rng.bool(0.3)) out[name] = sample(property, rng);
      }
      return out;
    }
    default: {
      const minLength = typeof schema.minLength === 'number' ? schema.minLength : 1;
      let text = rng.pick(WORDS);
      while (text.length < minLength) text += ` ${rng.pick(WORDS)}`;
      return typeof schema.maxLength === 'number' ? text.slice(0, schema.maxLength) : text;
    }
  }
}

/**
 * The generic random baseline: picks a legal option (discrete), calls a random tool with sampled
 * arguments (tools), or sends one of the space's example actions (text). Seeded: same seed, same actions.
 */
export class RandomAgent implements Agent<unknown, Action> {
  readonly name = 'random';
  private rng: SeededRng;
  private spec: EnvSpec | undefined;

  constructor(seed: number) {
    this.rng = new SeededRng(seed);
  }

  async start(episode: AgentEpisodeStart<unknown>): Promise<void> {
    this.spec = episode.spec;
  }

  async act(_observation: unknown, info: Info): Promise<Action> {
    const space = this.spec?.actionSpace;
    if (!space) throw new Error('RandomAgent.act() before start()');
    switch (space.type) {
      case 'discrete': {
        const allowed = Array.from({ length: space.n }, (_, i) => i).filter((i) => info.actionMask?.[i] !== false);
        return this.rng.pick(allowed.length > 0 ? allowed : [0]);
      }
      case 'tools': {
        if (space.examples && space.examples.length > 0 && this.rng.bool(0.5)) return this.rng.pick(space.examples);
        const tool: ToolSpec = this.rng.pick(space.tools);
        return formatToolCall({
          name: tool.name,
          arguments: sample(tool.parameters, this.rng) as Record<string, unknown>,
        });
      }
      case 'text':
        return this.rng.pick(space.examples && space.examples.length > 0 ? space.examples : WORDS);
    }
  }
}
