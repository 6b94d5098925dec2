import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { CliContext, GlobalOptions } from '../cli-context';
import { UsageError } from '../cli-errors';
import { writeLine } from '../cli-io';
import { loadTrainer, type TrainerName } from '../optional-modules';
import { collect, parseInteger, parseJsonObject, parsePositiveInteger } from '../parse-arguments';
import { checkOutputDirectory } from '../output-paths';
import { exitCodeForSignal, watchStopSignals } from '../stop-signals';

interface TrainCommandOptions {
  env: string;
  options?: Record<string, unknown>;
  testOptions?: Record<string, unknown>;
  checkpoint?: string;
  runDir?: string;
  out?: string;
  seed?: number;
  iterations?: number;
  tokenBudget?: number;
  backend?: string;
  config?: string;
  set: string[];
  quiet?: boolean;
  json?: boolean;
}

const ALGORITHMS: readonly TrainerName[] = [
  'sft',
  'grpo',
  'tree-grpo',
  'alphazero',
  'plan-act',
  'ccapo',
  'gigpo',
  'self-ac',
];

/** `key=value`: the value as JSON when it parses (numbers, booleans, objects), else as a string. */
function parseAssignment(text: string): [string, unknown] {
  const split = text.indexOf('=');
  // A UsageError, not commander's InvalidArgumentError: this runs inside the action, after commander
  // could print it, and runCli takes every CommanderError as already printed.
  if (split <= 0) throw new UsageError(`--set expects key=value, got "${text}".`);
  const raw = text.slice(split + 1);
  let value: unknown = raw;
  try {
    value = JSON.parse(raw);
  } catch {
    // a bare string such as `ratio=sequence`
  }
  return [text.slice(0, split), value];
}

/**
 * `turngym train sft|grpo|tree-grpo --env <id> …`: the reference trainers from the command line. Common
 * arguments have flags; every other trainer argument (see the trainer's README) is `--set key=value` or
 * a JSON file (`--config`). Arguments are validated by the trainer's schema, so a typo names the field.
 */
