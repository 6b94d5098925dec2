/**
 * Whether an error reply says the prompt (plus the completion asked for) does not fit the model's context: the same
 * request fails again however often it is sent, and the conversation only grows, so it ends the agent's episode.
 *
 * Matched by code where a server sends one, else by the server's own wording (as their issue trackers quote it):
 * - OpenAI, TurnGym's serve-model and serveChatModel: `code: "context_length_exceeded"`.
 * - llama.cpp's server: `type: "exceed_context_size_error"` (ggml-org/llama.cpp#15780), "the request exceeds the
 *   available context size…" and "request (4390 tokens) exceeds the available context size (4096 tokens)"
 *   (ggml-org/llama.cpp#19774); llama-cpp-python: "Requested tokens (2285) exceed context window of 2048".
 * - vLLM (and OpenAI's older wording): "This model's maximum context length is 4096 tokens. However, you requested
 *   4472 tokens…" (vllm-project/vllm#20409); vLLM's scheduler: "Input prompt (35247 tokens) is too long and exceeds
 *   limit of 1000" (vllm-project/vllm#10440).
 * - SGLang: "The input (61709 tokens) is longer than the model's context length (40960 tokens)."
 *   (sgl-project/sglang#8096).
 * - TGI: "Input validation error: `inputs` tokens + `max_new_tokens` must be <= 2048…" and "`inputs` must have less
 *   than 2048 tokens" (huggingface/text-generation-inference#628, #695), a 422.
 * - Ollama: "input exceeds context length" (ollama/ollama runner); LM Studio: "Input length 6491 exceeds context
 *   length 1500".
 */
const OVERFLOW_WORDING = [
  /maximum context length is \d+/i,
  /longer than the model'?s context length/i,
  /exceeds? (?:the )?(?:available |maximum )?context (?:size|length|window)/i,
  /more than the model'?s context limit/i,
  /`inputs` tokens \+ `max_new_tokens` must be <=/,
  /`inputs` must have less than \d+ tokens/,
  /input prompt \(\d+ tokens\) is too long/i,
];

/** The parts of an error reply that say what it is, in any of the shapes servers send. */
export interface ErrorReply {
  readonly status: number | undefined;
  readonly code: unknown;
  readonly type: unknown;
  readonly message: string;
}

export function isContextOverflowReply(reply: ErrorReply): boolean {
  if (reply.code === 'context_length_exceeded' || reply.type === 'exceed_context_size_error') return true;
  // Wording alone counts only on a client-error status (or an error event in a stream, which has none): a 5xx that
  // mentions the context is a server fault, retried and reported as before.
  const aboutTheRequest = reply.status === undefined || (reply.status >= 400 && reply.status < 500);
  return aboutTheRequest && OVERFLOW_WORDING.some((pattern) => pattern.test(reply.message));
}
