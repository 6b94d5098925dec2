import { join } from 'node:path';
import { CHECKPOINT_FILES, RunDirectory } from '@turngym/rl';
import type { EnvSpec } from '@turngym/spec';
import { validateAlphaZeroArgs, type AlphaZeroArgs } from './alphazero-args';
import { AlphaZeroError } from './alphazero-error';
import { DialogueEncoder } from './dialogue-features';
import { PolicyValueNet } from './policy-value-net';

/**
 * The network of a run's last checkpoint, with the encoder it reads (for evaluation and play after training):
 * `spec` is the env's (its action count and turn limit shape the features).
 */
export async function loadTrainedNetwork(
  runDir: string,
  spec: EnvSpec,
): Promise<{ net: PolicyValueNet; encoder: DialogueEncoder; args: AlphaZeroArgs }> {
  return loadRunNetwork(runDir, spec, (raw) => validateAlphaZeroArgs(raw as Partial<AlphaZeroArgs>));
}

/** What AlphaZero's and the GRPO commander's arguments share: the network's size, seed and step size. */
interface NetworkArgs {
  readonly hiddenSize: number;
  readonly seed: number;
  readonly learningRate: number;
}

/**
 * The policy-value network stored as the `network` store of a run's last checkpoint, whichever trainer wrote
 * it: `validate` reads that trainer's own arguments from the run's info.
 */
export async function loadRunNetwork<A extends NetworkArgs>(
  runDir: string,
  spec: EnvSpec,
  validate: (raw: unknown) => A,
): Promise<{ net: PolicyValueNet; encoder: DialogueEncoder; args: A }> {
  const run = await RunDirectory.open(runDir);
  const args = validate(run.info.args);
  if (spec.actionSpace.type !== 'discrete') {
    throw new AlphaZeroError(
      'ALPHAZERO_ENV',
      `${spec.id} has a ${spec.actionSpace.type} action space, not a discrete one.`,
    );
  }
  const encoder = new DialogueEncoder(spec.actionSpace.n, spec.maxTurns ?? 10);
  const net = new PolicyValueNet(
    { inputs: encoder.size, actions: spec.actionSpace.n, hidden: args.hiddenSize },
    args.seed,
    args.learningRate,
  );
  await net.load(join(run.checkpointPath, CHECKPOINT_FILES.stores, 'network'));
  return { net, encoder, args };
}
