import { dirname } from 'node:path';
import { loadLm } from './optional-modules';

/** The part of @turngym/llm used here (a dependency of @turngym/lm, not of the CLI). */
interface LlmProviders {
  listChatModelProviders(): { prefix: string; builtIn: boolean }[];
  registerChatModelProvider(
    prefix: string,
    factory: (rest: string, options: object, spec: string) => unknown,
    options: { usage: string },
  ): () => void;
  createChatModel(spec: string, options: object): unknown;
}

const LOCAL_USAGE = 'local:<checkpoint dir | tiny-1m | tiny-8m | tiny-30m>';

/**
 * Makes `local:<checkpoint>` a chat-model spec wherever the CLI builds envs, not only for `--agent`: an env role
 * (`--options '{"judge":"local:tiny-1m"}'`) was refused with "call registerLocalChatModelProvider() … (the turngym
 * CLI does)". The provider registered here is a stub that loads @turngym/lm (tfjs) on the first `local:` spec, so
 * commands that never build a local model do not pay for it. It goes into the @turngym/llm copy that @turngym/lm
 * registers with, the one env packages use; a provider someone else registered first is kept.
 */
export function registerLazyLocalProvider(): void {
  let llm: LlmProviders;
  try {
    const lmEntry = require.resolve('@turngym/lm');
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    llm = require(require.resolve('@turngym/llm', { paths: [dirname(lmEntry)] })) as LlmProviders;
  } catch {
    // No @turngym/lm (an optional peer of the CLI): `--agent local:…` said "call registerLocalChatModelProvider()
    // … (the turngym CLI does)", which no CLI user can act on. The stub goes into the CLI's own @turngym/llm, and
    // its loadLm() says what to install.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    llm = require('@turngym/llm') as LlmProviders;
  }
  const current = llm.listChatModelProviders().find((provider) => provider.prefix === 'local');
  if (current && !current.builtIn) return;
  llm.registerChatModelProvider(
    'local',
    (_rest, options, spec) => {
      loadLm().registerLocalChatModelProvider(); // replaces this stub with the real provider
      return llm.createChatModel(spec, options);
    },
    { usage: LOCAL_USAGE },
  );
}
