/** @turngym/trainer-sft — SFT warm start from an env's scripted expert. */
export {
  trainSftWarmStart,
  sftArgsSchema,
  validateSftArgs,
  type SftArgs,
  type SftHooks,
  type SftWarmStartResult,
} from './sft';
