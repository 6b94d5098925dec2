/** @turngym/mcp — TurnGym envs as MCP servers (stdio and Streamable HTTP), one env session per MCP session. */
export { serveMcp, type McpServerHandle } from './serve-mcp-http';
export { mcpServeSettingsSchema, type McpServeOptions, type McpServeSettings } from './mcp-serve-options';
export { EnvToolCatalog, RESET_OUTPUT_SCHEMA, STEP_OUTPUT_SCHEMA, type McpToolDefinition } from './env-tool-catalog';
export { serveMcpStdio, type McpStdioHandle, type McpStdioOptions } from './serve-mcp-stdio';
