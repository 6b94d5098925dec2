import type { Action, EnvSpec } from '@turngym/spec';
import { ExampleEnv } from '@turngym/env-example';
import { BaseEnv } from './base-env';
import { EnvBusyError, TurnGymError } from './errors';
import { SeededRng } from './seeded-rng';

describe('BaseEnv', () => {
  it('reset() without a seed after reset({ seed }) continues a deterministic stream of episode seeds', async () => {
    const a = new ExampleEnv();
    const b = new ExampleEnv();
    const firsts = [
      (await a.reset({ seed: 11 })).observation,
      (await a.reset()).observation,
      (await a.reset()).observation,
    ];
    const seconds = [
      (await b.reset({ seed: 11 })).observation,
      (await b.reset()).observation,
      (await b.reset()).observation,
    ];
    expect(seconds).toEqual(firsts);
    expect(new Set(firsts).size).toBe(3);
  });

  it('two fresh envs reset without seeds draw different seeds from OS entropy, and report them', async () => {
    const a = await new ExampleEnv().reset();
    const b = await new ExampleEnv().reset();
    expect(Number.isInteger(a.info.seed)).toBe(true);
    expect(Number.isInteger(b.info.seed)).toBe(true);
    // Two 32-bit draws from OS entropy collide once in 2^32 runs; the old fixed start collided every time.
    expect(a.info.seed).not.toBe(b.info.seed);
  });

  it('replaying with the reported seed gives the same episode', async () => {
    const env = new ExampleEnv();
    const seedless = [await env.reset(), await env.reset()];
    for (const original of seedless) {
      const replay = await new ExampleEnv().reset({ seed: original.info.seed as number });
      expect(replay.observation).toBe(original.observation);
      expect(replay.info.seed).toBe(original.info.seed);
    }
  });

  it('an explicit seed is reported as given, and the stream after it is the same as before entropy seeding', async () => {
    const env = new ExampleEnv();
    const first = await env.reset({ seed: 11 });
    const next = await env.reset();
    expect(first.info.seed).toBe(11);
    // Pinned: reset({ seed: 11 }) then reset() draws the stream's second seed, as before entropy seeding.
    const stream = new SeededRng(11);
    stream.deriveSeed();
    expect(next.info.seed).toBe(stream.deriveSeed());
    expect(next.observation).toBe((await new ExampleEnv().reset({ seed: next.info.seed as number })).observation);
  });

  it('refuses reset options it cannot copy naming the field, and leaves the episode as it was', async () => {
    let deep: unknown = [];
    for (let level = 0; level < 100_000; level += 1) deep = [deep];
    const env = new ExampleEnv();
    const first = await env.reset({ seed: 5 });
    const tooDeep = env.reset({ seed: 6, options: { x: deep } });
    await expect(tooDeep).rejects.toMatchObject({ code: 'INVALID_OPTIONS' });
    await expect(tooDeep).rejects.toThrow(/options\.x is nested too deeply \(100001 levels\)/);
    const withFunction = env.reset({ seed: 7, options: { hook: () => 1 } });
    await expect(withFunction).rejects.toThrow(/options\.hook must be data, not a function/);
    // The failed resets changed nothing: the episode of seed 5 goes on.
    expect(env.seed).toBe(5);
    expect(env.anchor()).toBe(first.info.anchor);
  });

  it('refuses a seed past 2^53, where neighbouring integers are one double and would replay as one episode', async () => {
    const env = new ExampleEnv();
    await expect(env.reset({ seed: 2 ** 53 })).rejects.toThrow(
      /seed must be an integer within ±\(2\^53 − 1\), got 9007199254740992/,
    );
    expect((await env.reset({ seed: 2 ** 53 - 1 })).info.seed).toBe(2 ** 53 - 1);
    expect((await env.reset({ seed: -(2 ** 53 - 1) })).info.seed).toBe(-(2 ** 53 - 1));
  });

  it('refuses a bad seed with the options error naming the field, and leaves the episode as it was', async () => {
    const env = new ExampleEnv();
    const first = await env.reset({ seed: 5 });
    for (const [seed, got] of [
      [Number.NaN, 'NaN'],
      [1.5, '1.5'],
      [Infinity, 'Infinity'],
      [-(2 ** 53), '-9007199254740992'],
      ['5', 'the string "5"'],
    ] as const) {
      const refused = env.reset({ seed: seed as number });
      await expect(refused).rejects.toMatchObject({ code: 'INVALID_OPTIONS' });
      await expect(refused).rejects.toThrow(
        `Invalid options for turngym/example-v1 reset(): seed must be an integer within ±(2^53 − 1), got ${got}`,
      );
    }
    // Nothing moved: the episode of seed 5 goes on, and a seedless reset continues the stream of seed 5.
    expect(env.seed).toBe(5);
    expect(env.anchor()).toBe(first.info.anchor);
    expect((await env.step('LOOKUP(nothing)')).terminated).toBe(false);
    const stream = new SeededRng(5);
    stream.deriveSeed();
    expect((await env.reset()).info.seed).toBe(stream.deriveSeed());
  });

  it('the default fork replays to the same state and then diverges independently', async () => {
    const env = new ExampleEnv();
    const reset = await env.reset({ seed: 2 });
    const start = /Start with key (\S+)\./.exec(reset.observation)![1]!;
    await env.step(`LOOKUP(${start})`);
    const fork = await env.fork();
    expect(fork.anchor()).toBe(env.anchor());
    const onFork = await fork.step('SUBMIT(0)');
    expect(onFork.terminated).toBe(true);
    const onOriginal = await env.step('LOOKUP(nothing)');
    expect(onOriginal.terminated).toBe(false);
    expect(env.anchor()).toBe('depth-1');
  });

  it('closes the twin of a fork whose replay fails, and passes the failure on', async () => {
    const twins: FlakyTwinEnv[] = [];
    class FlakyTwinEnv extends ExampleEnv {
      failReplay = false;
      closedTwin = false;
      protected override spawn(): FlakyTwinEnv {
        const twin = new FlakyTwinEnv();
        twin.failReplay = true;
        twins.push(twin);
        return twin;
      }
      protected override onStep(action: Action) {
        if (this.failReplay) throw new Error('the replay failed');
        return super.onStep(action);
      }
      protected override onClose(): void {
        this.closedTwin = true;
      }
    }
    const env = new FlakyTwinEnv();
    await env.reset({ seed: 2 });
    await env.step('LOOKUP(nothing)');
    await expect(env.fork()).rejects.toThrow('the replay failed');
    expect(twins).toHaveLength(1);
    expect(twins[0]!.closedTwin).toBe(true);
  });

  it('a replay fork replays the call as it was made, though the caller reused the call object since', async () => {
    const env = new ExampleEnv();
    const reset = await env.reset({ seed: 2 });
    const start = /Start with key (\S+)\./.exec(reset.observation)![1]!;
    const call = { name: 'LOOKUP', arguments: { key: start } };
    await env.step(call);
    call.arguments.key = 'nothing'; // an agent filling in its next call
    const fork = await env.fork();
    expect(fork.anchor()).toBe('depth-1');
    expect(fork.anchor()).toBe(env.anchor());
    // A call no agent could have written is API misuse, refused before the env acts on it.
    await expect(env.step({ name: 'LOOKUP', arguments: { key: () => start } })).rejects.toThrow(
      'takes a tool call { name, arguments } of plain JSON data as an action, got object',
    );
    expect(env.turn).toBe(1);
  });

  it('answers a structured call nested thousands deep with feedback, as an ordinary step, and forks past it', async () => {
    // As a wire request's JSON arrives: JSON.parse reads any depth, and structuredClone overflowed the stack on it.
    const deep = JSON.parse(`{"key": ${'['.repeat(20_000)}${']'.repeat(20_000)}}`) as Record<string, unknown>;
    const env = new ExampleEnv();
    await env.reset({ seed: 2 });
    const step = await env.step({ name: 'LOOKUP', arguments: deep });
    expect(step.info).toMatchObject({
      invalidAction: true,
      feedback: 'LOOKUP: the arguments nest more than 100 levels deep.',
    });
    expect(env.turn).toBe(1);
    const fork = await env.fork();
    expect(fork.anchor()).toBe(env.anchor());
    // Not plain data at that depth either: still refused as API misuse.
    let holder: Record<string, unknown> = {};
    const root = holder;
    for (let depth = 0; depth < 20_000; depth++) holder = (holder.inner = {}) as Record<string, unknown>;
    holder.inner = () => 'no agent writes a function';
    await expect(env.step({ name: 'LOOKUP', arguments: root })).rejects.toMatchObject({ code: 'INVALID_ACTION_TYPE' });
    expect(env.turn).toBe(1);
  });

  it('reads a function call whose arguments are a JSON string, as OpenAI sends them', async () => {
    const env = new ExampleEnv();
    const reset = await env.reset({ seed: 2 });
    const start = /Start with key (\S+)\./.exec(reset.observation)![1]!;
    const call = { name: 'LOOKUP', arguments: JSON.stringify({ key: start }) } as unknown as Action;
    const step = await env.step(call);
    expect(step.info.invalidAction).toBeUndefined();
    expect(env.anchor()).toBe('depth-1');
  });

  it('reports fingerprint, anchor and cost in every step info, success on the last', async () => {
    const env = new ExampleEnv();
    const reset = await env.reset({ seed: 4 });
    expect(reset.info).toMatchObject({ anchor: 'depth-0', cost: { toolCalls: 0, llmTokens: 0 } });
    const start = /Start with key (\S+)\./.exec(reset.observation)![1]!;
    const step = await env.step(`LOOKUP(${start})`);
    expect(step.info).toMatchObject({ fingerprint: 'LOOKUP(next)', anchor: 'depth-1', cost: { toolCalls: 1 } });
    const end = await env.step('SUBMIT(nope)');
    expect(end.info).toMatchObject({ fingerprint: 'SUBMIT', success: false });
  });
});

