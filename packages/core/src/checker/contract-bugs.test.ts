import type { Action, Env, EnvSpec, Info, StepResult } from '@turngym/spec';
import { EnvClosedError, ResetNeededError } from '../errors';
import { checkEnv } from './check-env';

/**
 * A hand-written env, as a contributor might bring one (no BaseEnv): add numbers to reach a seeded target.
 * Each `Bug` switches on one contract defect real contributed envs have; with none it must pass every check.
 */
type Bug =
  | 'math-random'
  | 'date-now'
  | 'shared-set'
  | 'fork-shares-history'
  | 'reset-keeps-history'
  | 'throws-on-garbage'
  | 'nan-reward'
  | 'string-reward'
  | 'nan-reward-on-garbage'
  | 'penalty-outside-range'
  | 'object-observation'
  | 'info-bigint'
  | 'info-function'
  | 'info-circular'
  | 'close-throws-twice'
  | 'bad-tool-schema'
  | 'tools-throw-on-call-object'
  | 'tools-mismatch'
  | 'tools-missing'
  | 'tool-name-with-space'
  | 'tool-name-dotted'
  | 'tool-parameters-not-object'
  | 'labels-missing';

/** Shared across instances, like a module-level cache: iteration order depends on every episode ever run. */
const SEEN = new Set<string>();

const SPEC: EnvSpec = {
  specificationVersion: 'v1',
  id: 'test/adder-v1',
  summary: 'Add numbers to reach a target.',
  observationSpace: { type: 'text' },
  actionSpace: { type: 'text', examples: ['add 1', 'add 2', 'add 3', 'stop'] },
  maxTurns: 6,
  rewardRange: [0, 1],
};

const ADD = {
  name: 'ADD',
  description: 'Add 1 to 3.',
  parameters: { type: 'object', properties: { n: { type: 'integer' } } },
};
const STOP = { name: 'STOP', description: 'Stop.', parameters: { type: 'object' } };

/** The spec, with the spec-level bugs switched on. */
function specWith(bug?: Bug): EnvSpec {
  const tools = (list: (typeof ADD)[], declared: (typeof ADD)[] | undefined = list): EnvSpec => ({
    ...SPEC,
    actionSpace: { type: 'tools', tools: list, examples: ['add 1', 'stop'] },
    ...(declared ? { tools: declared } : {}),
  });
  switch (bug) {
    case 'bad-tool-schema':
      return tools([{ ...ADD, parameters: { type: 'objekt' } }]);
    case 'tools-throw-on-call-object':
      return tools([ADD, STOP]);
    case 'tools-mismatch':
      return tools([ADD, STOP], [ADD, { ...STOP, name: 'HALT' }]);
    case 'tool-name-with-space':
      return tools([{ ...ADD, name: 'add number' }, STOP]);
    case 'tool-name-dotted': // not a bug: an MCP server's name, which some providers' function calling refuses
      return tools([{ ...ADD, name: 'adder.add' }, STOP]);
    case 'tool-parameters-not-object':
      return tools([{ ...ADD, parameters: { type: 'integer' } }, STOP]);
    case 'tools-missing':
      return { ...SPEC, actionSpace: { type: 'tools' } as never };
    case 'labels-missing':
      return { ...SPEC, actionSpace: { type: 'discrete', n: 2 } as never };
    default:
      return SPEC;
  }
}

class AdderEnv implements Env<string, Action> {
  readonly spec: EnvSpec;
  private target = 0;
  private total = 0;
  private turn = 0;
  private seed = 0;
  private history: string[] = [];
  private state: 'new' | 'running' | 'done' = 'new';
  private closed = false;

  constructor(private readonly bug?: Bug) {
    this.spec = specWith(bug);
  }

  async reset(args: { seed?: number } = {}): Promise<{ observation: string; info: Info }> {
    if (this.closed) throw new EnvClosedError(this.spec.id);
    this.seed = args.seed ?? 0;
    this.target = 3 + (this.seed % 5) + (this.bug === 'math-random' ? Math.floor(Math.random() * 1000) : 0);
    this.total = 0;
    this.turn = 0;
    if (this.bug !== 'reset-keeps-history') this.history = [];
    this.state = 'running';
    let observation = `Reach ${this.target}.`;
    if (this.bug === 'date-now') observation += ` Started at ${Date.now()}${process.hrtime.bigint()}.`;
    if (this.bug === 'shared-set') {
      SEEN.add(`t${this.target}-${SEEN.size}`);
      observation += ` Known: ${[...SEEN].join(',')}`;
    }
    return { observation, info: { seed: this.seed, instructions: 'Say "add N" or "stop".', anchor: this.anchor() } };
  }

