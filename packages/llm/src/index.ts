/** @turngym/llm — ChatModel backends (OpenAI-compatible, scripted), retries, response cache, a model server, and a chat agent. */
export type {
  ChatModel,
  ChatModelMessage,
  ChatRequest,
  ChatResponse,
  ChatTokenLogprob,
  ChatToolCall,
  ChatTopLogprob,
  ChatUsage,
  FinishReason,
} from './chat-model';
export { LLMCallError, type LLMCallErrorOptions, type LLMCallFailure } from './llm-call-error';
export { ChatModelSpecError } from './chat-model-spec-error';
export { withRetries, backoffDelay, retryAfterDelay, DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry';
export { approximateTokenCount } from './token-count';
export { stripReasoning, type StrippedReply } from './strip-reasoning';
export { EXTENDED_SAMPLING_FIELDS, type ExtendedSamplingField } from './extended-sampling';
export {
  UNSUPPORTED_SAMPLING_FIELDS,
  unsupportedSamplingField,
  type UnsupportedSamplingField,
  type UnsupportedSamplingProblem,
} from './unsupported-sampling';
export {
  ScriptedChatModel,
  ECHO_SCRIPT,
  type ScriptedChatModelOptions,
  type ScriptedReplies,
  type ScriptedReply,
} from './scripted-chat-model';
export {
  resolveOpenAIOptions,
  openAIChatModelOptionsSchema,
  OPENAI_DEFAULT_BASE_URL,
  OPENAI_ENVIRONMENT_VARIABLES,
  LOCAL_PLACEHOLDER_API_KEY,
  type OpenAIChatModelInput,
  type OpenAIChatModelOptions,
  type SamplingDefaults,
} from './openai-options';
export { OpenAIChatModel } from './openai-chat-model';
export {
  CachedChatModel,
  cachedChatModelOptionsSchema,
  chatCacheKey,
  isDeterministicRequest,
  type CachedChatModelOptions,
  type ChatCacheStats,
} from './cached-chat-model';
export {
  createChatModel,
  registerChatModelProvider,
  listChatModelProviders,
  type ChatModelProvider,
  type CreateChatModelOptions,
} from './create-chat-model';
export {
  ChatModelAgent,
  chatModelAgentOptionsSchema,
  parseDiscreteReply,
  type ChatModelAgentOptions,
} from './chat-model-agent';
export {
  serveChatModel,
  serveChatModelOptionsSchema,
  type ChatModelServer,
  type ServeChatModelOptions,
  type ServerFaults,
} from './serve-chat-model';
export {
  parseRequestJson,
  type ParsedRequestJson,
  type RequestBodyHeaders,
  type RequestBodyProblem,
} from './parse-request-json';
