import type { Action, Agent, Env, EnvSpec, Info, StepResult } from '@turngym/spec';
import { ExampleEnv, register } from '@turngym/env-example';
import { BaseEnv, type EnvStepOutcome } from '../base-env';
import { ResetNeededError } from '../errors';
import { Registry } from '../registry';
import { checkEnv, formatCheckReport } from './check-env';
import { firstDifference } from './episode-trace';

function failedChecks(report: Awaited<ReturnType<typeof checkEnv>>): Record<string, string> {
  return Object.fromEntries(
    report.results.filter((result) => !result.passed).map((result) => [result.name, result.detail ?? '']),
  );
}

/** The example env with one defect switched on, to show each check can fail. */
class DefectiveEnv extends ExampleEnv {
  static calls = 0;
  constructor(private readonly defect: 'nondeterministic' | 'shared-fork' | 'throws-on-garbage' | 'impure-hooks') {
    super({ maxTurns: 8 });
  }
  protected override spawn(): DefectiveEnv {
    return new DefectiveEnv(this.defect);
  }
  protected override onStep(action: Action): EnvStepOutcome<string> {
    const outcome = super.onStep(action);
    if (this.defect === 'nondeterministic')
      return { ...outcome, observation: `${outcome.observation} #${DefectiveEnv.calls++}` };
    if (this.defect === 'throws-on-garbage' && outcome.info?.invalidAction) throw new Error('parse failure');
    return outcome;
  }
  override async fork(): Promise<Env<string, Action>> {
    return this.defect === 'shared-fork' ? this : super.fork();
  }
  override anchor(): string {
    if (this.defect === 'impure-hooks') DefectiveEnv.calls++;
    return this.defect === 'impure-hooks' ? `depth-${DefectiveEnv.calls}` : super.anchor();
  }
}

describe('checkEnv', () => {
  it('passes the template env, by id and by instance', async () => {
    const registry = new Registry();
    register(registry);
    const byId = await checkEnv('turngym/example-v1', { registry });
    expect(failedChecks(byId)).toEqual({});
    expect(byId.results.length).toBeGreaterThanOrEqual(10);
    expect(formatCheckReport(byId)).toMatch(/turngym\/example-v1: all \d+ checks passed$/);
    const byInstance = await checkEnv(new ExampleEnv());
    expect(failedChecks(byInstance)).toEqual({});
  });

  it('refuses a seed it cannot play, with the seeds after it, as a bad argument rather than a failed check', async () => {
    const registry = new Registry();
    register(registry);
    for (const seed of [1.5, Number.NaN, Number.MAX_SAFE_INTEGER]) {
      await expect(checkEnv('turngym/example-v1', { registry, seed })).rejects.toMatchObject({
        code: 'INVALID_OPTIONS',
        message: expect.stringContaining('Invalid options for checkEnv(): seed must be'),
      });
    }
    const edge = await checkEnv('turngym/example-v1', { registry, seed: Number.MAX_SAFE_INTEGER - 8 });
    expect(failedChecks(edge)).toEqual({});
  });

  it('catches an env whose episodes differ under the same seed', async () => {
    const report = await checkEnv(() => Promise.resolve(new DefectiveEnv('nondeterministic')));
    expect(report.passed).toBe(false);
    expect(failedChecks(report)['seed determinism']).toMatch(/step 1: observation differs/);
  });

  it('skips the replay checks for an env whose spec declares it nondeterministic, and runs every other', async () => {
    class DeclaredNondeterministic extends DefectiveEnv {
      override readonly spec = { ...new ExampleEnv({ maxTurns: 8 }).spec, nondeterministic: true };
      constructor() {
        super('nondeterministic');
      }
      protected override spawn(): DeclaredNondeterministic {
        return new DeclaredNondeterministic();
      }
    }
    const report = await checkEnv(() => Promise.resolve(new DeclaredNondeterministic()));
    expect(failedChecks(report)).toEqual({});
    const skipped = report.results.filter((result) => result.skipped).map((result) => result.name);
    expect(skipped).toEqual(['seed determinism', 'fork equivalence']);
    expect(report.results.find((result) => result.name === 'malformed actions are ordinary steps')?.skipped).toBe(
      undefined,
    );
    const text = formatCheckReport(report);
    expect(text).toContain('– seed determinism — skipped: the spec declares nondeterministic');
    expect(text).toMatch(/all \d+ checks passed \(2 skipped\)$/);
  });

  it('catches a fork that shares state with the original', async () => {
    const report = await checkEnv(() => Promise.resolve(new DefectiveEnv('shared-fork')));
    expect(failedChecks(report)['fork equivalence']).toBeDefined();
  });

  it('catches an env that throws on a malformed action', async () => {
    const report = await checkEnv(() => Promise.resolve(new DefectiveEnv('throws-on-garbage')));
    expect(failedChecks(report)['malformed actions are ordinary steps']).toMatch(/threw Error: parse failure/);
    expect(formatCheckReport(report)).toMatch(/✗ malformed actions are ordinary steps — threw/);
  });

  it('catches hooks that are not pure', async () => {
    const report = await checkEnv(() => Promise.resolve(new DefectiveEnv('impure-hooks')));
    expect(failedChecks(report)['fingerprint and anchor are pure and stable']).toMatch(
      /anchor\(\) changed between two calls/,
    );
  });

  it('catches a broken spec', async () => {
    class BadSpec extends ExampleEnv {
      override readonly spec = {
        ...new ExampleEnv().spec,
        maxTurns: 0,
        actionSpace: { type: 'discrete' as const, n: 3, labels: ['a', 'b'] },
      };
      protected override spawn(): BadSpec {
        return new BadSpec();
      }
    }
    const report = await checkEnv(() => Promise.resolve(new BadSpec()));
    expect(failedChecks(report).spec).toMatch(
      /maxTurns must be a positive integer; actionSpace.labels has 2 labels for n = 3/,
    );
  });
});

