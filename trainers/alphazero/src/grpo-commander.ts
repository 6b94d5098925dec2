/**
 * A GRPO-trained commander: the baseline issue 27 compares AlphaZero with. The same policy as AlphaZero's raw
 * policy head (`DialogueEncoder` features → the same MLP, softmax over the legal meta-actions), trained with no
 * search by the kit's GRPO pieces: groups of episodes of one task, `groupAdvantages` over their returns, and the
 * PPO-clip loss with each meta-action as one "token" (ALGORITHMS.md §0). Its budget is counted in env episodes,
 * so it can be given exactly AlphaZero's self-play episodes, or its env steps through forks.
 */
import { defineOptions, mean, mixSeed, SeededRng, type JSONSchemaType, type Registry } from '@turngym/core';
import { useBackend } from '@turngym/lm';
import {
  groupAdvantages,
  installedEnvRegistry,
  isTiedGroup,
  loadStoresCheckpoint,
  RunDirectory,
  saveStoresCheckpoint,
  testSplitOptions,
} from '@turngym/rl';
import type { EnvSpec, Info } from '@turngym/spec';
import { checkEvaluationTasks, checkTaskIds, evaluateAgent } from './alphazero';
import { AlphaZeroError } from './alphazero-error';
import { PolicyHeadAgent } from './alphazero-search';
import { DialogueEncoder } from './dialogue-features';
import { PolicyValueNet, type UpdateStats } from './policy-value-net';
import { loadRunNetwork } from './trained-network';
import { TranscriptRecorder } from './transcript-recorder';
import { allVoid, isVoidEpisode } from './void-episode';

/** The GRPO commander's arguments; one doc line per field. */
export interface GrpoCommanderArgs {
  /** A discrete-action env, e.g. `turngym/seller-commander-v1`. */
  envId: string;
  envOptions: Record<string, unknown>;
  /** Options of the evaluation env (default: `envOptions` with `split: 'test'` where the env has splits). */
  testEnvOptions?: Record<string, unknown>;
  runDir: string;
  seed: number;
  iterations: number;
  /** Groups per iteration: each is `groupSize` episodes of one task (one reset seed). */
  groupsPerIteration: number;
  /** GRPO's G. */
  groupSize: number;
  /** Train task ids the groups draw from (reset option `taskId`); unset: the env picks from each seed. */
  trainTasks?: number[];
  /** Width of the MLP's two hidden layers (AlphaZero's network, the same default). */
  hiddenSize: number;
  learningRate: number;
  /** Passes over an iteration's actions. */
  updateEpochs: number;
  /** Actions per Adam step. */
  minibatchSize: number;
  /** ε of the PPO clip. */
  clipEpsilon: number;
  /** c_H of −c_H·H(π_θ). */
  entropyCoefficient: number;
  evalEvery: number;
  /** Test episodes of the greedy policy (the legal meta-action with the largest probability). */
  evalEpisodes: number;
  /** Test task ids to evaluate on (seed 100000 + id); none: seeds 100000 + i. */
  evalTasks?: number[];
  quiet: boolean;
}

export const grpoCommanderArgsSchema: JSONSchemaType<GrpoCommanderArgs> = {
  type: 'object',
  additionalProperties: false,
  required: ['envId', 'runDir'],
  properties: {
    envId: { type: 'string', minLength: 1 },
    envOptions: { type: 'object', default: {}, required: [] },
    testEnvOptions: { type: 'object', nullable: true, required: [] },
    runDir: { type: 'string', minLength: 1 },
    seed: { type: 'integer', default: 1 },
    iterations: { type: 'integer', minimum: 1, default: 40 },
    groupsPerIteration: { type: 'integer', minimum: 1, default: 4 },
    groupSize: { type: 'integer', minimum: 2, default: 8 },
    trainTasks: { type: 'array', items: { type: 'integer', minimum: 0 }, minItems: 1, nullable: true },
    hiddenSize: { type: 'integer', minimum: 1, default: 64 },
    learningRate: { type: 'number', exclusiveMinimum: 0, default: 0.003 },
    updateEpochs: { type: 'integer', minimum: 1, default: 4 },
    minibatchSize: { type: 'integer', minimum: 1, default: 64 },
    clipEpsilon: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1, default: 0.2 },
    entropyCoefficient: { type: 'number', minimum: 0, default: 0.001 },
    evalEvery: { type: 'integer', minimum: 1, default: 10 },
    evalEpisodes: { type: 'integer', minimum: 0, default: 32 },
    evalTasks: { type: 'array', items: { type: 'integer', minimum: 0 }, minItems: 1, nullable: true },
    quiet: { type: 'boolean', default: false },
  },
};