describe('BaseEnv refuses overlapping calls', () => {
  /** The example env whose reset and step wait until the test opens the gate: a browser page loading. */
  class GatedEnv extends ExampleEnv {
    private gate: Promise<void> = Promise.resolve();
    open: () => void = () => undefined;
    /** Makes the next reset or step wait for `open()`. */
    hold(): void {
      this.gate = new Promise((resolve) => (this.open = resolve));
    }
    protected override async onReset(seed: number, options: Record<string, unknown> | undefined) {
      await this.gate;
      return super.onReset(seed, options);
    }
    protected override async onStep(action: Action) {
      await this.gate;
      return super.onStep(action);
    }
  }

  /** The error code a rejected promise carries (undefined when it resolved). */
  async function codeOf(call: Promise<unknown>): Promise<string | undefined> {
    try {
      await call;
      return undefined;
    } catch (error) {
      return TurnGymError.isInstance(error) ? error.code : String(error);
    }
  }

  it('a step() while a step() is in flight raises ENV_BUSY and leaves the first step alone', async () => {
    const env = new GatedEnv();
    await env.reset({ seed: 2 });
    env.hold();
    const first = env.step('LOOKUP(a)'); // not awaited: a caller that forgot, or a second caller sharing the env
    await expect(env.step('SUBMIT(0)')).rejects.toThrow(EnvBusyError);
    await expect(env.step('SUBMIT(0)')).rejects.toThrow(/step\(\) was called while step\(\) is still in flight/);
    env.open();
    expect((await first).observation).toBe('LOOKUP a: no such key.');
    expect(env.turn).toBe(1);
    // Once it settled, the env takes the next call.
    expect((await env.step('SUBMIT(0)')).terminated).toBe(true);
  });

  it('reset() and fork() while a step or reset is in flight raise ENV_BUSY; close() aborts', async () => {
    const env = new GatedEnv();
    env.hold();
    const resetting = env.reset({ seed: 2 });
    expect(await codeOf(env.step('LOOKUP(a)'))).toBe('ENV_BUSY');
    expect(await codeOf(env.reset({ seed: 3 }))).toBe('ENV_BUSY');
    expect(await codeOf(env.fork())).toBe('ENV_BUSY');
    env.open();
    expect((await resetting).info.seed).toBe(2);
    env.hold();
    const stepping = env.step('LOOKUP(a)');
    expect(await codeOf(env.reset({ seed: 3 }))).toBe('ENV_BUSY');
    expect(await codeOf(env.fork())).toBe('ENV_BUSY');
    env.open();
    await stepping;
    expect(env.seed).toBe(2);
    expect(env.turn).toBe(1);
    env.hold();
    const hanging = env.step('LOOKUP(b)');
    await env.close(); // the way to abort a step that hangs stays open
    expect(await codeOf(env.step('LOOKUP(c)'))).toBe('ENV_CLOSED');
    env.open();
    await hanging;
  });

  it('a native fork (copyEpisodeStateTo) while a step or reset is in flight raises ENV_BUSY and closes its twin', async () => {
    const twins: NativeGatedEnv[] = [];
    class NativeGatedEnv extends GatedEnv {
      closedTwin = false;
      override async fork(): Promise<NativeGatedEnv> {
        const twin = new NativeGatedEnv(this.options);
        twins.push(twin);
        this.copyEpisodeStateTo(twin);
        return twin;
      }
      protected override onClose(): void {
        this.closedTwin = true;
      }
    }
    const env = new NativeGatedEnv();
    env.hold();
    const resetting = env.reset({ seed: 2 });
    expect(await codeOf(env.fork())).toBe('ENV_BUSY');
    env.open();
    await resetting;
    env.hold();
    const stepping = env.step('LOOKUP(a)');
    expect(await codeOf(env.fork())).toBe('ENV_BUSY');
    env.open();
    await stepping;
    expect(twins.map((twin) => twin.closedTwin)).toEqual([true, true]);
    // Once the step settled, the fork is the episode after it.
    const fork = await env.fork();
    expect(fork.turn).toBe(1);
    expect(fork.anchor()).toBe(env.anchor());
  });

  it('a step that threw leaves the env free for the next call', async () => {
    class FailingOnce extends ExampleEnv {
      private failed = false;
      protected override onStep(action: Action) {
        if (!this.failed) {
          this.failed = true;
          throw new Error('browser crashed');
        }
        return super.onStep(action);
      }
    }
    const env = new FailingOnce();
    await env.reset({ seed: 2 });
    await expect(env.step('LOOKUP(a)')).rejects.toThrow('browser crashed');
    expect((await env.step('LOOKUP(a)')).terminated).toBe(false);
  });
});