export function registerTrainCommand(program: Command, context: CliContext): void {
  program
    .command('train')
    .description(
      'train a policy on an env: sft (warm start from the expert), grpo, tree-grpo, alphazero, plan-act, ccapo, gigpo, self-ac',
    )
    .argument('<algorithm>', ALGORITHMS.join(' | '))
    .requiredOption('--env <id>', 'environment id, e.g. turngym/math-thought-v1')
    .option('--options <json>', 'env options for training (a JSON object)', parseJsonObject)
    .option('--test-options <json>', 'env options for evaluation (default: the test split)', parseJsonObject)
    .option('--checkpoint <dir>', 'base checkpoint (grpo, tree-grpo: the SFT warm start) or tiny-1m|tiny-8m')
    .option('--run-dir <dir>', 'metrics, trajectories and checkpoints (grpo, tree-grpo); resumes a run found there')
    .option('--out <dir>', 'where sft writes the trained checkpoint')
    .option('--seed <n>', 'seed of the run', parseInteger)
    .option('--iterations <n>', 'policy iterations (grpo, tree-grpo) or epochs (sft)', parsePositiveInteger)
    .option('--token-budget <n>', 'stop once this many rollout tokens were generated', parsePositiveInteger)
    .option('--backend <name>', 'auto | tensorflow | webgpu | wasm | cpu')
    .option('--config <file.json>', 'trainer arguments as a JSON object (flags override it)')
    .option('--set <key=value>', 'any other trainer argument (repeatable)', collect, [])
    .option('--quiet', 'no progress bar')
    .option('--json', 'print the result as JSON')
    .action(async (algorithm: string, options: TrainCommandOptions, command: Command) => {
      if (!ALGORITHMS.includes(algorithm as TrainerName)) {
        throw new UsageError(`Unknown algorithm "${algorithm}": expected one of ${ALGORITHMS.join(', ')}.`);
      }
      const name = algorithm as TrainerName;
      let args: Record<string, unknown> = {};
      if (options.config) {
        try {
          args = parseJsonObject(readFileSync(options.config, 'utf8'));
        } catch (error) {
          throw new UsageError(`--config ${options.config}: ${(error as Error).message}`);
        }
      }
      for (const assignment of options.set) {
        const [key, value] = parseAssignment(assignment);
        args[key] = value;
      }
      Object.assign(args, {
        envId: options.env,
        ...(options.options ? { envOptions: options.options } : {}),
        ...(options.testOptions ? { testEnvOptions: options.testOptions } : {}),
        ...(options.checkpoint ? { checkpoint: options.checkpoint } : {}),
        ...(options.seed !== undefined ? { seed: options.seed } : {}),
        ...(options.backend ? { backend: options.backend } : {}),
        ...(options.quiet ? { quiet: true } : {}),
      });
      const { registry } = context.loadEnvironments(command.optsWithGlobals<GlobalOptions>());
      if (name === 'sft') {
        if (options.out === undefined && args.out === undefined)
          throw new UsageError('turngym train sft needs --out <dir>.');
        if (options.out !== undefined) args.out = options.out;
        checkOutputDirectory('--out', String(args.out));
        if (options.iterations !== undefined) args.epochs = options.iterations;
        // SFT cannot stop between its steps, and a warm start is not resumed: a signal quits at once (the exit
        // releases its run's lock), saying where the last finished epoch is.
        const out = String(args.out);
        const interrupt = watchStopSignals(context.io.stderr, {
          quitHint: (signal) =>
            `interrupted (${signal}): ${out} holds the last finished epoch's checkpoint, if any; a warm start is ` +
            `not resumed: run the command again with another --out (or remove ${out}) to start over`,
        });
        try {
          const result = await loadTrainer('sft').trainSftWarmStart(args, { registry });
          const summary = {
            checkpoint: args.out,
            episodes: result.episodes,
            dropped: result.dropped,
            finalLoss: result.finalLoss,
            actionAccuracy: result.actionAccuracy,
            testSuccessRate: result.testSuccessRate,
          };
          result.model.dispose();
          report(context, summary, options.json);
        } finally {
          interrupt.dispose();
        }
        return;
      }
      if (!options.runDir && args.runDir === undefined)
        throw new UsageError(`turngym train ${name} needs --run-dir <dir>.`);
      if (options.runDir) args.runDir = options.runDir;
      checkOutputDirectory('--run-dir', String(args.runDir));
      if (options.iterations !== undefined) args.iterations = options.iterations;
      if (options.tokenBudget !== undefined) args.tokenBudget = options.tokenBudget;
      const runDir = String(args.runDir);
      const resumeHint = (signal: NodeJS.Signals, done?: number): string =>
        `interrupted (${signal}): ` +
        (done === undefined
          ? `${runDir} holds the checkpoint of the last finished iteration`
          : done === 0
            ? `no iteration done yet (run directory ${runDir})`
            : `${done} iteration${done === 1 ? '' : 's'} done, checkpoint in ${runDir}`) +
        '; run the same command again to resume';
      // Ctrl-C or SIGTERM (a container stop, a job scheduler) finishes the iteration in flight and writes its
      // checkpoint, then the command says how to resume and exits 130 or 143; a second signal quits at once.
      const interrupt = watchStopSignals(context.io.stderr, {
        finishing: 'the iteration in flight and saving its checkpoint',
        quitHint: resumeHint,
      });
      /**
       * The summary, then, for a run a signal stopped, how to resume it and the signal's exit code. A signal that
       * came during the last iteration stopped nothing: the run finished, and saying "run the same command again
       * to resume" sent the user to a command that has nothing left to do.
       */
      const finish = (summary: Record<string, unknown>, done: number, generatedTokens?: number): void => {
        report(context, summary, options.json);
        const signal = interrupt.stoppedBy;
        if (signal === undefined) return;
        writeLine(
          context.io.stderr,
          ranToTheEnd(name, args, done, generatedTokens)
            ? `interrupted (${signal}), but the run is finished: ${done} iteration${done === 1 ? '' : 's'} done, ` +
                `checkpoint in ${runDir}; there is nothing left to resume`
            : resumeHint(signal, done),
        );
        context.exitCode = exitCodeForSignal(signal);
      };
      try {
        if (name === 'alphazero') {
          // No language model: a policy-value network trained by self-play search (trainers/alphazero).
          const result = await loadTrainer('alphazero').trainAlphaZero(args, { registry, signal: interrupt.signal });
          result.net.dispose();
          const { iterations, globalStep, policySuccessRate, mctsSuccessRate } = result;
          finish({ runDir: args.runDir, iterations, globalStep, policySuccessRate, mctsSuccessRate }, iterations);
          return;
        }
        if (name === 'plan-act') {
          // A planner and an actor on one base model (trainers/plan-act): shared parameters or an adapter each.
          const result = await loadTrainer('plan-act').trainPlanAct(args, { registry, signal: interrupt.signal });
          result.model.dispose();
          const { iterations, generatedTokens, testSuccessRate } = result;
          finish({ runDir: args.runDir, iterations, generatedTokens, testSuccessRate }, iterations, generatedTokens);
          return;
        }
        const hooks = { registry, signal: interrupt.signal };
        const trainers = {
          grpo: () => loadTrainer('grpo').trainGrpo(args, hooks),
          'tree-grpo': () => loadTrainer('tree-grpo').trainTreeGrpo(args, hooks),
          ccapo: () => loadTrainer('ccapo').trainCcapo(args, hooks),
          gigpo: () => loadTrainer('gigpo').trainGigpo(args, hooks),
          'self-ac': () => loadTrainer('self-ac').trainSelfAc(args, hooks),
        };
        const result = await trainers[name]();
        result.model.dispose();
        finish(
          {
            runDir: args.runDir,
            iterations: result.iterations,
            generatedTokens: result.generatedTokens,
            testSuccessRate: result.testSuccessRate,
          },
          result.iterations,
          result.generatedTokens,
        );
      } finally {
        interrupt.dispose();
      }
    });
}

