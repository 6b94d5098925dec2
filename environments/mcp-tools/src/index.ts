/** @turngym/env-mcp-tools — any MCP server's tools as a TurnGym environment, scored from a task file. */
export { McpToolsEnv, MCP_TOOLS_ID } from './mcp-tools-env';
export {
  mcpToolsOptionsSchema,
  mcpToolsClientOptions,
  validateMcpToolsOptions,
  demoServerCommand,
  DEMO_TASKS_PATH,
  type McpToolsOptions,
  type McpServerCommand,
} from './mcp-tools-options';
export { McpToolClient, type McpServerTarget, type ServerTool, type ToolOutcome } from './mcp-tool-client';
export { nodeHttpFetch, type ClosableFetch, type FetchLike } from './node-http-fetch';
export { McpToolsExpert } from './mcp-tools-expert';
export { loadTaskFile, type Task, type TaskRecord, type TaskCall } from './task-file';
export { compileCheck, normalizeText, numberOf, type AnswerCheck, type CheckDocument } from './answer-check';
export { parseJsonPath, selectPath, type PathStep } from './json-path';
export { TaskFileError } from './task-file-error';
export { register } from './register';
