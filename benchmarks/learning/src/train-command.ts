/**
 * The `turngym train` command line of one learning-benchmark run. The Plan/Act benchmark and the CCAPO / GiGPO
 * wiki comparison build theirs here, so runs that share a baseline (the Plan/Act benchmark's single-agent GRPO
 * serves the CCAPO / GiGPO wiki comparison) differ in the algorithm and its own options alone.
 */
export interface TrainCommand {
  /** The CLI entry (`packages/cli/dist/bin.js`). */
  readonly cli: string;
  readonly algorithm: string;
  readonly envId: string;
  readonly envOptions: Record<string, unknown>;
  readonly checkpoint: string;
  readonly runDir: string;
  readonly seed: number;
  /** The trainer's arguments, each passed as `--set key=value` in this order; `backend` becomes `--backend`. */
  readonly args: Record<string, unknown>;
}

/** The argv after `node`: the CLI, `train <algorithm>`, the env, warm start, run directory, seed and `--set`s. */
export function trainCommand(command: TrainCommand): string[] {
  const { backend = 'wasm', ...sets } = command.args;
  return [
    command.cli,
    'train',
    command.algorithm,
    '--env',
    command.envId,
    '--options',
    JSON.stringify(command.envOptions),
    '--checkpoint',
    command.checkpoint,
    '--run-dir',
    command.runDir,
    '--seed',
    String(command.seed),
    '--backend',
    String(backend),
    ...Object.entries(sets).flatMap(([key, value]) => [
      '--set',
      `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`,
    ]),
    '--quiet',
    '--json',
  ];
}
