/* global require, process, setTimeout, setInterval */
/* eslint-disable @typescript-eslint/no-require-imports -- a plain CommonJS script node runs as is */
// An MCP server (the official SDK's) whose tools fail the way real servers do: `crash` kills the process,
// `hang` never answers, `flood` answers with 11 MB of text, `echo` works; `once` answers in the first process that calls it and hangs in every later
// one (they share the file PIDS_FILE, where each writes its pid), as a flaky server may on a fork's replay.
// For the env's fault tests (the environment variables they set are read where they are used).
const { appendFileSync, existsSync, readFileSync } = require('node:fs');
const { Server } = require('@modelcontextprotocol/sdk/server/index.js');
const { StdioServerTransport } = require('@modelcontextprotocol/sdk/server/stdio.js');
const { CallToolRequestSchema, ListToolsRequestSchema } = require('@modelcontextprotocol/sdk/types.js');

const object = { type: 'object', properties: { text: { type: 'string' } } };
const server = new Server({ name: 'faulty', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, () =>
  // With NO_TOOL_LIST set, a reply without its tools array, as a server built against another draft may send.
  process.env.NO_TOOL_LIST ? { items: [] } : listed(),
);
const listed = () => ({
  // With ENDLESS_LIST set, every page points to a next one, the same again.
  ...(process.env.ENDLESS_LIST ? { nextCursor: 'again' } : {}),
  tools: [
    { name: 'echo', description: 'Echo the text.', inputSchema: object },
    { name: 'crash', description: 'Exit the process.', inputSchema: { type: 'object' } },
    { name: 'hang', description: 'Never answer.', inputSchema: { type: 'object' } },
    { name: 'flood', description: 'Answer with 11 MB.', inputSchema: { type: 'object' } },
    { name: 'once', description: 'Answer in the first process only.', inputSchema: { type: 'object' } },
    {
      name: 'paint',
      description: 'Echo a colour, with a schema strict ajv refuses (an unknown format and keyword).',
      inputSchema: {
        type: 'object',
        properties: { thing: { type: 'string' }, color: { type: 'string', format: 'color', 'x-order': 1 } },
        required: ['thing', 'color'],
      },
    },
    // With TWIN_NAMES set, a second echo whose name differs only in case, as careless servers list.
    ...(process.env.TWIN_NAMES ? [{ name: 'ECHO', description: 'Shout the text.', inputSchema: object }] : []),
    // With DUPLICATE_NAME set, echo a second time under the very same name.
    ...(process.env.DUPLICATE_NAME ? [{ name: 'echo', description: 'Echo again.', inputSchema: object }] : []),
    // With ODD_LIST set, tools off the spec as real servers list them: a schema without "type": "object", a tool
    // without a name, and one whose results do not have the structured content its outputSchema promises.
    ...(process.env.ODD_LIST
      ? [
          {
            name: 'loose',
            description: 'Echo, its schema without a type.',
            inputSchema: { properties: { text: { type: 'string' } }, required: ['text'] },
          },
          { description: 'A tool without a name.', inputSchema: { type: 'object' } },
          {
            name: 'wrapped',
            description: 'Echo, its schema one $ref (as generators write a model).',
            inputSchema: {
              $ref: '#/$defs/Args',
              $defs: { Args: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
            },
          },
          { name: 'silent', description: 'Answers no content (a failure when text is "fail").', inputSchema: object },
          {
            name: 'shaped',
            description: 'Promises {n} and answers text.',
            inputSchema: { type: 'object' },
            outputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
          },
        ]
      : []),
  ],
});
server.setRequestHandler(CallToolRequestSchema, (request) => {
  if (request.params.name === 'crash') {
    process.stderr.write('faulty server: crashing on purpose\n');
    process.exit(3);
  }
  if (request.params.name === 'hang') return new Promise(() => undefined);
  if (request.params.name === 'paint') {
    const { thing, color } = request.params.arguments ?? {};
    return { content: [{ type: 'text', text: `${thing} in ${JSON.stringify(color)}` }] };
  }
  if (request.params.name === 'silent') return { content: [], isError: request.params.arguments?.text === 'fail' };
  if (request.params.name === 'shaped') return { content: [{ type: 'text', text: 'seven' }] };
  if (request.params.name === 'ECHO')
    return { content: [{ type: 'text', text: String(request.params.arguments?.text ?? '').toUpperCase() }] };
  if (request.params.name === 'flood') return { content: [{ type: 'text', text: 'x'.repeat(11_000_000) }] };
  if (request.params.name === 'once') {
    const file = process.env.PIDS_FILE;
    const earlier = existsSync(file) ? readFileSync(file, 'utf8') : '';
    appendFileSync(file, `${process.pid}\n`);
    if (earlier !== '') return new Promise(() => undefined);
    return { content: [{ type: 'text', text: 'first' }] };
  }
  return { content: [{ type: 'text', text: String(request.params.arguments?.text ?? '') }] };
});
// ECHO_ARGV: the process says its arguments on stderr as it starts (as servers that log their configuration do).
if (process.env.ECHO_ARGV) process.stderr.write(`faulty server: started with ${process.argv.slice(2).join(' ')}\n`);
// STARTED_FILE: where the process writes its pid as it starts; SLOW_START_MS: how long it waits before it answers.
if (process.env.STARTED_FILE) appendFileSync(process.env.STARTED_FILE, `${process.pid}\n`);
// KEEP_RUNNING: the process outlives its stdin's end (a timer, as a server with a database pool or a worker keeps).
if (process.env.KEEP_RUNNING) setInterval(() => undefined, 1000);
setTimeout(() => void server.connect(new StdioServerTransport()), Number(process.env.SLOW_START_MS ?? 0));
