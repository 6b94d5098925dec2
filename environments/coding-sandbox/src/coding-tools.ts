import type { ToolSpec } from '@turngym/spec';

/** Workspace paths: relative, POSIX, no `..`, no leading `__` (reserved for the test runner). */
export const PATH_PATTERN = '^(?!__)(?!.*(^|/)\\.\\.?(/|$))[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*$';

const path = {
  type: 'string',
  minLength: 1,
  maxLength: 120,
  pattern: PATH_PATTERN,
  description: 'Workspace path, e.g. solution.ts or src/cart.ts',
};
const none = { type: 'object', additionalProperties: false, properties: {} };

/** The actions, as tools (JSON Schemas). The text syntax is documented in the README and the instructions. */
export const CODING_TOOLS: readonly ToolSpec[] = [
  {
    name: 'WRITE_FILE',
    description: 'Create or overwrite a file with the given content.',
    parameters: {
      type: 'object',
      additionalProperties: false,
      required: ['path', 'content'],
      properties: { path, content: { type: 'string', maxLength: 1000000 } },
    },
  },
  {
    name: 'EDIT_FILE',
    description: 'Replace the one occurrence of `search` in a file with `replace` (search must match exactly once).',
    parameters: {
      type: 'object',
      additionalProperties: false,
      required: ['path', 'search', 'replace'],
      properties: {
        path,
        search: { type: 'string', minLength: 1, maxLength: 1000000 },
        replace: { type: 'string', maxLength: 1000000 },
      },
    },
  },
  {
    name: 'READ_FILE',
    description: 'Show the content of a file.',
    parameters: { type: 'object', additionalProperties: false, required: ['path'], properties: { path } },
  },
  {
    name: 'RUN',
    description:
      'Run a snippet of TypeScript/JavaScript (`code`; it may import your files, its last expression is shown) or a file (`path`) in the sandbox; shows stdout, stderr and errors.',
    parameters: {
      type: 'object',
      additionalProperties: false,
      minProperties: 1,
      maxProperties: 1,
      properties: { code: { type: 'string', minLength: 1, maxLength: 100000 }, path },
    },
  },
  {
    name: 'RUN_TESTS',
    description: 'Run the visible tests; shows each failure with expected and actual values.',
    parameters: none,
  },
  {
    name: 'SUBMIT',
    description: 'Submit the workspace: the hidden tests are run and the episode ends.',
    parameters: none,
  },
];