export const validateGrpoCommanderArgs = defineOptions<GrpoCommanderArgs>(
  'GRPO commander arguments',
  grpoCommanderArgsSchema,
);

/** A resume may change these; any other difference from run.json is refused. */
const RESUMABLE = ['runDir', 'iterations', 'evalEvery', 'evalEpisodes', 'evalTasks', 'quiet'];

export interface GrpoCommanderResult {
  readonly iterations: number;
  /** Env episodes played in training so far. */
  readonly episodes: number;
  /** Env steps played in training so far, those of void episodes included (they were played, and paid for). */
  readonly envSteps: number;
  /** The last evaluation's success rate of the greedy policy (NaN where this process evaluated none). */
  readonly successRate: number;
  readonly net: PolicyValueNet;
  readonly encoder: DialogueEncoder;
}

/** One sampled episode: each decision's features, legal mask, action and log-prob, and the return. */
interface Rollout {
  readonly features: Float32Array[];
  readonly legal: number[][];
  readonly actions: number[];
  readonly logp: number[];
  readonly totalReward: number;
  readonly success: boolean;
}

/** Plays one episode, sampling each meta-action from the policy's softmax over the legal ones. */
async function sampleEpisode(
  env: TranscriptRecorder,
  net: PolicyValueNet,
  encoder: DialogueEncoder,
  rng: SeededRng,
  seed: number,
  options: Record<string, unknown> | undefined,
  played: { steps: number },
): Promise<Rollout> {
  const reset = await env.reset(options === undefined ? { seed } : { seed, options });
  let info: Info = reset.info;
  const rollout: Rollout = { features: [], legal: [], actions: [], logp: [], totalReward: 0, success: false };
  let totalReward = 0;
  for (;;) {
    const legal = encoder.legal(info);
    const features = encoder.encode(env.transcript, info);
    const { priors } = net.evaluate(features, legal);
    const action = rng.weighted(priors); // 0 on illegal actions
    rollout.features.push(features);
    rollout.legal.push(legal);
    rollout.actions.push(action);
    rollout.logp.push(Math.log(priors[action] as number));
    const result = await env.step(action);
    played.steps += 1; // counted as played, so that an episode that fails later (void) still counts it
    totalReward += result.reward;
    info = result.info;
    if (result.terminated || result.truncated) {
      return { ...rollout, totalReward, success: result.info.success === true };
    }
  }
}

