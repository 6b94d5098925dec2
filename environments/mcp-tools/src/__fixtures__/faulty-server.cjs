/* global require, process */
/* eslint-disable @typescript-eslint/no-require-imports -- a plain CommonJS script node runs as is */
// An MCP server (the official SDK's) whose tools fail the way real servers do: `crash` kills the process,
// `hang` never answers, `echo` works. For the env's fault tests.
const { Server } = require('@modelcontextprotocol/sdk/server/index.js');
const { StdioServerTransport } = require('@modelcontextprotocol/sdk/server/stdio.js');
const { CallToolRequestSchema, ListToolsRequestSchema } = require('@modelcontextprotocol/sdk/types.js');

const object = { type: 'object', properties: { text: { type: 'string' } } };
const server = new Server({ name: 'faulty', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, () => ({
  tools: [
    { name: 'echo', description: 'Echo the text.', inputSchema: object },
    { name: 'crash', description: 'Exit the process.', inputSchema: { type: 'object' } },
    { name: 'hang', description: 'Never answer.', inputSchema: { type: 'object' } },
  ],
}));
server.setRequestHandler(CallToolRequestSchema, (request) => {
  if (request.params.name === 'crash') {
    process.stderr.write('faulty server: crashing on purpose\n');
    process.exit(3);
  }
  if (request.params.name === 'hang') return new Promise(() => undefined);
  return { content: [{ type: 'text', text: String(request.params.arguments?.text ?? '') }] };
});
void server.connect(new StdioServerTransport());
