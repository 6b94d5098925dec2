/** @turngym/cli — the `turngym` command, also usable in-process (tests, other tools). */
export { runCli, createProgram } from './program';
export { CliContext, type GlobalOptions, type Environments } from './cli-context';
export { processIo, type CliIo } from './cli-io';
export { UsageError, exitCodeFor, formatError, EXIT_OK, EXIT_FAILURE, EXIT_BAD_INPUT } from './cli-errors';
export { scaffoldEnv, findMonorepoRoot, type ScaffoldOptions, type ScaffoldResult } from './scaffold-env';
export { templateNames, renameTemplateText, type TemplateNames } from './template-names';
export { findTemplateSource, type TemplateSource } from './template-source';
export { parsePlayedAction } from './parse-played-action';