/**
 * Say "next" until the count the seed sets (1 on odd seeds, 3 on even): an expert ends seed 7 in one step.
 * `forgetful`: its fork keeps the seed but not the count the steps built, the defect a fork at reset never shows.
 */
class CountEnv implements Env<string, Action> {
  readonly spec: EnvSpec = {
    specificationVersion: 'v1',
    id: 'test/count-v1',
    summary: 'Say next until done.',
    observationSpace: { type: 'text' },
    actionSpace: { type: 'text', examples: ['next'] },
    maxTurns: 6,
    rewardRange: [0, 1],
  };
  private goal = 0;
  private count = 0;
  private running = false;
  constructor(private readonly forgetful: boolean) {}
  async reset(args: { seed?: number } = {}): Promise<{ observation: string; info: Info }> {
    this.goal = (args.seed ?? 0) % 2 === 1 ? 1 : 3;
    this.count = 0;
    this.running = true;
    return {
      observation: `Say next ${this.goal} times.`,
      info: { instructions: 'Say "next".', anchor: this.anchor() },
    };
  }
  async step(action: Action): Promise<StepResult<string>> {
    if (!this.running) throw new ResetNeededError('step() needs reset() first');
    const valid = action === 'next';
    if (valid) this.count++;
    const terminated = this.count >= this.goal;
    const truncated = !terminated && this.count >= this.spec.maxTurns;
    this.running = !terminated && !truncated;
    return {
      observation: `${this.count} of ${this.goal}.`,
      reward: terminated ? 1 : 0,
      terminated,
      truncated,
      info: {
        ...(valid ? {} : { invalidAction: true, feedback: 'Say "next".' }),
        ...(terminated || truncated ? { success: terminated } : {}),
        cost: { toolCalls: 0, llmTokens: 0, wallMs: 0 },
        fingerprint: this.fingerprint(action),
        anchor: this.anchor(),
      },
    };
  }
  async fork(): Promise<Env<string, Action>> {
    const twin = new CountEnv(this.forgetful);
    Object.assign(twin, { goal: this.goal, running: this.running, count: this.forgetful ? 0 : this.count });
    return twin;
  }
  fingerprint(action: Action): string {
    return action === 'next' ? 'NEXT' : 'INVALID';
  }
  anchor(): string {
    return `/count/${this.count}`;
  }
  async close(): Promise<void> {}
}

describe('checkEnv fork equivalence where the expert ends in one step', () => {
  const countRegistry = (forgetful: boolean, seeds: 'odd-only' | 'any' = 'any'): Registry => {
    const registry = new Registry();
    registry.register({
      id: 'test/count-v1',
      // 'odd-only': every seed's episode ends in one step.
      entryPoint: () =>
        seeds === 'any'
          ? new CountEnv(forgetful)
          : new (class extends CountEnv {
              override async reset(args: { seed?: number } = {}) {
                return super.reset({ seed: 2 * (args.seed ?? 0) + 1 });
              }
            })(forgetful),
      agents: {
        scripted: () => ({ start: async () => {}, act: async () => 'next' }) as unknown as Agent<string, Action>,
      },
    });
    return registry;
  };

  it('forks after a step of another seed, where a fork that forgets the count shows', async () => {
    const report = await checkEnv('test/count-v1', { registry: countRegistry(true) });
    expect(failedChecks(report)['fork equivalence']).toMatch(
      /the fork after step 1 \(seed 8\) does not continue like the original: step 1: observation differs \("1 of 3\." vs "2 of 3\."\)/,
    );
    expect(failedChecks(await checkEnv('test/count-v1', { registry: countRegistry(false) }))).toEqual({});
  });

  it('says the fork was checked at reset only when every seed it tried ends in one step', async () => {
    const report = await checkEnv('test/count-v1', { registry: countRegistry(true, 'odd-only') });
    expect(report.passed).toBe(true);
    expect(formatCheckReport(report)).toContain(
      '✓ fork equivalence — checked at reset only: the scripted episodes of seeds 7 and 8–15 end in one step',
    );
  });
});

describe('firstDifference', () => {
  const step = (info: Info) => ({ observation: 'o', reward: 0, terminated: false, truncated: false, info });
  it('names the info field that differs, with both values cut short', () => {
    const trace = (info: Info) => ({ observation: 'o', info: {}, steps: [step({}), step(info)] });
    expect(
      firstDifference(
        trace({ hint: 'a', cost: { toolCalls: 1, llmTokens: 0, wallMs: 5 } }),
        trace({ hint: 'a', cost: { toolCalls: 2, llmTokens: 0, wallMs: 9 } }),
      ),
    ).toBe('step 2: info.cost.toolCalls differs (1 vs 2)');
    expect(firstDifference(trace({ seen: 'x'.repeat(200) }), trace({}))).toBe(
      `step 2: info.seen differs ("${'x'.repeat(76)}... vs undefined)`,
    );
    expect(
      firstDifference(
        { observation: 'o', info: { k: [1] }, steps: [] },
        { observation: 'o', info: { k: [2] }, steps: [] },
      ),
    ).toBe('reset: info.k differs ([1] vs [2])');
  });
});

// Keep BaseEnv referenced so the defect subclasses are type-checked against it.
export type { BaseEnv };
