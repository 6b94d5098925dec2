import { BaseEnv, InvalidOptionsError, parseToolCall, type EnvResetOutcome, type EnvStepOutcome } from '@turngym/core';
import type { Action, EnvSpec, ToolSpec } from '@turngym/spec';
import { validateExampleOptions, type ExampleOptions } from './example-options';

const WORDS = [
  'amber',
  'birch',
  'cobalt',
  'delta',
  'ember',
  'fjord',
  'garnet',
  'harbor',
  'indigo',
  'juniper',
  'kestrel',
  'lumen',
];

export const EXAMPLE_TOOLS: readonly ToolSpec[] = [
  {
    name: 'LOOKUP',
    description: 'Read the value stored under a key. A value is either the code or "see <key>".',
    parameters: {
      type: 'object',
      additionalProperties: false,
      required: ['key'],
      properties: { key: { type: 'string', minLength: 1, maxLength: 64 } },
    },
  },
  {
    name: 'SUBMIT',
    description: 'Submit the code and end the episode.',
    parameters: {
      type: 'object',
      additionalProperties: false,
      required: ['answer'],
      properties: { answer: { type: 'string', maxLength: 64 } },
    },
  },
];

const INSTRUCTIONS = [
  'You are looking for a secret code in a key-value store.',
  'Call one tool per turn: LOOKUP(key) reads a key; a value is either the code or "see <key>", pointing',
  'to the next key. When you have the code, call SUBMIT(code). Example: LOOKUP(amber-17).',
].join('\n');

/**
 * The template environment: follow a chain of keys in a small store to a code, then submit it.
 * Small on purpose: it shows every part an env needs (options, tools, feedback for malformed calls,
 * hooks, baselines) and is what `turngym new-env` copies.
 */
export class ExampleEnv extends BaseEnv<string, Action> {
  readonly spec: EnvSpec;
  readonly options: ExampleOptions;
  private store = new Map<string, string>();
  private chain: string[] = [];
  private code = '';
  private visited = new Set<string>();

  constructor(options: Partial<ExampleOptions> = {}) {
    super();
    this.options = validateExampleOptions(options);
    // The chain is drawn from the store's keys: a longer chain than the store would be quietly cut short.
    if (this.options.chainLength > this.options.keys) {
      throw new InvalidOptionsError('turngym/example-v1', [
        `options.chainLength (${this.options.chainLength}) must not exceed options.keys (${this.options.keys}): the chain is made of the store's keys`,
      ]);
    }
    this.spec = {
      specificationVersion: 'v1',
      id: 'turngym/example-v1',
      summary: 'Follow a chain of keys to a secret code and submit it.',
      observationSpace: { type: 'text' },
      actionSpace: {
        type: 'tools',
        tools: EXAMPLE_TOOLS,
        examples: ['LOOKUP(amber-1)', 'SUBMIT(0000)', 'SUBMIT({"answer": "1234"})'],
      },
      tools: EXAMPLE_TOOLS,
      maxTurns: this.options.maxTurns,
      rewardRange: [0, 1],
      docs: {
        description: 'A key-value store hides a code at the end of a chain of "see <key>" pointers.',
        actionSpace: 'Tools: LOOKUP(key), SUBMIT(answer). Text syntax NAME(arg) or NAME({json}); or function calls.',
        observationSpace: 'Text: the task, then the result of each tool call.',
        rewards: '1 for submitting the right code, else 0. Malformed calls get feedback and reward 0.',
        startingState: 'A seeded store of `keys` keys; the chain start is named in the first observation.',
        episodeEnd: 'Terminates on SUBMIT; truncates at maxTurns.',
        arguments: 'keys (12), chainLength (3), maxTurns (10).',
        versionHistory: 'v1: first version.',
      },
    };
  }

  protected spawn(): ExampleEnv {
    return new ExampleEnv(this.options);
  }

  protected onReset(): EnvResetOutcome<string> {
    const names = this.rng.shuffle(this.keyNames());
    const { chainLength } = this.options;
    this.chain = names.slice(0, chainLength);
    this.code = String(this.rng.int(1000, 9999));
    this.store = new Map();
    this.visited = new Set();
    this.chain.forEach((key, i) =>
      this.store.set(key, i + 1 < this.chain.length ? `see ${this.chain[i + 1]}` : this.code),
    );
    for (const decoy of names.slice(chainLength)) {
      this.store.set(decoy, this.rng.bool() ? `see ${this.rng.pick(names)}` : String(this.rng.int(1000, 9999)));
    }
    return { observation: `Find the code. Start with key ${this.chain[0]}.`, instructions: INSTRUCTIONS };
  }

  /**
   * `keys` distinct names. `word-<r><i>` can repeat from the 61st key on (`amber-160` is r=16, i=0 and r=1, i=60):
   * a repeated name would overwrite a key, leaving fewer keys than asked and possibly a broken chain, so a taken
   * name is drawn again (no extra draw where no name repeats, so those episodes are unchanged).
   */
  private keyNames(): string[] {
    const names = new Set<string>();
    for (let i = 0; i < this.options.keys; i++) {
      let name: string;
      do name = `${WORDS[i % WORDS.length]}-${this.rng.int(1, 99)}${i}`;
      while (names.has(name));
      names.add(name);
    }
    return [...names];
  }

  protected onStep(action: Action): EnvStepOutcome<string> {
    const parsed = parseToolCall(action as string, EXAMPLE_TOOLS);
    if (!parsed.ok) {
      return {
        observation: `Invalid action: ${parsed.feedback}`,
        reward: 0,
        terminated: false,
        info: { invalidAction: true, feedback: parsed.feedback },
      };
    }
    const { name, arguments: args } = parsed.call;
    if (name === 'SUBMIT') {
      const success = String(args.answer).trim() === this.code;
      return {
        observation: success ? 'Correct: that is the code.' : 'Wrong code. The episode is over.',
        reward: success ? 1 : 0,
        terminated: true,
        info: { success },
      };
    }
    const key = String(args.key).trim();
    const value = this.store.get(key);
    this.visited.add(key);
    return {
      observation: value === undefined ? `LOOKUP ${key}: no such key.` : `LOOKUP ${key} = ${value}`,
      reward: 0,
      terminated: false,
    };
  }

  /** LOOKUP(next) follows the chain, LOOKUP(visited|decoy|unknown) does not; SUBMIT; INVALID. */
  fingerprint(action: Action): string {
    const parsed = parseToolCall(action as string, EXAMPLE_TOOLS);
    if (!parsed.ok) return 'INVALID';
    if (parsed.call.name === 'SUBMIT') return 'SUBMIT';
    const key = String(parsed.call.arguments.key).trim();
    if (this.visited.has(key)) return 'LOOKUP(visited)';
    if (key === this.chain[this.progress()]) return 'LOOKUP(next)';
    return this.store.has(key) ? 'LOOKUP(decoy)' : 'LOOKUP(unknown)';
  }

  /** How many links of the chain have been read: `depth-k`. */
  anchor(): string {
    return `depth-${this.progress()}`;
  }

  private progress(): number {
    let depth = 0;
    while (depth < this.chain.length && this.visited.has(this.chain[depth] as string)) depth += 1;
    return depth;
  }
}
