/**
 * Opening and closing tags of the reasoning some models write into their content: `<think>` (DeepSeek-R1, Qwen3
 * and QwQ served without a reasoning parser), `<thinking>`, `<reasoning>`, `[THINK]…[/THINK]` (Magistral) and
 * `◁think▷…◁/think▷` (Kimi). The slash of a closing tag is in the first group that matched.
 */
const REASONING_TAG = /<(\/?)(?:think|thinking|reasoning)>|\[(\/?)think\]|\u25c1(\/?)think\u25b7/gi;

/** A model's reply without its reasoning, and whether there was any. */
export interface StrippedReply {
  readonly text: string;
  /** The reply held reasoning: a block, an unclosed one (cut off), or a closing tag whose opening the template wrote. */
  readonly hadReasoning: boolean;
}

/**
 * The answer part of a model's reply: reasoning blocks removed. An agent's reasoning is no move (it may name
 * options it then rejects); a seller buyer's names the persona's private facts (budget, hidden deal-breakers),
 * which must not reach the agent; a judge's may quote verdicts it then rejects, which must not be its ruling. An unclosed block (the reply was cut while reasoning) leaves
 * nothing after it; a closing tag with no opening one (chat templates that put `<think>` in the prompt) drops
 * everything before it. One linear scan of the tags: replies can be up to a megabyte.
 */
export function stripReasoning(reply: string): StrippedReply {
  let text = '';
  let from = 0;
  let open = false;
  let hadReasoning = false;
  REASONING_TAG.lastIndex = 0;
  for (let tag = REASONING_TAG.exec(reply); tag !== null; tag = REASONING_TAG.exec(reply)) {
    hadReasoning = true;
    const closing = (tag[1] ?? tag[2] ?? tag[3]) === '/';
    if (!closing) {
      if (!open) text += reply.slice(from, tag.index);
      open = true;
    } else {
      // A closing tag with no opening one: what came before was reasoning too.
      if (!open) text = '';
      open = false;
      from = tag.index + tag[0].length;
    }
  }
  if (!open) text += reply.slice(from);
  return { text: hadReasoning ? text.trim() : reply, hadReasoning };
}
