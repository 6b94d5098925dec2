import type { ToolSpec } from '@turngym/spec';
import { formatToolCall, parseToolCall } from './tool-calls';

const tools: ToolSpec[] = [
  {
    name: 'SEARCH',
    description: 'search',
    parameters: {
      type: 'object',
      required: ['query'],
      additionalProperties: false,
      properties: { query: { type: 'string', minLength: 1 } },
    },
  },
  { name: 'BACK', description: 'back', parameters: { type: 'object', additionalProperties: false, properties: {} } },
  {
    name: 'SCROLL',
    description: 'scroll',
    parameters: {
      type: 'object',
      required: ['lines'],
      additionalProperties: false,
      properties: { lines: { type: 'integer', minimum: 1 } },
    },
  },
];

const hangTools: ToolSpec[] = [
  { name: 'SEARCH', description: 'search', parameters: { type: 'object', properties: { query: { type: 'string' } } } },
];

describe('parseToolCall', () => {
  it.each([
    ['SEARCH(river delta)', { name: 'SEARCH', arguments: { query: 'river delta' } }],
    ['search("quoted")', { name: 'SEARCH', arguments: { query: 'quoted' } }],
    ['SEARCH({"query": "json"})', { name: 'SEARCH', arguments: { query: 'json' } }],
    ['BACK()', { name: 'BACK', arguments: {} }],
    ['BACK', { name: 'BACK', arguments: {} }],
    ['SCROLL({"lines": 20})', { name: 'SCROLL', arguments: { lines: 20 } }],
  ])('reads %s', (text, call) => {
    expect(parseToolCall(text, tools)).toEqual({ ok: true, call });
  });

  it('reads NAME, NAME(args) and NAME (args), and answers at once on a word, a long run of blanks and another word', () => {
    for (const text of ['SEARCH', 'SEARCH()', 'SEARCH(x)', '  SEARCH   (x)  ', 'SEARCH\n(x)'])
      expect(parseToolCall(text, hangTools)).toMatchObject({ ok: true, call: { name: 'SEARCH' } });
    expect(parseToolCall('SEARCH x', hangTools)).toMatchObject({ ok: false });
    // With `\s*` on both sides of the optional call, 100,000 blanks took 10 s with the event loop blocked. The
    // bound is a hang guard, ~100× what the parse takes.
    const started = performance.now();
    expect(parseToolCall(`Let${' '.repeat(100_000)}me`, hangTools)).toMatchObject({ ok: false });
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('accepts structured function calls and round-trips formatToolCall', () => {
    const call = { name: 'SCROLL', arguments: { lines: 3 } };
    expect(parseToolCall(call, tools)).toEqual({ ok: true, call });
    expect(parseToolCall(formatToolCall(call), tools)).toEqual({ ok: true, call });
  });

  it('keeps feedback short whatever the size of the action: a 1 MB name was echoed back in full', () => {
    const huge = 'x'.repeat(1_000_000);
    for (const action of [huge, `${huge}(1)`, { name: huge, arguments: {} }, `SEARCH({"query": "q", "${huge}": 1})`]) {
      const parsed = parseToolCall(action, tools);
      expect(parsed.ok).toBe(false);
      expect(!parsed.ok && parsed.feedback.length).toBeLessThan(200);
    }
    const unknown = parseToolCall(huge, tools);
    expect(!unknown.ok && unknown.feedback).toMatch(/^Unknown tool "x{57}\.\.\."\. Tools: SEARCH, BACK, SCROLL\.$/);
  });

  it('answers arguments nested thousands deep with feedback, not a stack overflow out of the step', () => {
    const deep = `${'['.repeat(20_000)}${']'.repeat(20_000)}`;
    expect(parseToolCall(`SEARCH({"query": ${deep}})`, hangTools)).toEqual({
      ok: false,
      feedback: 'SEARCH: the arguments nest more than 100 levels deep.',
    });
    const shallow = `${'['.repeat(50)}${']'.repeat(50)}`;
    expect(parseToolCall(`SEARCH({"query": "x", "extra": ${shallow}})`, hangTools)).toMatchObject({ ok: true });
  });

  it('reads text calls of tool names the structured form takes: dots and slashes as MCP servers name tools', () => {
    const mcpTools: ToolSpec[] = [
      { name: 'files', description: 'list', parameters: { type: 'object', properties: {} } },
      ...['files.read', 'github/search_issues'].map((name) => ({
        name,
        description: name,
        parameters: { type: 'object', required: ['q'], properties: { q: { type: 'string' } } },
      })),
    ];
    for (const [text, call] of [
      ['files.read(README.md)', { name: 'files.read', arguments: { q: 'README.md' } }],
      ['FILES.READ ({"q": "a.txt"})', { name: 'files.read', arguments: { q: 'a.txt' } }],
      ['github/search_issues(open bugs)', { name: 'github/search_issues', arguments: { q: 'open bugs' } }],
      ['files', { name: 'files', arguments: {} }],
      ['files()', { name: 'files', arguments: {} }],
    ] as const) {
      expect(parseToolCall(text, mcpTools)).toEqual({ ok: true, call });
      expect(parseToolCall(call, mcpTools)).toEqual({ ok: true, call });
    }
    // Prose that starts with a tool's name is still no call.
    for (const text of ['files.read is what I need', 'files are listed', 'files.read(a) then files.read(b) later'])
      expect(parseToolCall(text, mcpTools)).toMatchObject({ ok: false });
    expect(parseToolCall('files.write(x)', mcpTools)).toEqual({
      ok: false,
      feedback: 'Unknown tool "files.write". Tools: files, files.read, github/search_issues.',
    });
    expect(parseToolCall('Done.', mcpTools)).toMatchObject({ ok: false, feedback: /^Could not read a tool call/ });
  });

  it('reads structured arguments sent as a JSON string (OpenAI function calling), with feedback when they are not', () => {
    expect(parseToolCall({ name: 'SCROLL', arguments: '{"lines": 3}' }, tools)).toEqual({
      ok: true,
      call: { name: 'SCROLL', arguments: { lines: 3 } },
    });
    expect(parseToolCall({ name: 'BACK', arguments: '' }, tools)).toEqual({
      ok: true,
      call: { name: 'BACK', arguments: {} },
    });
    expect(parseToolCall({ name: 'SCROLL', arguments: '{"lines": 3' }, tools)).toEqual({
      ok: false,
      feedback: 'SCROLL: the arguments are a string that is not valid JSON; send a JSON object, e.g. {"…": …}.',
    });
    expect(parseToolCall({ name: 'SCROLL', arguments: '[3]' }, tools)).toEqual({
      ok: false,
      feedback: 'SCROLL: arguments must be object (got [3]).',
    });
    expect(parseToolCall({ name: 'SCROLL', arguments: '{"lines": 0}' }, tools)).toMatchObject({
      ok: false,
      feedback: /arguments.lines must be >= 1/,
    });
    const deep = `{"query": ${'['.repeat(20_000)}${']'.repeat(20_000)}}`;
    expect(parseToolCall({ name: 'SEARCH', arguments: deep }, tools)).toEqual({
      ok: false,
      feedback: 'SEARCH: the arguments nest more than 100 levels deep.',
    });
    expect(parseToolCall({ name: 'FLY', arguments: 'not json' }, tools)).toMatchObject({
      ok: false,
      feedback: /^Unknown tool "FLY"/,
    });
  });

  it('takes a parameter whose type includes string as the one text argument: CLICK(3) and CLICK({"link": 3})', () => {
    const click: ToolSpec = {
      name: 'CLICK',
      description: 'click',
      parameters: {
        type: 'object',
        required: ['link'],
        properties: { link: { type: ['string', 'integer'] } },
      },
    };
    expect(parseToolCall('CLICK(Morrow Bay)', [click])).toEqual({
      ok: true,
      call: { name: 'CLICK', arguments: { link: 'Morrow Bay' } },
    });
    expect(parseToolCall('CLICK({"link": 3})', [click])).toEqual({
      ok: true,
      call: { name: 'CLICK', arguments: { link: 3 } },
    });
  });

  it('names a number JSON cannot hold as what it is, not null', () => {
    const parsed = parseToolCall('SCROLL({"lines": 1e400})', [
      {
        name: 'SCROLL',
        description: 'scroll',
        parameters: { type: 'object', properties: { lines: { type: 'integer' } } },
      },
    ]);
    expect(!parsed.ok && parsed.feedback).toBe('SCROLL: arguments.lines must be integer (got Infinity).');
  });

  it.each([
    ['FLY(away)', /Unknown tool "FLY". Tools: SEARCH, BACK, SCROLL/],
    ['just some prose', /Could not read a tool call/],
    ['SEARCH({"query": 3})', /arguments.query must be string/],
    ['SEARCH({bad json})', /not valid JSON/],
    ['SCROLL(ten)', /takes a JSON object/],
    ['SCROLL({"lines": 0})', /arguments.lines must be >= 1/],
    ['SEARCH({"query": "x", "page": 2})', /unknown field "page"/],
  ])('gives feedback for %s', (text, feedback) => {
    const parsed = parseToolCall(text, tools);
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.feedback).toMatch(feedback);
  });
});

describe('parseToolCall with a schema pattern that backtracks exponentially', () => {
  const open = (pattern: string): ToolSpec => ({
    name: 'OPEN',
    description: 'open',
    parameters: { type: 'object', required: ['path'], properties: { path: { type: 'string', pattern } } },
  });

  // `^(a+)+$` against "aaaa…!" froze the process: 2.9 s at 28 characters, hours at 40, from an agent's argument.
  it('answers at once on the argument that froze it, leaving the pattern to the tool owner with a warning', () => {
    const warning = jest.spyOn(process, 'emitWarning').mockImplementation(() => {});
    try {
      const tool = open('^(a+)+$');
      expect(parseToolCall(`OPEN(${'a'.repeat(40)}!)`, [tool])).toEqual({
        ok: true,
        call: { name: 'OPEN', arguments: { path: `${'a'.repeat(40)}!` } },
      });
      expect(parseToolCall('OPEN(b)', [tool]).ok).toBe(true);
      expect(warning).toHaveBeenCalledWith(expect.stringContaining('"^(a+)+$" can take exponential time'), {
        code: 'TURNGYM_UNSAFE_PATTERN',
      });
    } finally {
      warning.mockRestore();
    }
  });

  it('still enforces a pattern that cannot backtrack exponentially, such as a workspace path rule', () => {
    const tool = open('^(?!__)(?!.*(^|/)\\.\\.?(/|$))[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*$');
    expect(parseToolCall('OPEN(src/cart.ts)', [tool]).ok).toBe(true);
    const outside = parseToolCall('OPEN(../etc/passwd)', [tool]);
    expect(outside.ok).toBe(false);
    expect(!outside.ok && outside.feedback).toMatch(/^OPEN: arguments\.path must match pattern/);
  });
});

describe('parseToolCall with tool schemas that carry an $id', () => {
  const put = (parameters: Record<string, unknown>): ToolSpec[] => [
    { name: 'PUT', description: 'put', parameters: { type: 'object', ...parameters } },
  ];

  it('compiles a schema with a top-level $id each time an env builds it anew (a second make threw)', () => {
    for (let make = 0; make < 3; make++) {
      const tools = put({ $id: 'https://example.com/put.json', properties: { at: { type: 'integer' } } });
      expect(parseToolCall('PUT({"at": 1})', tools)).toEqual({ ok: true, call: { name: 'PUT', arguments: { at: 1 } } });
      expect(parseToolCall('PUT({"at": "x"})', tools)).toMatchObject({ ok: false });
    }
  });

  it("keeps one server's $id, nested or not, out of another's schema", () => {
    const id = 'https://example.com/point.json';
    const nested = put({ properties: { at: { $id: id, type: 'number' } } });
    const topLevel = put({ $id: id, properties: { z: { type: 'string' } } });
    const nestedAgain = put({ properties: { to: { $id: id, type: 'string' } } });
    // Refers to the id without defining it, and has a #/properties/at of its own: it was silently used for `v`.
    const dangling = put({ properties: { at: { type: 'boolean' }, v: { $ref: id } } });
    expect(parseToolCall('PUT({"at": 1})', nested)).toMatchObject({ ok: true });
    expect(parseToolCall('PUT({"z": "s"})', topLevel)).toMatchObject({ ok: true });
    expect(parseToolCall('PUT({"to": "s"})', nestedAgain)).toMatchObject({ ok: true });
    expect(parseToolCall('PUT({"to": 1})', nestedAgain)).toMatchObject({ ok: false });
    expect(() => parseToolCall('PUT({"v": true})', dangling)).toThrow(/can't resolve reference/);
  });
});
