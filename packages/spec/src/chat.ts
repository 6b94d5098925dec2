/** Chat messages in the OpenAI shape, so any chat model, local or remote, reads the same history. */
export type ChatRole = 'system' | 'user' | 'assistant' | 'tool';

export interface ToolCall {
  /** Correlates a tool result with its call; optional for text-syntax calls. */
  readonly id?: string;
  readonly name: string;
  readonly arguments: Record<string, unknown>;
}

export interface ChatMessage {
  readonly role: ChatRole;
  readonly content: string;
  /** Tool calls made by an assistant message. */
  readonly toolCalls?: readonly ToolCall[];
  /** For role 'tool': which call this answers. */
  readonly toolCallId?: string;
  /** For multi-role envs (seller): which role spoke. */
  readonly name?: string;
}
