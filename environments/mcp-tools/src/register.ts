import { RandomAgent, type Registry } from '@turngym/core';
import { McpToolsEnv, MCP_TOOLS_ID } from './mcp-tools-env';
import { McpToolsExpert } from './mcp-tools-expert';
import { mcpToolsClientOptions, mcpToolsOptionsSchema, type McpToolsOptions } from './mcp-tools-options';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const manifest = require('../package.json') as { name: string; version: string };

/** Called by plugin discovery (`"turngym": { "register": "./dist/register.js" }` in package.json). */
export function register(registry: Registry): void {
  registry.register<McpToolsOptions>({
    id: MCP_TOOLS_ID,
    entryPoint: (options) => McpToolsEnv.create(options),
    optionsSchema: mcpToolsOptionsSchema,
    clientOptions: mcpToolsClientOptions,
    agents: {
      scripted: ({ env }) => new McpToolsExpert(env),
      random: ({ seed }) => new RandomAgent(seed),
    },
    packageName: manifest.name,
    packageVersion: manifest.version,
  });
}
