import { ByteTokenizer, LanguageModel, isBackendAvailable, testConfig, useBackend } from '@turngym/lm';
import { ChatTurnFormat } from '../chat-turn-format';
import type { RolloutPolicy } from '../rollout-engine';
import { DigitEnv } from './digit-env';

/**
 * The rollout tests' policy: an untrained test model (seed 7, 512 positions) on wasm where it loads, with the byte
 * tokenizer's chat format. Registers the describe block's hooks — the model made before its tests and freed after
 * them, and every test checked to leave no DigitEnv open — and returns a getter for the policy.
 */
export function useDigitPolicy(): () => RolloutPolicy {
  let policy: RolloutPolicy | undefined;
  const tokenizer = new ByteTokenizer();
  beforeAll(async () => {
    await useBackend(isBackendAvailable('wasm') ? 'wasm' : 'cpu');
    const model = LanguageModel.create(testConfig({ maxPositions: 512 }), { seed: 7, tokenizer });
    policy = { model, format: new ChatTurnFormat(tokenizer) };
  });
  afterAll(() => policy?.model.dispose());
  afterEach(() => expect(DigitEnv.open).toBe(0));
  return () => policy!;
}
