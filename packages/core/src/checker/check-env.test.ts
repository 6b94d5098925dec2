import type { Action, Env } from '@turngym/spec';
import { ExampleEnv, register } from '@turngym/env-example';
import { BaseEnv, type EnvStepOutcome } from '../base-env';
import { Registry } from '../registry';
import { checkEnv, formatCheckReport } from './check-env';

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

// Keep BaseEnv referenced so the defect subclasses are type-checked against it.
export type { BaseEnv };