  async step(action: Action): Promise<StepResult<string>> {
    if (this.closed) throw new EnvClosedError(this.spec.id);
    if (this.state !== 'running') throw new ResetNeededError('step() needs reset() first');
    const fingerprint = this.fingerprint(action);
    this.turn++;
    // The bug: a tool-call object { name, arguments } reaches string parsing.
    const text = this.bug === 'tools-throw-on-call-object' ? (action as string).trim() : action;
    const match = typeof text === 'string' ? /^add ([1-3])$/.exec(text) : null;
    let observation: string;
    let reward = 0;
    let terminated = false;
    const info: Info & Record<string, unknown> = {};
    if (match) {
      this.total += Number(match[1]);
      this.history.push(action as string);
      observation = `Total ${this.total} after ${this.history.join(', ')}.`;
    } else if (action === 'stop') {
      terminated = true;
      reward = this.total === this.target ? 1 : 0;
      info.success = reward === 1;
      observation = `Stopped at ${this.total}.`;
    } else {
      if (this.bug === 'throws-on-garbage') throw new Error('cannot parse action');
      observation = 'Say "add 1", "add 2", "add 3" or "stop".';
      info.invalidAction = true;
      info.feedback = observation;
      if (this.bug === 'nan-reward-on-garbage') reward = NaN;
      if (this.bug === 'penalty-outside-range') reward = -0.1;
    }
    if (this.bug === 'nan-reward') reward = 0 / 0;
    if (this.bug === 'info-bigint') info.total = BigInt(this.total);
    if (this.bug === 'info-function') info.render = () => observation;
    if (this.bug === 'info-circular') info.self = info;
    const truncated = !terminated && this.turn >= this.spec.maxTurns;
    if (truncated) info.success = false;
    if (terminated || truncated) this.state = 'done';
    return {
      observation: (this.bug === 'object-observation' ? { text: observation } : observation) as string,
      reward: (this.bug === 'string-reward' ? String(reward) : reward) as number,
      terminated,
      truncated,
      info: {
        ...info,
        cost: { toolCalls: 0, llmTokens: 0, wallMs: 0 },
        fingerprint,
        anchor: this.anchor(),
      },
    };
  }

  async fork(): Promise<Env<string, Action>> {
    const twin = new AdderEnv(this.bug);
    Object.assign(twin, {
      target: this.target,
      total: this.total,
      turn: this.turn,
      seed: this.seed,
      state: this.state,
      history: this.bug === 'fork-shares-history' ? this.history : [...this.history],
    });
    return twin;
  }

  fingerprint(action: Action): string {
    return typeof action === 'string' && /^(add [1-3]|stop)$/.test(action) ? action.toUpperCase() : 'INVALID';
  }

  anchor(): string {
    return `/total/${this.total}`;
  }

  async close(): Promise<void> {
    if (this.closed && this.bug === 'close-throws-twice') throw new Error('already closed');
    this.closed = true;
  }
}

async function failures(bug?: Bug): Promise<Record<string, string>> {
  const report = await checkEnv(() => Promise.resolve(new AdderEnv(bug)), { maxSteps: 5 });
  return Object.fromEntries(report.results.filter((r) => !r.passed).map((r) => [r.name, r.detail ?? '']));
}

describe('checkEnv on a hand-written env', () => {
  afterEach(() => SEEN.clear());

  it('passes a correct env with no false alarms', async () => {
    expect(await failures()).toEqual({});
  });

  it("passes a dotted tool name (an MCP server's), noting which providers refuse it", async () => {
    const report = await checkEnv(() => Promise.resolve(new AdderEnv('tool-name-dotted')), { maxSteps: 5 });
    expect(report.passed).toBe(true);
    expect(report.results.find((result) => result.name === 'spec')?.detail).toMatch(
      /tool name "adder\.add" does not match .*: OpenAI's and Anthropic's function calling refuse it/,
    );
  });

  it.each<[Bug, string, RegExp]>([
    ['math-random', 'seed determinism', /two fresh envs.*reset observations differ/],
    ['date-now', 'seed determinism', /reset observations differ/],
    ['shared-set', 'seed determinism', /reset observations differ/],
    ['reset-keeps-history', 'seed determinism', /reset again.*step 1: observation differs/],
    ['fork-shares-history', 'fork equivalence', /original changed after the fork stepped/],
    ['throws-on-garbage', 'malformed actions are ordinary steps', /threw Error: cannot parse action/],
    ['nan-reward', 'step results are well-formed', /step 1: reward NaN is not a finite number/],
    ['string-reward', 'step results are well-formed', /step 1: reward "0" is not a finite number/],
    ['nan-reward-on-garbage', 'malformed actions are ordinary steps', /reward NaN is not a finite number/],
    ['penalty-outside-range', 'malformed actions are ordinary steps', /reward -0\.1 outside rewardRange \[0, 1\]/],
    [
      'object-observation',
      'step results are well-formed',
      /step 1: observation is object, the text observation space needs a string/,
    ],
    ['info-bigint', 'step results are well-formed', /step 1: info\.total is not JSON \(bigint\)/],
    ['info-function', 'step results are well-formed', /step 1: info\.render is not JSON \(function\)/],
    ['info-circular', 'step results are well-formed', /step 1: info\.self\S* is not JSON \(a circular reference\)/],
    ['close-throws-twice', 'close is idempotent', /second close\(\) threw Error: already closed/],
    ['bad-tool-schema', 'spec', /tool ADD has an invalid JSON Schema/],
    ['tools-throw-on-call-object', 'malformed actions are ordinary steps', /threw TypeError/],
    ['tools-mismatch', 'spec', /spec\.tools \(ADD, HALT\) must be the tools of the action space \(ADD, STOP\)/],
    ['tool-name-with-space', 'spec', /tool name "add number" must be at most 128 characters without blanks/],
    ['tool-parameters-not-object', 'spec', /tool ADD's parameters must be a JSON Schema with type "object"/],
    ['tools-missing', 'spec', /actionSpace\.tools must be an array of tools/],
    ['labels-missing', 'spec', /actionSpace\.labels must be an array of n = 2 strings/],
  ])('flags %s under "%s"', async (bug, check, message) => {
    const failed = await failures(bug);
    expect(failed[check]).toMatch(message);
  });
});
