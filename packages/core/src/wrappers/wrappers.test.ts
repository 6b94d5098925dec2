import { ExampleEnv, ExampleSolver } from '@turngym/env-example';
import { EnvBusyError, EnvClosedError, InvalidActionTypeError, ResetNeededError } from '../errors';
import { MemoryRecordSink, validateEpisodeRecord } from '../episode-record';
import { Budget } from './budget';
import { EpisodeRecorder } from './episode-recorder';
import { OrderEnforcing } from './order-enforcing';
import { TimeLimit } from './time-limit';
import type { Env } from '@turngym/spec';

describe('standard wrappers', () => {
  it('OrderEnforcing raises ResetNeeded before reset and after the end, EnvClosed after close', async () => {
    const env = new OrderEnforcing(new ExampleEnv());
    await expect(env.step('LOOKUP(x)')).rejects.toThrow(ResetNeededError);
    await env.reset({ seed: 0 });
    await env.step('SUBMIT(0)');
    await expect(env.step('LOOKUP(x)')).rejects.toThrow(/the episode has ended; call reset\(\)/);
    await env.close();
    await env.close();
    await expect(env.reset()).rejects.toThrow(EnvClosedError);
  });

  it('OrderEnforcing refuses a step after a reset that threw, for an env that would not refuse it itself', async () => {
    const inner = new ExampleEnv();
    let failReset = false;
    // A bare-interface env (a remote one) that keeps its old episode when a reset fails.
    const bare: Env = {
      spec: inner.spec,
      reset: (args) => (failReset ? Promise.reject(new Error('connection lost')) : inner.reset(args)),
      step: (action) => inner.step(action),
      fork: () => inner.fork(),
      fingerprint: (action) => inner.fingerprint(action),
      anchor: () => inner.anchor(),
      close: () => inner.close(),
    };
    const env = new OrderEnforcing(bare);
    await env.reset({ seed: 0 });
    failReset = true;
    await expect(env.reset({ seed: 1 })).rejects.toThrow('connection lost');
    await expect(env.step('LOOKUP(x)')).rejects.toThrow(/call reset\(\) before step\(\)/);
    failReset = false;
    await env.reset({ seed: 1 });
    expect((await env.step('LOOKUP(x)')).terminated).toBe(false);
  });

  it('OrderEnforcing refuses overlapping calls on a bare env, and a close() mid-step stays closed', async () => {
    const inner = new ExampleEnv();
    let release: () => void = () => undefined;
    // A bare-interface env (a remote one) that would interleave two steps without complaint.
    const bare: Env = {
      spec: inner.spec,
      reset: (args) => inner.reset(args),
      step: async (action) => {
        await new Promise<void>((resolve) => (release = resolve));
        return inner.step(action);
      },
      fork: () => inner.fork(),
      fingerprint: (action) => inner.fingerprint(action),
      anchor: () => inner.anchor(),
      close: async () => undefined, // an abort that does not stop the step already sent
    };
    const env = new OrderEnforcing(bare);
    await env.reset({ seed: 0 });
    const first = env.step('SUBMIT(0)');
    await expect(env.step('LOOKUP(x)')).rejects.toThrow(EnvBusyError);
    await expect(env.reset({ seed: 1 })).rejects.toThrow(/reset\(\) was called while step\(\) is still in flight/);
    await expect(env.fork()).rejects.toThrow(EnvBusyError);
    await env.close();
    release();
    expect((await first).terminated).toBe(true);
    await expect(env.reset({ seed: 1 })).rejects.toThrow(EnvClosedError);
  });

  it('a reset refused as overlapping leaves the TimeLimit count of the episode still going', async () => {
    const inner = new ExampleEnv({ maxTurns: 50 });
    let gate: Promise<void> = Promise.resolve();
    let open: () => void = () => undefined;
    const bare: Env = {
      spec: inner.spec,
      reset: (args) => inner.reset(args),
      step: async (action) => {
        await gate;
        return inner.step(action);
      },
      fork: () => inner.fork(),
      fingerprint: (action) => inner.fingerprint(action),
      anchor: () => inner.anchor(),
      close: () => inner.close(),
    };
    const env = new Budget(new TimeLimit(new OrderEnforcing(bare), 2), { maxToolCalls: 10 });
    await env.reset({ seed: 0 });
    await env.step('LOOKUP(a)');
    gate = new Promise((resolve) => (open = resolve));
    const second = env.step('LOOKUP(b)');
    await expect(env.reset({ seed: 1 })).rejects.toThrow(EnvBusyError);
    open();
    const last = await second;
    expect(last).toMatchObject({ truncated: true, info: { truncatedBy: 'time-limit' } });
    await expect(env.step('LOOKUP(c)')).rejects.toThrow(ResetNeededError);
  });

  it('EpisodeRecorder keeps recording an episode whose reset was refused as overlapping', async () => {
    const sink = new MemoryRecordSink();
    const env = new EpisodeRecorder(new OrderEnforcing(new ExampleEnv()), { sink });
    await env.reset({ seed: 0 });
    const step = env.step('SUBMIT(0)');
    await expect(env.reset({ seed: 1 })).rejects.toThrow(EnvBusyError);
    await step;
    expect(sink.records).toHaveLength(1);
    expect(sink.records[0]).toMatchObject({ complete: true, turns: 1 });
  });

  it("a bad seed is refused through make()'s stack with the episode going on and no record written", async () => {
    const sink = new MemoryRecordSink();
    const env = new EpisodeRecorder(new TimeLimit(new OrderEnforcing(new ExampleEnv()), 20), { sink });
    await env.reset({ seed: 0 });
    await env.step('LOOKUP(nothing)');
    for (const seed of [Number.NaN, 0.5, 2 ** 53]) {
      const refused = env.reset({ seed });
      await expect(refused).rejects.toMatchObject({ code: 'INVALID_OPTIONS' });
      await expect(refused).rejects.toThrow(/reset\(\): seed must be an integer/);
    }
    expect(sink.records).toEqual([]);
    // The episode of seed 0 goes on, and its record holds both steps.
    await env.step('SUBMIT(0)');
    expect(sink.records).toHaveLength(1);
    expect(sink.records[0]).toMatchObject({ complete: true, seed: 0, turns: 2 });
  });

  it('an action of the wrong JavaScript type is API misuse, not a step', async () => {
    const env = new ExampleEnv();
    await env.reset({ seed: 0 });
    await expect(env.step(42 as never)).rejects.toThrow(InvalidActionTypeError);
    await expect(env.step(42 as never)).rejects.toThrow(
      'takes a string or a tool call { name, arguments } as an action, got number',
    );
  });

  it('TimeLimit truncates at maxTurns and forks with its count', async () => {
    const env = new TimeLimit(new ExampleEnv({ maxTurns: 50 }), 3);
    await env.reset({ seed: 0 });
    expect((await env.step('LOOKUP(a)')).truncated).toBe(false);
    const fork = await env.fork();
    expect((await env.step('LOOKUP(b)')).truncated).toBe(false);
    const last = await env.step('LOOKUP(c)');
    expect(last).toMatchObject({ truncated: true, info: { truncatedBy: 'time-limit', success: false } });
    // The fork had used one turn too: two more end it.
    await fork.step('LOOKUP(b)');
    expect((await fork.step('LOOKUP(c)')).truncated).toBe(true);
  });

  it('a step after TimeLimit truncated the episode is refused, also on a fork, until reset', async () => {
    // The inner env never saw the end: without this, a third step went through and was truncated again.
    const env = new TimeLimit(new ExampleEnv({ maxTurns: 50 }), 2);
    await env.reset({ seed: 0 });
    await env.step('LOOKUP(a)');
    expect((await env.step('LOOKUP(b)')).truncated).toBe(true);
    await expect(env.step('LOOKUP(c)')).rejects.toThrow(ResetNeededError);
    await expect(env.step('LOOKUP(c)')).rejects.toThrow(/truncated at the turn limit \(2\); call reset\(\)/);
    const fork = await env.fork();
    await expect(fork.step('LOOKUP(c)')).rejects.toThrow(ResetNeededError);
    await env.reset({ seed: 0 });
    expect((await env.step('LOOKUP(a)')).truncated).toBe(false);
  });

  it('a step after Budget truncated the episode is refused, also on a fork, until reset', async () => {
    const env = new Budget(new ExampleEnv({ maxTurns: 50 }), { maxToolCalls: 1 });
    await env.reset({ seed: 0 });
    expect((await env.step('LOOKUP(a)')).info.truncatedBy).toBe('tool-calls');
    await expect(env.step('LOOKUP(b)')).rejects.toThrow(/truncated by its tool-calls budget; call reset\(\)/);
    await expect((await env.fork()).step('LOOKUP(b)')).rejects.toThrow(ResetNeededError);
    await env.reset({ seed: 0 });
    expect((await env.step('not a call at all')).truncated).toBe(true);
  });

  it('Budget truncates at the tool-call limit and reports what is left', async () => {
    const env = new Budget(new ExampleEnv({ maxTurns: 50 }), { maxToolCalls: 2 });
    const reset = await env.reset({ seed: 0 });
    expect(reset.info.budget).toEqual({ toolCalls: 2 });
    const first = await env.step('not a call at all');
    expect(first.info.budget).toEqual({ toolCalls: 1 });
    const second = await env.step('LOOKUP(x)');
    expect(second).toMatchObject({ truncated: true, info: { truncatedBy: 'tool-calls', budget: { toolCalls: 0 } } });
    expect(env.usage.toolCalls).toBe(2);
  });

  it('EpisodeRecorder writes complete episodes, abandoned ones marked, and forks with forkOf', async () => {
    const sink = new MemoryRecordSink();
    const env: Env = new EpisodeRecorder(new ExampleEnv(), { sink, agent: 'test' });
    const solver = new ExampleSolver();
    const reset = await env.reset({ seed: 5 });
    await solver.start({ seed: 5, spec: env.spec, observation: reset.observation, info: reset.info });
    const firstAction = await solver.act(reset.observation);
    const step = await env.step(firstAction);
    const fork = await env.fork();
    await fork.step(await solver.act(step.observation));
    await env.reset({ seed: 6 }); // abandons the first episode
    await fork.close(); // abandons the fork's episode
    await env.close();
    expect(
      sink.records.map((record) => [record.seed, record.complete, record.turns, record.forkOf?.turn ?? null]),
    ).toEqual([
      [5, false, 1, null],
      [5, false, 2, 1],
      [6, false, 0, null],
    ]);
    for (const record of sink.records) expect(() => validateEpisodeRecord(record)).not.toThrow();
    expect(sink.records[1]?.forkOf?.episodeId).toBe(sink.records[0]?.episodeId);
  });

  it('EpisodeRecorder records a call as it was made, though the caller reused the call object since', async () => {
    const sink = new MemoryRecordSink();
    const env = new EpisodeRecorder(new ExampleEnv(), { sink });
    await env.reset({ seed: 5 });
    const call = { name: 'LOOKUP', arguments: { key: 'first' } };
    await env.step(call);
    call.arguments.key = 'second';
    await env.step(call);
    await env.close();
    expect(sink.records[0]?.steps.map((step) => step.action)).toEqual([
      { name: 'LOOKUP', arguments: { key: 'first' } },
      { name: 'LOOKUP', arguments: { key: 'second' } },
    ]);
  });

  it('EpisodeRecorder records a call nested thousands deep as a note, after the env answered it as malformed', async () => {
    // Copying it for the record overflowed the stack: a RangeError came out of a step the env had already taken.
    const sink = new MemoryRecordSink();
    const env = new EpisodeRecorder(new ExampleEnv(), { sink });
    await env.reset({ seed: 5 });
    let deep: unknown = 'x';
    for (let level = 0; level < 20_000; level++) deep = [deep];
    const step = await env.step({ name: 'LOOKUP', arguments: { key: deep } } as never);
    expect(step.reward).toBeLessThanOrEqual(0);
    await env.step({ name: 'LOOKUP', arguments: { key: 'a' } });
    await env.close();
    const [record] = sink.records;
    expect(record?.steps.map((recorded) => recorded.action)).toEqual([
      '[not recorded: a call of LOOKUP nested more than 1000 levels deep]',
      { name: 'LOOKUP', arguments: { key: 'a' } },
    ]);
    expect(() => JSON.stringify(record)).not.toThrow();
  });

  it('EpisodeRecorder records the seed a seedless reset reported, also from an env that exposes no seed', async () => {
    const sink = new MemoryRecordSink();
    const inner = new ExampleEnv();
    // Like a remote env: the seed arrives only in info.seed.
    const opaque: Env = {
      spec: inner.spec,
      reset: (args) => inner.reset(args),
      step: (action) => inner.step(action),
      fork: () => inner.fork(),
      fingerprint: (action) => inner.fingerprint(action),
      anchor: () => inner.anchor(),
      close: () => inner.close(),
    };
    const env = new EpisodeRecorder(opaque, { sink });
    const reset = await env.reset();
    await env.close();
    expect(typeof reset.info.seed).toBe('number');
    expect(sink.records.map((record) => record.seed)).toEqual([reset.info.seed]);
  });

  it('a record that breaks the schema is rejected naming the field', () => {
    expect(() => validateEpisodeRecord({ schema: 'turngym.episode/v1' })).toThrow(/record.episodeId is required/);
  });
});