/** The training loop: sample groups → group advantages → PPO-clip epochs → evaluation → metrics, checkpoint. */
export async function trainGrpoCommander(
  input: Partial<GrpoCommanderArgs>,
  hooks: {
    registry?: Registry;
    onIteration?: (row: Record<string, number>) => void;
    /**
     * Trains the fresh network before the first iteration (not on a resume, whose checkpoint holds it): a warm
     * start, e.g. behaviour cloning of an expert, as GRPO on a language model starts from an SFT model.
     */
    warmStart?: (net: PolicyValueNet, encoder: DialogueEncoder) => Promise<void>;
  } = {},
): Promise<GrpoCommanderResult> {
  const args = validateGrpoCommanderArgs(input);
  checkEvaluationTasks('GRPO commander arguments', args.evalTasks, args.evalEpisodes);
  await useBackend('cpu'); // the same small network as AlphaZero's: exact and fast on cpu
  const registry = hooks.registry ?? installedEnvRegistry();
  const testEnvOptions = args.testEnvOptions ?? testSplitOptions(registry, args.envId, args.envOptions);
  const env = new TranscriptRecorder(await registry.make(args.envId, { options: args.envOptions }));
  // Whatever ends the run (the end, an error, a refused resume) closes the envs and lets go of the run directory,
  // and an error disposes the network: a long-lived process would otherwise keep them and the run's lock.
  let testEnv: TranscriptRecorder | undefined;
  let run: RunDirectory | undefined;
  let built: PolicyValueNet | undefined;
  try {
    testEnv = new TranscriptRecorder(await registry.make(args.envId, { options: testEnvOptions }));
    const space = env.spec.actionSpace;
    if (space.type !== 'discrete') {
      throw new AlphaZeroError('ALPHAZERO_ENV', `${args.envId} has a ${space.type} action space, not a discrete one.`);
    }
    await checkTaskIds('GRPO commander arguments', {
      trainTasks: [env, args.trainTasks],
      evalTasks: [testEnv, args.evalTasks],
    });
    const encoder = new DialogueEncoder(space.n, env.spec.maxTurns ?? 10);
    const net = new PolicyValueNet(
      { inputs: encoder.size, actions: space.n, hidden: args.hiddenSize, features: encoder.settings },
      args.seed,
      args.learningRate,
    );
    built = net;
    run = await RunDirectory.openOrCreate(
      args.runDir,
      { algorithm: 'grpo-commander', envId: args.envId, seed: args.seed, args: { ...args } as Record<string, unknown> },
      { ignoreArgs: RESUMABLE },
    );
    let rng = new SeededRng(args.seed);
    let episodes = 0;
    let envSteps = 0;
    let start = 0;
    const stores = { network: net };
    const resumed = await loadStoresCheckpoint<{ rng: number[]; episodes: number; envSteps: number }>(run, stores);
    if (resumed) {
      start = resumed.iteration + 1;
      rng = SeededRng.fromState(resumed.extra.rng);
      ({ episodes, envSteps } = resumed.extra);
    } else if (hooks.warmStart) {
      await hooks.warmStart(net, encoder);
    }
    let successRate = Number.NaN;
    let finished = start;
    for (let iteration = start; iteration < args.iterations; iteration++) {
      const started = performance.now();
      // Collect: G episodes of one task per group, the policy sampled with its own seeded stream.
      const sampler = new SeededRng(mixSeed(args.seed, iteration));
      const groups: Rollout[][] = [];
      let errored = 0;
      let lastVoid: unknown;
      const played = { steps: 0 };
      for (let g = 0; g < args.groupsPerIteration; g++) {
        const seed = rng.int(0, 2 ** 31 - 1);
        const task = args.trainTasks ? rng.pick(args.trainTasks) : undefined;
        const group: Rollout[] = [];
        for (let i = 0; i < args.groupSize; i++) {
          try {
            group.push(
              await sampleEpisode(
                env,
                net,
                encoder,
                sampler,
                seed,
                task === undefined ? undefined : { taskId: task },
                played,
              ),
            );
          } catch (error) {
            // A void episode has no return: the group goes on without it (rl's rule for errored rollouts).
            if (!isVoidEpisode(error)) throw error;
            errored += 1;
            lastVoid = error;
          }
        }
        groups.push(group);
      }
      const rollouts = groups.flat();
      if (rollouts.length === 0) throw allVoid('sampled', iteration, errored, lastVoid);
      const steps = rollouts.reduce((sum, rollout) => sum + rollout.actions.length, 0);
      episodes += rollouts.length;
      envSteps += played.steps;

      // Advantages: A_i = (R_i − mean) / (std + 1e-6) within each group, shared by the episode's actions; a
      // tied group carries no signal and is left out (the kit's rule).
      const features: Float32Array[] = [];
      const legal: number[][] = [];
      const actions: number[] = [];
      const oldLogp: number[] = [];
      const advantages: number[] = [];
      let tied = 0;
      for (const group of groups) {
        const returns = group.map((rollout) => rollout.totalReward);
        if (isTiedGroup(returns)) {
          tied += 1;
          continue;
        }
        const groupAdvantage = groupAdvantages(returns);
        group.forEach((rollout, index) => {
          features.push(...rollout.features);
          legal.push(...rollout.legal);
          actions.push(...rollout.actions);
          oldLogp.push(...rollout.logp);
          advantages.push(...rollout.actions.map(() => groupAdvantage[index] as number));
        });
      }

      // Update: PPO-clip epochs over shuffled minibatches of the iteration's actions.
      const stats: UpdateStats[] = [];
      for (let epoch = 0; epoch < args.updateEpochs && actions.length > 0; epoch++) {
        const order = rng.shuffle(actions.map((_, index) => index));
        for (let from = 0; from < order.length; from += args.minibatchSize) {
          const rows = order.slice(from, from + args.minibatchSize);
          stats.push(
            net.trainPolicyGradient(
              {
                features: rows.map((row) => features[row] as Float32Array),
                legal: rows.map((row) => legal[row] as number[]),
                actions: rows.map((row) => actions[row] as number),
                oldLogp: rows.map((row) => oldLogp[row] as number),
                advantages: rows.map((row) => advantages[row] as number),
              },
              args.clipEpsilon,
              args.entropyCoefficient,
            ),
          );
        }
      }
      const row: Record<string, number> = {
        'charts/episodic_return': mean(rollouts.map((rollout) => rollout.totalReward)),
        'charts/success_rate': mean(rollouts.map((rollout) => (rollout.success ? 1 : 0))),
        'charts/episode_turns': steps / rollouts.length,
        'charts/errored_episodes': errored,
        'charts/env_steps': envSteps,
        'charts/episodes': episodes,
        'grpo/tied_groups': tied / groups.length,
        'time/iteration_s': (performance.now() - started) / 1000,
      };
      if (stats.length > 0) {
        row['losses/policy_loss'] = mean(stats.map((each) => each.policyLoss));
        row['losses/entropy'] = mean(stats.map((each) => each.entropy));
        row['losses/update_steps'] = stats.length;
      }
      const last = iteration === args.iterations - 1;
      if (args.evalEpisodes > 0 && ((iteration + 1) % args.evalEvery === 0 || last)) {
        const evaluation = await evaluateAgent(
          testEnv,
          new PolicyHeadAgent(net, encoder),
          args.evalEpisodes,
          args.evalTasks,
        );
        successRate = evaluation.successRate;
        if (evaluation.errored < args.evalEpisodes) {
          row['eval/success_rate'] = evaluation.successRate;
          row['eval/episodic_return'] = evaluation.meanReturn;
        }
        row['eval/errored_episodes'] = evaluation.errored;
      }
      await run.appendMetrics({ iteration, global_step: envSteps, ...row });
      await saveStoresCheckpoint(run, { iteration, stores, extra: { rng: [...rng.state()], episodes, envSteps } });
      finished = iteration + 1;
      hooks.onIteration?.({ iteration, global_step: envSteps, ...row });
      if (!args.quiet) {
        process.stderr.write(
          `grpo-commander ${iteration + 1}/${args.iterations} return ${row['charts/episodic_return']!.toFixed(3)}` +
            `${row['eval/success_rate'] === undefined ? '' : ` eval ${row['eval/success_rate'].toFixed(3)}`}\n`,
        );
      }
    }
    return { iterations: finished, episodes, envSteps, successRate, net, encoder };
  } catch (error) {
    built?.dispose();
    throw error;
  } finally {
    run?.close();
    await testEnv?.close();
    await env.close();
  }
}

/** The network of a GRPO commander run's last checkpoint, with the encoder it reads (`spec`: the env's). */
export async function loadGrpoCommander(
  runDir: string,
  spec: EnvSpec,
): Promise<{ net: PolicyValueNet; encoder: DialogueEncoder; args: GrpoCommanderArgs }> {
  return loadRunNetwork(runDir, spec, 'grpo-commander', (raw) =>
    validateGrpoCommanderArgs(raw as Partial<GrpoCommanderArgs>),
  );
}
