import { registerChatModelProvider } from '@turngym/llm';
import { BACKEND_NAMES, type BackendName } from './backend';
import { LocalChatModel } from './local-chat-model';

/**
 * Makes `local:<checkpoint>` a ChatModel spec (`createChatModel('local:./ckpt')`): the checkpoint is a
 * directory or a built-in config name. Reads `providerOptions.backend` / `.adapter` / `.maxTokens`
 * (or TURNGYM_LM_BACKEND). Returns a function that puts back the previous provider.
 */
export function registerLocalChatModelProvider(): () => void {
  return registerChatModelProvider(
    'local',
    (rest, options) => {
      const provider = options.providerOptions ?? {};
      const backend =
        typeof provider.backend === 'string' && BACKEND_NAMES.includes(provider.backend as BackendName)
          ? (provider.backend as BackendName)
          : undefined;
      return new LocalChatModel(rest, {
        ...(backend ? { backend } : {}),
        ...(typeof provider.adapter === 'string' ? { adapter: provider.adapter } : {}),
        ...(typeof provider.maxTokens === 'number' ? { maxTokens: provider.maxTokens } : {}),
      });
    },
    { usage: 'local:<checkpoint dir | tiny-1m | tiny-8m | tiny-30m>', replace: true },
  );
}
