import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { withBuiltServer } from './helpers/run-built-cli';

// The env server's own `POST /mcp` (OpenEnv's stateless endpoint, not `turngym serve --mcp`) driven by the MCP
// SDK's real Client, as Claude Desktop or an agent framework would: the handshake, ping, tools/list, tools/call.

const ID = 'turngym/example-v1';
const TOKEN = 'a-long-enough-secret-token-for-tests';

describe('turngym serve: an MCP client on POST /mcp', () => {
  it('connects, pings, lists the tools and calls one, with the server token', async () => {
    const { code } = await withBuiltServer(
      ID,
      [],
      async (url) => {
        const client = new Client({ name: 'cli-serve-test', version: '1.0.0' });
        const headers = { authorization: `Bearer ${TOKEN}` };
        await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers } }));
        expect(client.getServerCapabilities()).toEqual({ tools: { listChanged: false } });
        expect(client.getInstructions()).toMatch(/stateless/);
        await expect(client.ping()).resolves.toEqual({});
        const { tools } = await client.listTools();
        expect(tools.map((tool) => tool.name)).toEqual(['LOOKUP', 'SUBMIT']);
        const step = await client.callTool({ name: 'LOOKUP', arguments: { key: 'nowhere' } });
        expect(step).toMatchObject({
          isError: false,
          content: [{ type: 'text', text: 'LOOKUP nowhere: no such key.' }],
          structuredContent: { done: false },
        });
        await client.close();

        const refused = new Client({ name: 'cli-serve-test', version: '1.0.0' });
        await expect(refused.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)))).rejects.toThrow(
          /bearer token/,
        );
      },
      { TURNGYM_SERVER_TOKEN: TOKEN },
    );
    expect(code).toBe(0);
  });
});
