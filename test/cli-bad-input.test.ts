import { join } from 'node:path';
import { errorLines, runBuiltCli } from './helpers/run-built-cli';

const ID = 'turngym/example-v1';
/** An env whose episode already ended on the other side: its first step raises ResetNeeded. */
const FIXTURE_PLUGIN = join(__dirname, 'fixtures', 'ended-session-env');

describe('bad input: one line on stderr, exit code 2', () => {
  const cases: { name: string; args: string[]; message: RegExp; input?: string }[] = [
    {
      name: 'unknown env id',
      args: ['info', 'turngym/nope-v1'],
      message: /^error: No environment named "turngym\/nope-v1"\. Did you mean: turngym\/example-v1\?/,
    },
    {
      name: 'unknown version',
      args: ['check', 'turngym/example-v9'],
      message: /^error: Environment "turngym\/example-v9" has no such version\. Available: turngym\/example-v1\./,
    },
    {
      name: 'options that fail the schema',
      args: ['run', ID, '--agent', 'scripted', '--options', '{"keys": 1}'],
      message: /^error: Invalid options for turngym\/example-v1: options\.keys must be >= 2 \(got 1\)$/,
    },
    {
      name: 'an unknown option field',
      args: ['check', ID, '--options', '{"colour": "red"}'],
      message: /^error: Invalid options for turngym\/example-v1: options has unknown field "colour"/,
    },
    {
      name: 'bad JSON in --options',
      args: ['check', ID, '--options', '{keys: 3}'],
      message: /^error: option '--options <json>' argument '\{keys: 3\}' is invalid\. Not valid JSON/,
    },
    {
      // The token was dropped and the local env checked: the user believed the server had been checked.
      name: 'check --token without --remote',
      args: ['check', ID, '--token', 'secret'],
      message: /^error: --token is the bearer token for --remote: give --remote <ws:\/\/host:port> with it\.$/,
    },
    {
      name: '--options that is not an object',
      args: ['info', ID, '--options', '[1]'],
      message: /^error: option '--options <json>' argument '\[1\]' is invalid\. Expected a JSON object/,
    },
    {
      name: 'an unknown agent',
      args: ['run', ID, '--agent', 'gpt-9'],
      message:
        /^error: Unknown agent "gpt-9" for turngym\/example-v1: expected one of random, scripted, or a chat-model spec/,
    },
    {
      name: 'an unknown chat-model provider',
      args: ['run', ID, '--agent', 'acme:big'],
      message: /^error: Unknown chat model spec "acme:big"/,
    },
    {
      name: 'a seed that is not an integer',
      args: ['play', ID, '--seed', '1.5'],
      message: /^error: option '--seed <n>' argument '1\.5' is invalid\. Expected an integer\.$/,
    },
    { name: 'an unknown flag', args: ['list', '--colour'], message: /^error: unknown option '--colour'$/ },
    {
      name: 'an action of the wrong type',
      args: ['play', ID],
      message:
        /^error: Environment "turngym\/example-v1" takes a string or a tool call \{ name, arguments \} as an action, got object\.$/,
      input: '{"key": "amber-1"}\n',
    },
    {
      name: 'a step after the end',
      args: ['--plugin', FIXTURE_PLUGIN, 'play', 'fixture/ended-session-v1'],
      message: /^error: fixture\/ended-session-v1: the episode has ended; call reset\(\) before step\(\)\.$/,
      input: 'hello\n',
    },
    {
      name: 'an empty --out (an unset variable), which used to mean no recording',
      args: ['run', ID, '--agent', 'scripted', '--episodes', '1', '--out', ''],
      message: /^error: --out is empty: name a file\.$/,
    },
    {
      name: 'an empty bench --out, which used to write into the working directory',
      args: ['bench', 'quick', '--agent', 'random', '--out', ' '],
      message: /^error: --out is empty: name a directory\.$/,
    },
    {
      name: 'an empty new-env --dir, which used to scaffold into the working directory',
      args: ['new-env', 'lantern', '--dir', ''],
      message: /^error: --dir is empty: name a directory\.$/,
    },
    {
      name: 'a --plugin path that does not exist',
      args: ['--plugin', '/no/such/plugin dir', 'list'],
      message:
        /^error: Could not load environment package "\/no\/such\/plugin dir": \/no\/such\/plugin dir does not exist$/,
    },
    {
      name: 'a --plugin directory that is no env package',
      args: ['--plugin', join(__dirname, 'fixtures'), 'list'],
      message:
        /^error: Could not load environment package ".*fixtures": .*fixtures is a directory without a package\.json that declares "turngym"/,
    },
  ];

  // Each case is its own process; running them side by side halves the wall time on two cores.
  it.concurrent.each(cases)('$name', async ({ args, message, input }) => {
    const result = await runBuiltCli(args, input === undefined ? {} : { input });
    expect(result.code).toBe(2);
    const lines = errorLines(result.stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(message);
  });

  it('--verbose adds the stack trace', async () => {
    const result = await runBuiltCli(['--verbose', 'info', 'turngym/nope-v1']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: No environment named/m);
    expect(result.stderr).toMatch(/^\s+at .*registry\.js/m);
  });
});
