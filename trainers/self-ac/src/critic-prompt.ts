import type { Tokenizer } from '@turngym/lm';
import { SelfAcSetupError } from './self-ac-errors';

/** The critic prompt's words (ALGORITHMS.md §2, the slide's `cp`). */
export const CRITIC_PROMPT_TEXT = 'Critic Mode! Evaluate the current state with a single expressive word:';

/** A placeholder no tokenizer or env writes, to find where a state's open assistant turn is in a rendering. */
const STATE_MARK = '\u0000TURNGYM-STATE\u0000';

/**
 * The critic prompt cp in the model's own chat template (ALGORITHMS.md §2): every state of a rollout ends
 * with an open assistant header (the prompt's generation prompt, or an observation's), so cp closes that
 * turn, adds the critic instruction as a system message and opens a new assistant turn — in ChatML
 * `<|im_end|>\n<|im_start|>system\nCritic Mode! …<|im_end|>\n<|im_start|>assistant\n`, the slide's
 * `<eos>system: Critic Mode! …<eos>assistant:`. Rendered, not hard-coded, so any template that renders a
 * turn the same way whatever came before (ChatML, Llama 3, …) gets its own form, as `ChatTurnFormat` does.
 */
export function criticPromptTokens(tokenizer: Tokenizer, text = CRITIC_PROMPT_TEXT): number[] {
  let rendered: string;
  try {
    rendered = tokenizer.applyChatTemplate(
      [
        { role: 'user', content: 'q' },
        { role: 'assistant', content: STATE_MARK },
        { role: 'system', content: text },
      ],
      { addGenerationPrompt: true },
    );
  } catch (error) {
    // Templates that allow a system message only first (Gemma's, Mistral's) raise_exception here; alone, their
    // message ("Conversation roles must alternate …") would not say that Self-AC's critic prompt asked for it.
    throw new SelfAcSetupError(
      `criticPromptTokens: the chat template refuses a system message after an assistant turn (${(error as Error).message}), so the critic prompt has no chat form; Self-AC needs a template that renders one (ChatML, Llama 3).`,
    );
  }
  const at = rendered.indexOf(STATE_MARK);
  const after = at < 0 ? '' : rendered.slice(at + STATE_MARK.length);
  if (!after.includes(text)) {
    throw new SelfAcSetupError(
      'criticPromptTokens: the chat template does not render a system message after an assistant turn, so the critic prompt has no chat form.',
    );
  }
  return tokenizer.encode(after);
}
