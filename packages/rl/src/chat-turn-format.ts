import type { Tokenizer } from '@turngym/lm';
import type { ChatMessage } from '@turngym/spec';

/** A placeholder no tokenizer or env writes, to find where the assistant's content goes in a rendering. */
const ACTION_MARK = '\u0000TURNGYM-ACTION\u0000';

/**
 * Turns an episode into tokens piece by piece, token-in/token-out: the prompt (system + first user
 * message + assistant header) is rendered once; each action is the tokens the policy sampled, kept as
 * they are; each observation is rendered as the text that the chat template puts between an assistant
 * reply and the next assistant header. Nothing already tokenised is ever re-tokenised, so the trained
 * sequence is exactly the sampled one (no drift at turn boundaries).
 *
 * The pieces come from the tokenizer's own chat template, so any HF template that renders a turn the
 * same way regardless of what came before (ChatML, Llama 3, …) works. Each observation goes through the
 * template itself, not pasted between two cached pieces: a template may change a message's content (Llama 3
 * trims it), and the policy must see its observations as a chat client (or the first prompt) shows them.
 */
export class ChatTurnFormat {
  /** The end-of-turn text the template writes after an assistant's content (e.g. `<|im_end|>`). */
  readonly endOfTurn: string;
  /**
   * The tokens that end an action written for the policy (`actionTokens`): the template's end of turn, or,
   * when the template writes none, the tokenizer's first eos id — one stop token, as a sampled action ends
   * with one (generation stops at the first eos id it samples).
   */
  readonly endOfTurnIds: readonly number[];

  constructor(readonly tokenizer: Tokenizer) {
    const OBSERVATION = '\u0000TURNGYM-OBSERVATION\u0000';
    const rendered = this.renderAfterAction(OBSERVATION);
    const observationAt = rendered.indexOf(OBSERVATION);
    if (observationAt < 0) {
      throw new RangeError('ChatTurnFormat: the chat template does not render assistant and user contents in order.');
    }
    const between = rendered.slice(0, observationAt);
    // The end of an assistant turn is the first special token after its content (ChatML's <|im_end|>,
    // Llama 3's <|eot_id|>); the template's newline after it belongs to the observation piece.
    const eosTexts = tokenizer.eosTokenIds.map((id) => tokenizer.decode([id]));
    const end = eosTexts
      .filter((text) => text !== '' && between.startsWith(text))
      .sort((a, b) => b.length - a.length)[0];
    this.endOfTurn = end ?? '';
    this.endOfTurnIds = end === undefined ? tokenizer.eosTokenIds.slice(0, 1) : tokenizer.encode(end);
  }

  /**
   * The template's text after an assistant reply's content when `observation` is the next user message: the
   * end of the turn, the observation as the template renders it, the next assistant header.
   */
  private renderAfterAction(observation: string): string {
    const rendered = this.tokenizer.applyChatTemplate(
      [
        { role: 'user', content: 'q' },
        { role: 'assistant', content: ACTION_MARK },
        { role: 'user', content: observation },
      ],
      { addGenerationPrompt: true },
    );
    // The first mark is the assistant's: the observation comes after it, whatever it holds.
    const actionAt = rendered.indexOf(ACTION_MARK);
    if (actionAt < 0) {
      throw new RangeError('ChatTurnFormat: the chat template does not render assistant and user contents in order.');
    }
    return rendered.slice(actionAt + ACTION_MARK.length);
  }

  /** The first prompt: the system message (when given), the task as the user message, the assistant header. */
  promptTokens(system: string | undefined, observation: string): number[] {
    const messages: ChatMessage[] = [];
    if (system !== undefined && system.trim() !== '') messages.push({ role: 'system', content: system });
    messages.push({ role: 'user', content: observation });
    return this.tokenizer.encode(this.tokenizer.applyChatTemplate(messages, { addGenerationPrompt: true }));
  }

  /**
   * The tokens between an action and the next one: the end of the turn when the policy did not sample it
   * (cut by its token limit), the observation as a user message, the next assistant header.
   */
  observationTokens(observation: string, actionEnded: boolean): number[] {
    const text = this.renderAfterAction(observation);
    return this.tokenizer.encode(actionEnded ? text.slice(this.endOfTurn.length) : text);
  }

  /** Whether `tokens` (an action as sampled) ends with an end-of-turn token. */
  endsTurn(tokens: readonly number[]): boolean {
    return tokens.length > 0 && this.tokenizer.eosTokenIds.includes(tokens.at(-1)!);
  }

  /** An action's text as the policy would have sampled it: its content and the end of the turn. */
  actionTokens(text: string): number[] {
    return [...this.tokenizer.encode(text), ...this.endOfTurnIds];
  }
}