/**
 * Whether a run that did `done` iterations (and generated `generatedTokens`) did all its arguments ask for: its
 * iterations, or its token budget. The arguments are the trainer's own validation of what was passed (its
 * defaults filled in, as the run used them); false when they cannot be read, so the resume hint stays.
 */
function ranToTheEnd(
  name: Exclude<TrainerName, 'sft'>,
  args: Record<string, unknown>,
  done: number,
  generatedTokens?: number,
): boolean {
  let used: { iterations?: unknown; tokenBudget?: unknown };
  try {
    used = validatedArgs(name, args);
  } catch {
    return false;
  }
  if (typeof used.iterations === 'number' && done >= used.iterations) return true;
  return typeof used.tokenBudget === 'number' && generatedTokens !== undefined && generatedTokens >= used.tokenBudget;
}

function validatedArgs(name: Exclude<TrainerName, 'sft'>, args: Record<string, unknown>): Record<string, unknown> {
  const validators: Record<Exclude<TrainerName, 'sft'>, () => object> = {
    grpo: () => loadTrainer('grpo').validateGrpoArgs(args),
    'tree-grpo': () => loadTrainer('tree-grpo').validateTreeGrpoArgs(args),
    alphazero: () => loadTrainer('alphazero').validateAlphaZeroArgs(args),
    'plan-act': () => loadTrainer('plan-act').validatePlanActArgs(args),
    ccapo: () => loadTrainer('ccapo').validateCcapoArgs(args),
    gigpo: () => loadTrainer('gigpo').validateGigpoArgs(args),
    'self-ac': () => loadTrainer('self-ac').validateSelfAcArgs(args),
  };
  return validators[name]() as Record<string, unknown>;
}

function report(context: CliContext, summary: Record<string, unknown>, json: boolean | undefined): void {
  if (json) {
    writeLine(context.io.stdout, JSON.stringify(summary));
    return;
  }
  for (const [key, value] of Object.entries(summary)) {
    const shown = typeof value === 'number' && !Number.isInteger(value) ? value.toFixed(3) : String(value);
    writeLine(context.io.stdout, `${key.padEnd(18)} ${shown}`);
  }
}