describe('BaseEnv native fork support', () => {
  it('copyEpisodeStateTo carries the seed stream, so a seedless reset after a fork draws the same episode', async () => {
    class SnapshotEnv extends ExampleEnv {
      override async fork(): Promise<SnapshotEnv> {
        const twin = new SnapshotEnv(this.options);
        this.copyEpisodeStateTo(twin);
        return twin;
      }
    }
    const env = new SnapshotEnv();
    await env.reset(); // no seed: drawn from an entropy-seeded stream, which the fork must share
    const fork = await env.fork();
    expect(fork.seed).toBe(env.seed);
    expect(fork.turn).toBe(env.turn);
    const next = await env.reset();
    const forkNext = await fork.reset();
    expect(forkNext.observation).toBe(next.observation);
  });
});

describe('BaseEnv action type checks', () => {
  class PickEnv extends BaseEnv<string, Action> {
    readonly spec: EnvSpec = {
      specificationVersion: 'v1',
      id: 'test/pick-v1',
      summary: 'Pick one of two options.',
      observationSpace: { type: 'text' },
      actionSpace: { type: 'discrete', n: 2, labels: ['left', 'right'] },
      maxTurns: 1,
      rewardRange: [0, 1],
    };
    protected onReset(): { observation: string } {
      return { observation: 'left or right?' };
    }
    protected onStep(): { observation: string; reward: number; terminated: boolean; truncated: boolean } {
      return { observation: 'done', reward: 1, terminated: true, truncated: false };
    }
    fingerprint(action: Action): string {
      return String(action);
    }
    anchor(): string {
      return '';
    }
    protected spawn(): PickEnv {
      return new PickEnv();
    }
  }

  it.each([
    [Number.NaN, 'NaN'],
    [Number.POSITIVE_INFINITY, 'Infinity'],
    [1.5, '1.5'],
  ])('a discrete env stepped with %p names the value and says it is not a finite integer', async (action, shown) => {
    const env = new PickEnv();
    await env.reset({ seed: 0 });
    // "got number" read as if a number were the wrong type, when the index was NaN from a failed parse.
    await expect(env.step(action)).rejects.toThrow(
      `takes an option index (integer) or label (string) as an action, got ${shown}, which is not a finite integer.`,
    );
  });
});
