import { join } from 'node:path';
import { CHECKPOINT_FILES, RunDirectory } from '@turngym/rl';
import type { EnvSpec } from '@turngym/spec';
import { validateAlphaZeroArgs, type AlphaZeroArgs } from './alphazero-args';
import { AlphaZeroError } from './alphazero-error';
import { DialogueEncoder, type TextFeatures } from './dialogue-features';
import { PolicyValueNet } from './policy-value-net';

/**
 * The network of a run's last checkpoint, with the encoder it reads (for evaluation and play after training):
 * `spec` is the env's (its action count and turn limit shape the features).
 */
export async function loadTrainedNetwork(
  runDir: string,
  spec: EnvSpec,
): Promise<{ net: PolicyValueNet; encoder: DialogueEncoder; args: AlphaZeroArgs }> {
  return loadRunNetwork(runDir, spec, 'alphazero', (raw) => validateAlphaZeroArgs(raw as Partial<AlphaZeroArgs>));
}

/** The loader of each trainer's runs, named when a run of one is handed to the other's. */
const LOADERS: Record<string, string> = { alphazero: 'loadTrainedNetwork', 'grpo-commander': 'loadGrpoCommander' };

/** What AlphaZero's and the GRPO commander's arguments share: the network's size, seed and step size. */
interface NetworkArgs {
  readonly hiddenSize: number;
  readonly seed: number;
  readonly learningRate: number;
  /** AlphaZero's; the GRPO commander reads `ascii`. */
  readonly textFeatures?: TextFeatures;
}

/**
 * The policy-value network stored as the `network` store of a run's last checkpoint, written by `algorithm`
 * (run.json's): `validate` reads that trainer's own arguments from the run's info.
 */
export async function loadRunNetwork<A extends NetworkArgs>(
  runDir: string,
  spec: EnvSpec,
  algorithm: 'alphazero' | 'grpo-commander',
  validate: (raw: unknown) => A,
): Promise<{ net: PolicyValueNet; encoder: DialogueEncoder; args: A }> {
  const run = await RunDirectory.open(runDir);
  // Both trainers store the same network, but the other's arguments failed validation field by field (a screen of
  // "unknown field" lines that never said the run was the other trainer's).
  if (run.info.algorithm !== algorithm) {
    const other = LOADERS[run.info.algorithm];
    throw new AlphaZeroError(
      'ALPHAZERO_CHECKPOINT',
      `${runDir} holds a run of ${run.info.algorithm}, not of ${algorithm}` +
        `${other ? `: read it with ${other}` : ''}.`,
    );
  }
  const args = validate(run.info.args);
  if (spec.actionSpace.type !== 'discrete') {
    throw new AlphaZeroError(
      'ALPHAZERO_ENV',
      `${spec.id} has a ${spec.actionSpace.type} action space, not a discrete one.`,
    );
  }
  const encoder = new DialogueEncoder(spec.actionSpace.n, spec.maxTurns ?? 10, args.textFeatures ?? 'ascii');
  const net = new PolicyValueNet(
    { inputs: encoder.size, actions: spec.actionSpace.n, hidden: args.hiddenSize, features: encoder.settings },
    args.seed,
    args.learningRate,
  );
  try {
    await net.load(join(run.checkpointPath, CHECKPOINT_FILES.stores, 'network'));
  } catch (error) {
    // A refused load (a network of another shape: the run's env is not `spec`'s) would keep the new one's tensors.
    net.dispose();
    if (!(error instanceof AlphaZeroError)) throw error;
    if (run.info.envId !== spec.id) {
      throw new AlphaZeroError(
        'ALPHAZERO_CHECKPOINT',
        `${error.message} The run trained on ${run.info.envId}, not ${spec.id}.`,
        { cause: error },
      );
    }
    // The same env made with other options (rounds: the turn limit the features are normalised by). An unreadable
    // checkpoint is not about the env: its error stands as it is.
    if (!/trained on features with|: (inputs|actions) is /.test(error.message)) throw error;
    const options = (run.info.args as { envOptions?: unknown }).envOptions;
    throw new AlphaZeroError(
      'ALPHAZERO_CHECKPOINT',
      `${error.message} Make the env as the run did (its envOptions: ${JSON.stringify(options ?? {})}).`,
      { cause: error },
    );
  }
  return { net, encoder, args };
}
