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
  const run = await RunDirectory.open(runDir);
  const args = validateAlphaZeroArgs(run.info.args as Partial<AlphaZeroArgs>);
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
