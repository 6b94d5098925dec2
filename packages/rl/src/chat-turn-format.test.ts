import { ByteTokenizer, renderChatTemplate, type ChatTemplateOptions } from '@turngym/lm';
import type { ChatMessage } from '@turngym/spec';
import { ChatTurnFormat } from './chat-turn-format';

/** The byte tokenizer with another chat template (ids: bytes, 256 <|endoftext|>, 257 <|im_start|>, 258 <|im_end|>). */
class TemplatedTokenizer extends ByteTokenizer {
  constructor(private readonly template: string) {
    super();
  }

  override applyChatTemplate(messages: readonly ChatMessage[], options: ChatTemplateOptions = {}): string {
    return renderChatTemplate(this.template, messages, { ...options, eosToken: '<|endoftext|>' });
  }
}

/** Llama 3's habit: every message's content is trimmed. */
const TRIMMING_TEMPLATE =
  "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] | trim }}<|im_end|>\n{% endfor %}" +
  '{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}';

/** A template that writes no end-of-turn token after an assistant's content (a newline only). */
const NO_END_TEMPLATE =
  "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}\n{% endfor %}" +
  '{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}';

/** An episode in pieces (prompt, an action the policy ended, an observation) against the template's own rendering. */
function piecesAndWhole(tokenizer: ByteTokenizer, task: string, action: string, observation: string) {
  const format = new ChatTurnFormat(tokenizer);
  const pieces = [
    ...format.promptTokens(undefined, task),
    ...format.actionTokens(action),
    ...format.observationTokens(observation, true),
  ];
  const whole = tokenizer.encode(
    tokenizer.applyChatTemplate(
      [
        { role: 'user', content: task },
        { role: 'assistant', content: action },
        { role: 'user', content: observation },
      ],
      { addGenerationPrompt: true },
    ),
  );
  return { pieces: tokenizer.decode(pieces), whole: tokenizer.decode(whole) };
}

describe('ChatTurnFormat (token-in/token-out turns)', () => {
  it('lays an episode out as the ChatML template renders the whole conversation', () => {
    const { pieces, whole } = piecesAndWhole(new ByteTokenizer(), ' task \n', '7', '\nResult: 5\n');
    expect(pieces).toBe(whole);
    expect(pieces).toBe(
      '<|im_start|>user\n task \n<|im_end|>\n<|im_start|>assistant\n7<|im_end|>\n' +
        '<|im_start|>user\n\nResult: 5\n<|im_end|>\n<|im_start|>assistant\n',
    );
  });

  it('renders every observation as the template does, trimmed by a template that trims (Llama 3)', () => {
    const { pieces, whole } = piecesAndWhole(
      new TemplatedTokenizer(TRIMMING_TEMPLATE),
      ' task \n',
      '7',
      '\nResult: 5\n',
    );
    // The first observation (in the prompt) and the later ones are shown alike, as a chat client shows them.
    expect(pieces).toBe(
      '<|im_start|>user\ntask<|im_end|>\n<|im_start|>assistant\n7<|im_end|>\n' +
        '<|im_start|>user\nResult: 5<|im_end|>\n<|im_start|>assistant\n',
    );
    expect(pieces).toBe(whole);
  });

  it('adds the end of the turn before the observation only when the policy did not sample it', () => {
    const tokenizer = new ByteTokenizer();
    const format = new ChatTurnFormat(tokenizer);
    expect(format.endOfTurn).toBe('<|im_end|>');
    expect(tokenizer.decode(format.observationTokens('ok', false))).toBe(
      '<|im_end|>\n<|im_start|>user\nok<|im_end|>\n<|im_start|>assistant\n',
    );
    expect(tokenizer.decode(format.observationTokens('ok', true))).toBe(
      '\n<|im_start|>user\nok<|im_end|>\n<|im_start|>assistant\n',
    );
    // The policy's own tokens: the action and the end of turn it sampled (<|im_end|> is id 258).
    expect(format.actionTokens('7')).toEqual([55, 258]);
    expect(format.endsTurn([55, 258])).toBe(true);
    expect(format.endsTurn([55])).toBe(false);
  });

  it('ends an expert action with one stop token when the template writes no end of turn', () => {
    // The byte tokenizer stops generation at either of two eos ids (<|im_end|> 258, <|endoftext|> 256): a sampled
    // action ends with one of them, so an action written for SFT must too, or SFT teaches a layout RL never samples.
    const tokenizer = new TemplatedTokenizer(NO_END_TEMPLATE);
    expect(tokenizer.eosTokenIds).toEqual([258, 256]);
    const format = new ChatTurnFormat(tokenizer);
    expect(format.endOfTurn).toBe('');
    expect(format.actionTokens('7')).toEqual([55, 258]);
    expect(format.endsTurn(format.actionTokens('7'))).toBe(true);
  });
});
